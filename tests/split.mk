# One call split across devices (src/multigpu/split_plan.c, split_run.c): tests/test_split (the cut,
# the keys, the decision, whole calls through a fake backend; no GPU) is in
# tests/local.mk; tests/split.sh runs tests/split_gemm and the differential
# test with device 0 listed twice and three times (GPU only).  Compares
# with OpenBLAS, hence HAVE_OPENBLAS.  Included from tests/local.mk.
EXTRA_DIST += tests/split.sh
if HAVE_OPENBLAS
check_PROGRAMS += tests/split_gemm
tests_split_gemm_SOURCES = tests/split_gemm.c $(ROBUSTNESS_CHECK)
tests_split_gemm_LDADD = $(ROBUSTNESS_LIBS)
TESTS += tests/split.sh
endif
