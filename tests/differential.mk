# Differential GEMM tests against OpenBLAS, under the shim in CPU mode and,
# where a CUDA device exists, in GPU mode.  Included from tests/local.mk.

check_PROGRAMS += tests/has_gpu
tests_has_gpu_SOURCES = tests/has_gpu.c tests/gpu_present.c tests/gpu_present.h
tests_has_gpu_LDADD = -ldl

tests_gemm_differential_SOURCES = tests/gemm_differential.c tests/cblas_gemm.h \
	tests/gemm_cases.c tests/gemm_cases.h tests/ref_blas.c tests/ref_blas.h \
	tests/tap.h
# Linked with the BLAS like a legacy program: the scripts preload the shim.
tests_gemm_differential_LDADD = $(BLAS_LIBS) -ldl -lm

if HAVE_OPENBLAS
check_PROGRAMS += tests/gemm_differential
TESTS += tests/gemm_differential_cpu.sh tests/gemm_differential_gpu.sh tests/gemm_differential_cblas.sh
endif

EXTRA_DIST += tests/gemm_differential_cpu.sh tests/gemm_differential_gpu.sh tests/gemm_differential_cblas.sh
CLEANFILES += tests/gemm_differential_gpu.shimlog tests/gemm_differential_gpu.out
