# End-to-end benchmark (bench/run-e2e.sh runs it with and without
# the shim; bench/run-datapath-gpu.sh runs tests, calibration and benchmark
# on the GPU host).  The rpath to the CUDA libraries lets bench_e2e dlopen
# libcudart/libcublas for its device and managed shapes without linking them.
noinst_PROGRAMS += bench/bench_e2e
bench_bench_e2e_SOURCES = bench/bench_e2e.c bench/e2e.h bench/e2e_util.c bench/e2e_check.c bench/e2e_reuse.c \
	bench/e2e_program.c
bench_bench_e2e_CFLAGS = $(AM_CFLAGS) -pthread
bench_bench_e2e_LDADD = $(BLAS_LIBS) -lm
bench_bench_e2e_LDFLAGS = $(AM_LDFLAGS) -pthread
if HAVE_CUDA
bench_bench_e2e_LDFLAGS += $(CUDA_LDFLAGS)
endif
EXTRA_DIST += bench/run-e2e.sh bench/run-datapath-gpu.sh
