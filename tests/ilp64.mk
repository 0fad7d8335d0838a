# The ILP64 names (dgemm_64_, cblas_dgemm64_, scipy_dsyrk_64_, ...) under the
# shim, against an ILP64 BLAS: the provider gives a real one those names
# (tests/ilp64_provider.c).  The client links it, or opens it with
# dlopen(RTLD_LOCAL) after start as NumPy does.  Included from tests/local.mk.
check_LTLIBRARIES += tests/libilp64_provider.la
tests_libilp64_provider_la_SOURCES = tests/ilp64_provider.c tests/provider_jumps.h
tests_libilp64_provider_la_LIBADD = -ldl
tests_libilp64_provider_la_LDFLAGS = $(AM_LDFLAGS) -rpath $(abs_builddir)/tests -avoid-version

check_PROGRAMS += tests/ilp64_client tests/ilp64_client_dlopen
tests_ilp64_client_SOURCES = tests/ilp64_client.c
tests_ilp64_client_LDADD = tests/libilp64_provider.la $(BLAS_LIBS) -ldl -lm
# The client finds its routines by name only: keep the libraries it names.
tests_ilp64_client_LDFLAGS = $(AM_LDFLAGS) -no-install -Wl,--no-as-needed
tests_ilp64_client_dlopen_SOURCES = tests/ilp64_client.c
tests_ilp64_client_dlopen_LDADD = $(BLAS_LIBS) -ldl -lm
tests_ilp64_client_dlopen_LDFLAGS = $(AM_LDFLAGS) -Wl,--no-as-needed

# NumPy's matmul, a.T @ a and solve under the shim (skipped without NumPy).
TESTS += tests/ilp64.sh tests/numpy.sh tests/scipy.sh
EXTRA_DIST += tests/ilp64.sh tests/numpy.sh tests/numpy_client.py tests/scipy.sh tests/scipy_client.py

# The ILP64 entry points' forwarding check (assembly on x86-64) against its C
# definition, with dimensions a 32-bit read would get wrong.
check_PROGRAMS += tests/test_forward_ilp64
tests_test_forward_ilp64_SOURCES = tests/test_forward_ilp64.c tests/forward_gate.h tests/ilp64_types.h tests/tap.h \
	shim/entry_points.c
tests_test_forward_ilp64_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim
tests_test_forward_ilp64_LDADD = src/libtscore.la
TESTS += tests/test_forward_ilp64

# SciPy's LP64 names (scipy_dgemm_, scipy_cblas_dgemm, ...): the provider
# gives the LP64 OpenBLAS those names (tests/scipy_provider.c); the client
# opens it with dlopen(RTLD_LOCAL) after start, as SciPy does.
check_LTLIBRARIES += tests/libscipy_provider.la
tests_libscipy_provider_la_SOURCES = tests/scipy_provider.c tests/provider_jumps.h
tests_libscipy_provider_la_LIBADD = -ldl
tests_libscipy_provider_la_LDFLAGS = $(AM_LDFLAGS) -rpath $(abs_builddir)/tests -avoid-version
check_PROGRAMS += tests/scipy_lp64_client
tests_scipy_lp64_client_SOURCES = tests/scipy_lp64_client.c tests/level3_api.h
tests_scipy_lp64_client_LDADD = -ldl -lm
TESTS += tests/scipy_lp64.sh
EXTRA_DIST += tests/scipy_lp64.sh
