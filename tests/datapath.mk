# The residency-aware data path: slicing, profile and learned-rate store
# unit tests and the end-to-end benchmark at small sizes everywhere; with
# CUDA, operands in every kind of memory through the shim (skipped without
# a device).
check_PROGRAMS += tests/test_slicing tests/test_profile tests/test_learned_store tests/test_program_memory
tests_test_slicing_SOURCES = tests/test_slicing.c tests/tap.h
tests_test_slicing_LDADD = src/libtscore.la
tests_test_profile_SOURCES = tests/test_profile.c tests/tap.h tests/text_file.h
tests_test_profile_LDADD = src/libtscore.la -lm
tests_test_learned_store_SOURCES = tests/test_learned_store.c tests/tap.h tests/text_file.h
tests_test_learned_store_LDADD = src/libtscore.la -lm
tests_test_program_memory_SOURCES = tests/test_program_memory.c tests/tap.h tests/text_file.h
tests_test_program_memory_LDADD = src/libtscore.la -lm
TESTS += tests/test_slicing tests/test_profile tests/test_learned_store tests/test_program_memory tests/bench_e2e_smoke.sh
EXTRA_DIST += tests/residency_gpu.sh tests/bench_e2e_smoke.sh tests/staging_ring.sh

# The staging ring's growth, compared with OpenBLAS (skipped without a device).
if HAVE_OPENBLAS
check_PROGRAMS += tests/staging_ring
tests_staging_ring_SOURCES = tests/staging_ring.c $(ROBUSTNESS_CHECK)
tests_staging_ring_LDADD = $(ROBUSTNESS_LIBS)
TESTS += tests/staging_ring.sh
endif

if HAVE_CUDA
check_PROGRAMS += tests/residency_gpu
tests_residency_gpu_SOURCES = tests/residency_gpu.c tests/gpu_present.c tests/gpu_present.h \
	tests/ref_blas.c tests/ref_blas.h tests/tap.h
tests_residency_gpu_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
tests_residency_gpu_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS)
tests_residency_gpu_LDADD = $(BLAS_LIBS) -lcudart -lm
TESTS += tests/residency_gpu.sh
endif
