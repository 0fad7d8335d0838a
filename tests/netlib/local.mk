# The netlib level-3 BLAS testers under the shim. Their sources come from the
# distribution's lapack source package at test time (cached in
# tests/netlib/src, or TSSHIM_NETLIB_SRC); nothing of lapack is in the tree.
# Without sources or a Fortran compiler the test reports SKIP.
TESTS += tests/netlib/netlib-blas3.sh
EXTRA_DIST += tests/netlib/netlib-blas3.sh tests/netlib/make-prebuilt.sh \
	tests/netlib/fetch-lapack-source.sh tests/netlib/check-blat3-summary.sh

.PHONY: check-netlib clean-netlib distclean-netlib

# This test alone, through the TAP driver and the tests' environment.
check-netlib:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/netlib/netlib-blas3.sh

clean-netlib:
	-rm -rf tests/netlib/bin tests/netlib/run tests/netlib/build.log

# The fetched sources outlive "make clean": fetching needs the network.
distclean-netlib: clean-netlib
	-rm -rf tests/netlib/src
