# The netlib level-3 BLAS testers and LAPACK's CBLAS level-3 testers under
# the shim. Their sources come from the distribution's lapack source package
# at test time (cached in tests/netlib/src, or TSSHIM_NETLIB_SRC); nothing of
# lapack is in the tree. Without sources, compilers or (CBLAS) a CBLAS
# library the test reports SKIP.
netlib_tests = tests/netlib/netlib-blas3.sh tests/netlib/netlib-cblas3.sh
TESTS += $(netlib_tests)
EXTRA_DIST += $(netlib_tests) tests/netlib/make-prebuilt.sh \
	tests/netlib/fetch-lapack-source.sh tests/netlib/check-blat3-summary.sh

.PHONY: check-netlib clean-netlib distclean-netlib

# These tests alone, through the TAP driver and the tests' environment.
check-netlib:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(netlib_tests)'

clean-netlib:
	-rm -rf tests/netlib/bin-blas3 tests/netlib/bin-cblas3 tests/netlib/run \
		tests/netlib/build-blas3.log tests/netlib/build-cblas3.log

# The fetched sources outlive "make clean": fetching needs the network.
distclean-netlib: clean-netlib
	-rm -rf tests/netlib/src
