# The demo: one legacy Fortran source (examples/subspace_iteration.F90 says
# what it computes) built once per precision, and `make demo`, which runs each
# program with and without the shim (examples/run-demo.sh).
# `make demo DEMO_ARGS="n b iterations report_every"` changes the sizes.
# The default is the quick size: n = 3000, not the programs' own 6000, so that
# five runs of each side of the three programs take about 30 s on two cores
# (at 6000 they took 137 s); README.md names a size where the GPU can pay off.
EXTRA_DIST += examples/run-demo.sh
DEMO_ARGS = 3000 16 60 10

if HAVE_FC
# .F90 is preprocessed by the compiler; the define picks the precision.
noinst_PROGRAMS += examples/subspace_s examples/subspace_d examples/subspace_z
examples_subspace_s_SOURCES = examples/subspace_iteration.F90
examples_subspace_s_CPPFLAGS = -DPREC_S
examples_subspace_s_LDADD = $(LAPACK_LIBS) $(BLAS_LIBS)
examples_subspace_d_SOURCES = examples/subspace_iteration.F90
examples_subspace_d_CPPFLAGS = -DPREC_D
examples_subspace_d_LDADD = $(LAPACK_LIBS) $(BLAS_LIBS)
examples_subspace_z_SOURCES = examples/subspace_iteration.F90
examples_subspace_z_CPPFLAGS = -DPREC_Z
examples_subspace_z_LDADD = $(LAPACK_LIBS) $(BLAS_LIBS)

DEMO_BINARIES = examples/subspace_s$(EXEEXT) examples/subspace_d$(EXEEXT) examples/subspace_z$(EXEEXT)
demo: $(DEMO_BINARIES) libtsshim.la
	TSSHIM_LIB='$(abs_top_builddir)/.libs/libtsshim.so' TSDEMO_ARGS='$(DEMO_ARGS)' \
	$(SHELL) $(srcdir)/examples/run-demo.sh $(DEMO_BINARIES)
else
demo:
	@echo "make demo: configure found no Fortran compiler; install gfortran and run configure again" >&2; exit 1
endif
.PHONY: demo
