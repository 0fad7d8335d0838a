# tools/tsshim-tune: times every kernel instance against cuBLAS on the present
# GPU and writes kernels/tuning_sm<NN>.c.
if HAVE_CUDA
noinst_PROGRAMS += tools/tsshim-tune
tools_tsshim_tune_SOURCES = tools/tsshim_tune.c bench/bench_common.h
tools_tsshim_tune_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels -I$(top_srcdir)/bench $(CUDA_CPPFLAGS)
tools_tsshim_tune_LDADD = kernels/libtskernels.la $(CUDA_LIBS) -lm
tools_tsshim_tune_LDFLAGS = $(CUDA_LDFLAGS)
endif
include $(srcdir)/tools/calibrate.mk

# tsshim: the launcher (a sh script; finds the library of the build tree
# beside it, else the installed one) and tsshim-doctor, which it runs for
# `tsshim doctor`.
bin_SCRIPTS = tools/tsshim
tools/tsshim: $(top_srcdir)/tools/tsshim.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && \
	sed -e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' -e 's|@libdir[@]|$(libdir)|g' -e 's|@bindir[@]|$(bindir)|g' \
	  $(top_srcdir)/tools/tsshim.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
CLEANFILES += tools/tsshim
EXTRA_DIST += tools/tsshim.in

bin_PROGRAMS += tools/tsshim-doctor
tools_tsshim_doctor_SOURCES = tools/tsshim_doctor.c
tools_tsshim_doctor_CPPFLAGS = $(AM_CPPFLAGS) -DTSSHIM_LIBDIR='"$(libdir)"'
tools_tsshim_doctor_LDADD = src/libtscore.la

# The Python package (pip install .): its files travel in the tarball.
EXTRA_DIST += pyproject.toml setup.py python/tsshim/__init__.py python/tsshim/__main__.py python/tsshim_launcher.py

# make wheel: a manylinux wheel of the Python package (tools/build-wheel.sh,
# into build/wheel of the source tree) from the libraries of this build
# directory (TSSHIM_BUILD_DIR); not part of all or check.
wheel:
	TSSHIM_BUILD_DIR="$${TSSHIM_BUILD_DIR:-$(abs_top_builddir)}" $(SHELL) $(top_srcdir)/tools/build-wheel.sh
.PHONY: wheel
EXTRA_DIST += tools/build-wheel.sh
