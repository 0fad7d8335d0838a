# kernels/libtskernels.la: the tuned tall-and-skinny kernels (TSM2, ISM2/TSMM,
# TSMTTSM) and the C update kernels, the sm_90 tuning table, and the host code
# that picks an instance per call (cuda/kernel_dispatch.c).  Linked into the
# GPU plugin (cuda/local.mk), the kernel tests, the benchmark and the tuner.
if HAVE_CUDA
noinst_LTLIBRARIES += kernels/libtskernels.la
kernels_libtskernels_la_SOURCES = \
	kernels/tsk_gemm.h kernels/tsk_registry.h \
	kernels/tsk_complex.cuh kernels/tsk_copy.cuh kernels/tsk_dmma.cuh kernels/tsk_view.cuh \
	kernels/tsm2_gemm.cu kernels/tsm2_dmma_gemm.cu kernels/ism2_gemm.cu kernels/ism2_dmma_gemm.cu \
	kernels/tsmttsm_gemm.cu kernels/tsmttsm_dmma_gemm.cu kernels/gram_dmma.cu kernels/tsk_gram.h \
	kernels/c_update.cu kernels/c_update.h \
	kernels/trsm_small.cu kernels/tsk_trsm.h \
	kernels/small_gemm.cu kernels/small_gemm.h \
	kernels/tuning_sm90.c cuda/kernel_dispatch.c kernels/device_pool.c kernels/tsk_pool.h
kernels_libtskernels_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels $(CUDA_CPPFLAGS)

check_PROGRAMS += tests/test_kernels
tests_test_kernels_SOURCES = tests/test_kernels.c tests/tap.h
tests_test_kernels_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels $(CUDA_CPPFLAGS)
tests_test_kernels_LDADD = kernels/libtskernels.la $(CUDA_LIBS) -lm
tests_test_kernels_LDFLAGS = $(CUDA_LDFLAGS)
TESTS += tests/test_kernels tests/kernel_deps.sh
EXTRA_DIST += tests/kernel_deps.sh
endif
