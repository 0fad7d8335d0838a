# Unit tests of the core (linked with it directly) and the shell tests that
# run client programs under the shim.
check_PROGRAMS += tests/test_thread tests/test_copy_pool tests/test_reuse_predictor tests/test_config tests/test_classify tests/test_route tests/test_forward_entry tests/test_launcher \
	tests/test_split tests/test_background_start tests/test_host_gram tests/blas_client tests/blas_client_nolink
tests_test_thread_SOURCES = tests/test_thread.c tests/tap.h
tests_test_reuse_predictor_SOURCES = tests/test_reuse_predictor.c tests/tap.h
tests_test_reuse_predictor_LDADD = src/libtscore.la
tests_test_thread_LDADD = src/libtscore.la
# The copy pool is the GPU plugin's, but plain C: tested without CUDA too.
tests_test_copy_pool_SOURCES = tests/test_copy_pool.c tests/tap.h cuda/copy_pool.c cuda/copy_pool.h
tests_test_copy_pool_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cuda
tests_test_copy_pool_LDADD = src/libtscore.la
tests_test_config_SOURCES = tests/test_config.c tests/fake_env.h tests/tap.h
tests_test_config_LDADD = src/libtscore.la
tests_test_classify_SOURCES = tests/test_classify.c tests/tap.h
tests_test_classify_LDADD = src/libtscore.la
tests_test_route_SOURCES = tests/test_route.c tests/tap.h
tests_test_route_LDADD = src/libtscore.la
tests_test_background_start_SOURCES = tests/test_background_start.c tests/tap.h
tests_test_background_start_LDADD = src/libtscore.la
tests_test_launcher_SOURCES = tests/test_launcher.c tests/tap.h
tests_test_launcher_LDADD = src/libtscore.la
# The Gram route's host update against the long double reference.
tests_test_host_gram_SOURCES = tests/test_host_gram.c tests/ref_level3.c tests/ref_level3.h tests/tap.h
tests_test_host_gram_LDADD = src/libtscore.la -lm
# The fake device of the split test computes with the CPU BLAS.
tests_test_split_SOURCES = tests/test_split.c tests/fake_env.h tests/tap.h
tests_test_split_LDADD = src/libtscore.la $(BLAS_LIBS) -lm
tests_test_forward_entry_SOURCES = tests/test_forward_entry.c tests/cblas_gemm.h tests/forward_gate.h tests/tap.h \
	shim/entry_points.c
tests_test_forward_entry_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim
tests_test_forward_entry_LDADD = src/libtscore.la
tests_blas_client_SOURCES = tests/blas_client.c
tests_blas_client_CPPFLAGS = $(AM_CPPFLAGS) -DTS_LINKED_BLAS
tests_blas_client_LDADD = $(BLAS_LIBS)
tests_blas_client_nolink_SOURCES = tests/blas_client.c

TESTS += tests/test_thread tests/test_copy_pool tests/test_reuse_predictor tests/test_config tests/test_classify tests/test_route tests/test_forward_entry tests/test_launcher tests/test_split \
	tests/test_background_start tests/test_host_gram \
	tests/exports.sh tests/xerbla.sh tests/silent.sh tests/forward_paths.sh tests/no_gpu.sh tests/layers.sh \
	tests/launcher.sh tests/python_launcher.sh tests/doctor.sh tests/python_package.sh
EXTRA_DIST += tests/launcher.sh tests/python_launcher.sh tests/doctor.sh tests/python_package.sh tests/python_client.py \
	tests/shim-report.awk tests/layers.sh tests/tap-functions.sh tests/exports.sh tests/xerbla.sh tests/silent.sh \
	tests/forward_paths.sh tests/no_gpu.sh

include $(srcdir)/tests/differential.mk
include $(srcdir)/tests/robustness.mk
include $(srcdir)/tests/datapath.mk
include $(srcdir)/tests/tuning.mk
include $(srcdir)/tests/tracking.mk
include $(srcdir)/tests/cache.mk
include $(srcdir)/tests/level3.mk
include $(srcdir)/tests/ilp64.mk
include $(srcdir)/tests/split.mk

# tests/python_package.sh keeps its virtual environment (NumPy and SciPy
# from PyPI) between runs; distclean removes it.
distclean-python-venv:
	-rm -rf tests/python-venv
.PHONY: distclean-python-venv
