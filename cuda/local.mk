# libtsshim-cuda.so, the GPU backend plugin the core loads on demand: device
# contexts, residency, the host-data pipeline and its staging, cuBLAS, and the
# tuned kernels (kernels/libtskernels.la, see kernels/local.mk).
if HAVE_CUDA
lib_LTLIBRARIES += libtsshim-cuda.la
libtsshim_cuda_la_SOURCES = \
	cuda/plugin.c cuda/plugin.h \
	cuda/context.c cuda/context.h \
	cuda/residency.c cuda/residency.h \
	cuda/cublas_gemm.c cuda/cublas_gemm.h \
	cuda/gemm.c cuda/gemm.h \
	cuda/compute.c cuda/compute.h \
	cuda/level3_cublas.c cuda/level3_cublas.h \
	cuda/small_call.c cuda/small_call.h \
	cuda/pipeline.c cuda/pipeline.h \
	cuda/staging.c cuda/staging.h \
	cuda/copy_pool.c cuda/copy_pool.h \
	cuda/staged_copy.c cuda/staged_copy.h \
	cuda/cache_memory.c cuda/cache_memory.h \
	cuda/replica.c cuda/replica.h \
	src/common/slicing.c src/common/slicing.h \
	src/common/cost_model.c src/common/cost_model.h \
	src/common/mpi_launcher.c src/common/mpi_launcher.h \
	src/common/thread.c src/common/thread.h
libtsshim_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cuda -I$(top_srcdir)/kernels $(CUDA_CPPFLAGS)
libtsshim_cuda_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libtsshim_cuda_la_LIBADD = kernels/libtskernels.la $(CUDA_LIBS)
libtsshim_cuda_la_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS) -module -avoid-version -shared \
	-export-symbols-regex '^tsshim_gpu_ops$$'
endif
