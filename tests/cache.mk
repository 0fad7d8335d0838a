# The operand cache (src/cache/operand_cache.c) against program mutations of
# cached operands, forced to the GPU (skipped without a device); compares
# with OpenBLAS, hence HAVE_OPENBLAS.  Included from tests/local.mk.
EXTRA_DIST += tests/cache_mutations.sh
if HAVE_OPENBLAS
check_PROGRAMS += tests/cache_mutations
tests_cache_mutations_SOURCES = tests/cache_mutations.c tests/ref_blas.c tests/ref_blas.h tests/tap.h
tests_cache_mutations_CFLAGS = $(AM_CFLAGS) -pthread
tests_cache_mutations_LDADD = $(BLAS_LIBS) -lm
TESTS += tests/cache_mutations.sh
endif
