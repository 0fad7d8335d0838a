# bench/bench_kernels: tuned kernels against cuBLAS on device-resident data
# bench/run-kernels-gpu.sh builds and runs it with nvcc
# alone on a GPU host without libtool.
if HAVE_CUDA
noinst_PROGRAMS += bench/bench_kernels
bench_bench_kernels_SOURCES = bench/bench_kernels.c bench/bench_common.h bench/fma_peak.cu
bench_bench_kernels_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels $(CUDA_CPPFLAGS)
bench_bench_kernels_LDADD = kernels/libtskernels.la $(CUDA_LIBS) -lm
bench_bench_kernels_LDFLAGS = $(CUDA_LDFLAGS)
endif
EXTRA_DIST += bench/run-kernels-gpu.sh bench/run-gpu-host.sh bench/run-split.sh

# bench/bench_level3_gpu: dsyrk_, dtrsm_, dtrmm_, dsymm_ and dsyr2k_ on
# device data through the shim against cuBLAS and the HBM roofline (run with
# LD_PRELOAD of the shim).
if HAVE_CUDA
noinst_PROGRAMS += bench/bench_level3_gpu
bench_bench_level3_gpu_SOURCES = bench/bench_level3_gpu.c bench/bench_util.c bench/bench_util.h
bench_bench_level3_gpu_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
bench_bench_level3_gpu_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS)
bench_bench_level3_gpu_LDADD = $(BLAS_LIBS) -lcublas -lcudart -ldl
endif

# bench/bench_midsize: mid-size host-data calls against their bytes at the
# pinned link rate; bench/run-midsize.sh runs it plain, forced to the GPU and
# in auto mode, and writes the joined CSV.
if HAVE_CUDA
noinst_PROGRAMS += bench/bench_midsize
bench_bench_midsize_SOURCES = bench/bench_midsize.c bench/bench_util.c bench/bench_util.h
bench_bench_midsize_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
bench_bench_midsize_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS)
bench_bench_midsize_LDADD = $(BLAS_LIBS) -lcudart
endif
EXTRA_DIST += bench/run-midsize.sh bench/three-ways.sh

# bench/bench_level3_host: TRSM, TRMM, SYR2K and SYMM on host data, tall and
# skinny and square, against their bytes at the pinned link rate, each
# checked against OpenBLAS called directly (tests/ref_blas.c, hence
# HAVE_OPENBLAS); bench/run-level3-host.sh runs it plain, forced to the GPU
# and in auto mode, and writes the joined CSV.  It finds the routines by
# name (dlsym): --no-as-needed keeps the BLAS, to which no symbol refers.
if HAVE_CUDA
if HAVE_OPENBLAS
noinst_PROGRAMS += bench/bench_level3_host
bench_bench_level3_host_SOURCES = bench/bench_level3_host.c bench/bench_util.c bench/bench_util.h tests/ref_blas.c \
	tests/ref_blas.h
bench_bench_level3_host_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests $(CUDA_CPPFLAGS)
bench_bench_level3_host_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS) -Wl,--no-as-needed
bench_bench_level3_host_LDADD = $(BLAS_LIBS) -lcudart -ldl -lm
endif
endif
EXTRA_DIST += bench/run-level3-host.sh

# bench/bench_forward: the shim's cost on a forwarded 8x8x8 dgemm_ against the
# CPU BLAS alone; `bench/bench_forward .libs/libtsshim.so` runs both.
noinst_PROGRAMS += bench/bench_forward
bench_bench_forward_SOURCES = bench/bench_forward.c bench/forward_timing.h
bench_bench_forward_LDADD = $(BLAS_LIBS)

# bench/bench_forward_level3: the same for SYRK, HERK and TRSM (Fortran and
# CBLAS); `bench/bench_forward_level3 .libs/libtsshim.so` runs both sides.
noinst_PROGRAMS += bench/bench_forward_level3
bench_bench_forward_level3_SOURCES = bench/bench_forward_level3.c bench/forward_timing.h
bench_bench_forward_level3_LDADD = $(BLAS_LIBS) -ldl
# The BLAS that does nothing, for `bench_forward_level3 --null
# bench/.libs/libnullblas.so .libs/libtsshim.so`.
noinst_LTLIBRARIES += bench/libnullblas.la
bench_libnullblas_la_SOURCES = bench/null_blas.c
bench_libnullblas_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/bench

# bench/bench_forward_ilp64: the same for the ILP64 names (dgemm_64_,
# scipy_cblas_dgemm64_, ...); `bench/bench_forward_ilp64 PROVIDER
# .libs/libtsshim.so` with PROVIDER tests/.libs/libilp64_provider.so (built
# by make check) or bench/.libs/libnullblas.so.
noinst_PROGRAMS += bench/bench_forward_ilp64
bench_bench_forward_ilp64_SOURCES = bench/bench_forward_ilp64.c bench/forward_timing.h tests/ilp64_types.h
bench_bench_forward_ilp64_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_forward_ilp64_LDADD = -ldl
include $(srcdir)/bench/e2e.mk

# make bench-scalapack: the ScaLAPACK benchmark under mpirun (CholeskyQR2,
# optionally PDGEQRF, of a tall matrix over 4, 8 and 16 ranks), plain
# against the shim; bench/scalapack/run-cholqr.sh builds the program with
# mpicc and lists what it reads.  Neither in "make all" nor in "make check":
# it needs Open MPI, ScaLAPACK and minutes.  Results go to SCALAPACK_BENCH_OUT.
EXTRA_DIST += bench/scalapack/cholqr.c bench/scalapack/run-cholqr.sh
EXTRA_DIST += bench/numpy_gram.py bench/run-numpy-gram.sh
SCALAPACK_BENCH_OUT = scalapack-bench
bench-scalapack: libtsshim.la
	TSSHIM_LIB='$(abs_top_builddir)/.libs/libtsshim.so' abs_top_srcdir='$(abs_top_srcdir)' \
	abs_top_builddir='$(abs_top_builddir)' $(SHELL) $(srcdir)/bench/scalapack/run-cholqr.sh $(SCALAPACK_BENCH_OUT)
.PHONY: bench-scalapack

# The program benchmark (issue 42): bench/programs/run-programs.sh runs the
# demo, the Python programs, cholqr2 and bench_e2e's program cases plain,
# under the shim in auto and gpu mode and with candidate settings; its
# header says how.  Neither in "make all"'s tests nor in "make check".
noinst_PROGRAMS += bench/programs/cholqr2
bench_programs_cholqr2_SOURCES = bench/programs/cholqr2.c
bench_programs_cholqr2_LDADD = $(LAPACK_LIBS) $(BLAS_LIBS) -lm
EXTRA_DIST += bench/programs/run-programs.sh bench/programs/lobpcg.py bench/programs/tall_skinny.py \
	bench/programs/late_product.py
