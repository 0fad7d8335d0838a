# The reference LAPACK test suite (lapack_testing.py and the testers of the
# distribution's liblapack-test, or TSSHIM_LAPACK_TESTERS) run without the
# shim and then under it in each mode; the summary counts must not change.
# Too slow for "make check": only "make check-lapack" runs it. Without the
# testers or python3 it reports SKIP.
EXTRA_DIST += tests/lapack/check-lapack.sh tests/suite-common.sh

.PHONY: check-lapack clean-lapack

# This test alone, through the TAP driver and the tests' environment.
check-lapack:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/lapack/check-lapack.sh

# Its log is not in TESTS, so "make clean" would leave it.
clean-lapack:
	-rm -rf tests/lapack/run tests/lapack/check-lapack.log tests/lapack/check-lapack.trs
