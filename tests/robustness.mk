# Concurrency, fork, NaN/Inf, exit-path and fault tests, and the
# compute-sanitizer run on the GPU host.  Included from tests/local.mk.
# The programs compare with OpenBLAS (tests/ref_blas.c), hence HAVE_OPENBLAS.
ROBUSTNESS_CHECK = tests/checked_gemm.c tests/checked_gemm.h \
	tests/gemm_cases.c tests/gemm_cases.h tests/ref_blas.c tests/ref_blas.h tests/tap.h
ROBUSTNESS_LIBS = $(BLAS_LIBS) -lm

if HAVE_OPENBLAS
check_PROGRAMS += tests/threads_stress tests/fork_child tests/nan_inf tests/exit_paths tests/background_start
tests_threads_stress_SOURCES = tests/threads_stress.c $(ROBUSTNESS_CHECK)
tests_threads_stress_LDADD = $(ROBUSTNESS_LIBS)
tests_fork_child_SOURCES = tests/fork_child.c $(ROBUSTNESS_CHECK)
tests_fork_child_LDADD = $(ROBUSTNESS_LIBS)
tests_nan_inf_SOURCES = tests/nan_inf.c $(ROBUSTNESS_CHECK)
tests_nan_inf_LDADD = $(ROBUSTNESS_LIBS)
tests_background_start_SOURCES = tests/background_start.c $(ROBUSTNESS_CHECK)
tests_background_start_LDADD = $(ROBUSTNESS_LIBS) -lpthread

# A real shared library (hence -rpath), so that its constructor and
# destructor run apart from the program's and the shim's.
check_LTLIBRARIES += tests/libctor_client.la
tests_libctor_client_la_SOURCES = tests/libctor_client.c tests/libctor_client.h $(ROBUSTNESS_CHECK)
# Own flags, hence own objects: the programs compile the same sources without libtool.
tests_libctor_client_la_CFLAGS = $(AM_CFLAGS)
tests_libctor_client_la_LIBADD = $(ROBUSTNESS_LIBS)
tests_libctor_client_la_LDFLAGS = $(AM_LDFLAGS) -rpath $(abs_builddir)/tests -avoid-version
tests_exit_paths_SOURCES = tests/exit_paths.c tests/libctor_client.h
tests_exit_paths_LDADD = tests/libctor_client.la
# A real executable, not a libtool wrapper script the preload would enter too.
tests_exit_paths_LDFLAGS = $(AM_LDFLAGS) -no-install

if HAVE_CUDA
# The same stress with pinned and device operands.
check_PROGRAMS += tests/threads_stress_cuda
tests_threads_stress_cuda_SOURCES = tests/threads_stress.c $(ROBUSTNESS_CHECK)
tests_threads_stress_cuda_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) -DTS_WITH_CUDA
tests_threads_stress_cuda_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS)
tests_threads_stress_cuda_LDADD = $(ROBUSTNESS_LIBS) $(CUDA_LIBS)
endif

TESTS += tests/threads_stress.sh tests/fork_child.sh tests/nan_inf.sh tests/exit_paths.sh tests/faults.sh \
	tests/background_start.sh
endif
EXTRA_DIST += tests/tap-programs.sh tests/threads_stress.sh tests/fork_child.sh tests/nan_inf.sh \
	tests/exit_paths.sh tests/faults.sh tests/background_start.sh tests/run-compute-sanitizer.sh

# compute-sanitizer (memcheck, racecheck, synccheck) over the GPU test
# programs, on a host with a GPU; prints TAP.
.PHONY: check-compute-sanitizer
check-compute-sanitizer: $(check_PROGRAMS) $(check_LTLIBRARIES) $(lib_LTLIBRARIES)
	$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/tests/run-compute-sanitizer.sh
