# SYRK, HERK, TRSM (and SYMM, HEMM, TRMM, SYR2K, HER2K) under the shim: the differential test against the
# reference in C and the CPU BLAS (cpu mode and, with a GPU, gpu mode), and
# bad arguments reported by the CPU BLAS's own xerbla.  Included from
# tests/local.mk.
check_PROGRAMS += tests/level3_client
tests_level3_client_SOURCES = tests/level3_client.c
tests_level3_client_LDADD = $(BLAS_LIBS)
TESTS += tests/level3_xerbla.sh
EXTRA_DIST += tests/level3_xerbla.sh tests/level3_differential.sh

tests_level3_differential_SOURCES = tests/level3_differential.c tests/level3_api.h tests/ref_level3.c \
	tests/ref_level3.h tests/ref_blas.c tests/ref_blas.h tests/tap.h
# Linked with the BLAS like a legacy program: the script preloads the shim.
tests_level3_differential_LDADD = $(BLAS_LIBS) -ldl -lm
if HAVE_OPENBLAS
check_PROGRAMS += tests/level3_differential
TESTS += tests/level3_differential.sh
endif

# SYMM, HEMM, TRMM, SYR2K, HER2K against OpenBLAS called directly; the
# routines are found by name (the shim's, or the linked BLAS's).
tests_level3_products_SOURCES = tests/level3_products.c tests/ref_level3.c tests/ref_level3.h tests/ref_blas.c \
	tests/ref_blas.h tests/tap.h
tests_level3_products_LDADD = $(BLAS_LIBS) -ldl -lm
tests_level3_products_LDFLAGS = $(AM_LDFLAGS) -Wl,--no-as-needed
EXTRA_DIST += tests/level3_products.sh
if HAVE_OPENBLAS
check_PROGRAMS += tests/level3_products
TESTS += tests/level3_products.sh
endif

# Device, managed and pinned operands (skipped without a device).
EXTRA_DIST += tests/level3_device.sh
if HAVE_CUDA
check_PROGRAMS += tests/level3_device
tests_level3_device_SOURCES = tests/level3_device.c tests/level3_api.h tests/ref_level3.c tests/ref_level3.h \
	tests/gpu_present.c tests/gpu_present.h tests/tap.h
tests_level3_device_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
tests_level3_device_LDFLAGS = $(AM_LDFLAGS) $(CUDA_LDFLAGS)
tests_level3_device_LDADD = $(BLAS_LIBS) -lcudart -lm
TESTS += tests/level3_device.sh
endif

# The entry points' forwarding check (assembly on x86-64) against its C definition.
check_PROGRAMS += tests/test_forward_level3
tests_test_forward_level3_SOURCES = tests/test_forward_level3.c tests/forward_gate.h tests/level3_api.h tests/tap.h \
	shim/entry_points.c
tests_test_forward_level3_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/shim
tests_test_forward_level3_LDADD = src/libtscore.la
TESTS += tests/test_forward_level3
