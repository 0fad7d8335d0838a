# libtsshim-cuda.so, the GPU backend plugin: the execution layer plus the
# tuned kernels (kernels/libtskernels.la, see kernels/local.mk).
if HAVE_CUDA
lib_LTLIBRARIES += libtsshim-cuda.la
libtsshim_cuda_la_SOURCES = \
	kernels/gpu_plugin.c \
	kernels/gpu_context.c kernels/gpu_context.h \
	kernels/gpu_residency.c kernels/gpu_residency.h \
	kernels/gpu_cublas.c kernels/gpu_cublas.h \
	kernels/gpu_gemm.c kernels/gpu_gemm.h \
	kernels/gpu_pipeline.c kernels/gpu_pipeline.h \
	kernels/gpu_staging.c kernels/gpu_staging.h \
	kernels/gpu_copy_pool.c kernels/gpu_copy_pool.h \
	src/slicing.c src/slicing.h \
	kernels/c_update.cu kernels/c_update.h
libtsshim_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels $(CUDA_CPPFLAGS)
$(libtsshim_cuda_la_OBJECTS): $(tsk_cuda_headers)
libtsshim_cuda_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libtsshim_cuda_la_LIBADD = kernels/libtskernels.la $(CUDA_LIBS) -lstdc++
libtsshim_cuda_la_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS) -module -avoid-version -shared \
	-export-symbols-regex '^tsshim_gpu_ops$$'
endif
