# libtsshim.so: the core (src/) behind the entry points of the routine list
# (src/common/routine_list.h), which are all it exports.
lib_LTLIBRARIES += libtsshim.la
libtsshim_la_SOURCES = shim/entry_points.c shim/gate.h shim/level3_adapters.h
libtsshim_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim
libtsshim_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libtsshim_la_LIBADD = src/libtscore.la
libtsshim_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version -export-symbols shim/exports.sym
EXTRA_libtsshim_la_DEPENDENCIES = shim/exports.sym
CLEANFILES += shim/exports.sym

# The exported names, one per line, expanded from the routine list by the
# preprocessor, then the public query functions (src/entry/query.c; the
# Python package reads them); tests/exports.sh checks the library against
# the same file.
TS_QUERY_EXPORTS = tsshim_report_json tsshim_settings_json
shim/exports.sym: $(top_srcdir)/src/common/routine_list.h $(top_srcdir)/shim/local.mk
	$(AM_V_GEN)$(MKDIR_P) shim && \
	printf '#include "common/routine_list.h"\n#define TS_EXPORT(symbol, prec, args, abi) @symbol@\nTS_ROUTINE_LIST(TS_EXPORT)\n' | \
	$(CPP) -P -I$(top_srcdir)/src - | tr ' ' '\n' | sed -n 's/^@\(.*\)@$$/\1/p' >$@.tmp && \
	for q in $(TS_QUERY_EXPORTS); do echo $$q; done >>$@.tmp && mv $@.tmp $@
