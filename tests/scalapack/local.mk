# ScaLAPACK's own testers (the PBLAS level-3 testers and the LU, Cholesky,
# QR, inverse, least-squares and symmetric-eigenvalue drivers of the
# distribution's scalapack-mpi-test, or TSSHIM_SCALAPACK_TESTERS) run as
# MPI jobs under mpirun without the shim and then with it preloaded into
# every rank, in each mode; every tester's summary counts must not change.
# Too slow for "make check": only "make check-scalapack" runs it. Without
# the testers or mpirun it reports SKIP.
EXTRA_DIST += tests/scalapack/check-scalapack.sh

.PHONY: check-scalapack clean-scalapack

# This test alone, through the TAP driver and the tests' environment.
check-scalapack:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/scalapack/check-scalapack.sh

# Its log is not in TESTS, so "make clean" would leave it.
clean-scalapack:
	-rm -rf tests/scalapack/run tests/scalapack/check-scalapack.log tests/scalapack/check-scalapack.trs
