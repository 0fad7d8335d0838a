# The kernel dispatch's tuning index against the table scans it replaced.
# Launches nothing: runs without a GPU.  Included from tests/local.mk.
if HAVE_CUDA
check_PROGRAMS += tests/test_tuning_index
tests_test_tuning_index_SOURCES = tests/test_tuning_index.c tests/tap.h
tests_test_tuning_index_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels $(CUDA_CPPFLAGS)
tests_test_tuning_index_LDADD = kernels/libtskernels.la $(CUDA_LIBS) -lm
tests_test_tuning_index_LDFLAGS = $(CUDA_LDFLAGS)
TESTS += tests/test_tuning_index
endif
