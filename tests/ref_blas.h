/* The reference GEMMs for the tests: OpenBLAS opened with dlopen inside the
 * test program, so the reference can never be the shim under test. */
#ifndef TS_REF_BLAS_H
#define TS_REF_BLAS_H

#include <stddef.h>

#include "common/call.h"

/* ?gemm_ in the gfortran ABI, with untyped scalars and matrices so one
 * pointer type serves all four precisions. */
typedef void gemm_f77(const char *transa, const char *transb, const int *m,
                      const int *n, const int *k, const void *alpha,
                      const void *a, const int *lda, const void *b,
                      const int *ldb, const void *beta, void *c,
                      const int *ldc, size_t transa_len, size_t transb_len);

/* The Fortran symbol of precision p: "sgemm_", "dgemm_" ... */
const char *gemm_symbol(ts_prec p);

/* Opens OpenBLAS (env OPENBLAS_LIB, else the configured OPENBLAS_LIBRARY)
 * and resolves sgemm_ .. zgemm_ in it, checking with dladdr that each lies
 * inside that object and not in libtsshim.  Returns 0, or -1 with a reason
 * in err. */
int ref_blas_open(char *err, size_t errlen);

/* The path that was opened (valid after a successful ref_blas_open). */
const char *ref_blas_path(void);

/* The reference GEMM of precision p (NULL before ref_blas_open). */
gemm_f77 *ref_gemm(ts_prec p);

/* Any other routine of the opened OpenBLAS, checked like the GEMMs; NULL
 * with a reason in err when it is missing or not inside that object. */
void *ref_blas_symbol(const char *name, char *err, size_t errlen);

/* Whether the routine called name, as the process resolves it (dlsym
 * RTLD_DEFAULT), lies in the object at path want (compared by real path);
 * a line of diagnostics when not. */
int ref_resolves_into(const char *name, const char *want);

#endif
