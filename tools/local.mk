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
