# libtsshim.so: exports exactly the four Fortran GEMM symbols.
lib_LTLIBRARIES += libtsshim.la
libtsshim_la_SOURCES = shim/gemm_exports.c shim/gemm_symbols.h
libtsshim_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim
libtsshim_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libtsshim_la_LIBADD = src/libtscore.la
libtsshim_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version -export-symbols-regex '^[sdcz]gemm_$$'
