# tsshim-calibrate: measures the machine and writes the cost model's profile.
if HAVE_CUDA
bin_PROGRAMS += tools/tsshim-calibrate
tools_tsshim_calibrate_SOURCES = tools/tsshim_calibrate.c cuda/copy_pool.c cuda/copy_pool.h
tools_tsshim_calibrate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cuda $(CUDA_CPPFLAGS) -DTSSHIM_LIBDIR='"$(libdir)"'
tools_tsshim_calibrate_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS)
tools_tsshim_calibrate_LDADD = src/libtscore.la $(BLAS_LIBS) -lcudart
endif
