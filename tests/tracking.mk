# The host write tracker (userfaultfd write protection and PAGEMAP_SCAN):
# runs without a GPU; skips every point where the kernel lacks the mechanism.
# Included from tests/local.mk.
check_PROGRAMS += tests/test_write_tracker
tests_test_write_tracker_SOURCES = tests/test_write_tracker.c tests/tap.h
tests_test_write_tracker_LDADD = src/libtscore.la
TESTS += tests/test_write_tracker
