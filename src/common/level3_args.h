/* The arguments of the level-3 routines other than GEMM (SYRK, HERK, TRSM,
 * SYMM, HEMM, TRMM, SYR2K, HER2K) exactly as received, so that forwarding
 * passes them untouched (src/cpu/forward_level3.c), and the CPU BLAS's
 * function types for them.  The descriptor points to them
 * (ts_call.received). */
#ifndef TS_LEVEL3_ARGS_H
#define TS_LEVEL3_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "common/call.h"

/* gfortran ABI: everything by reference, the hidden lengths of the
 * character arguments last.  HERK has SYRK's arguments (real scalars).  An
 * F77_64 routine's integer pointers point to 64-bit integers (ts_f77_dim
 * reads them).  SYR2K and HER2K (HER2K's beta real) share the struct: SYRK's
 * arguments with B, which a SYRK or HERK call fills with A (b = a, ldb =
 * lda) and its forwarding leaves out. */
typedef struct {
    const char *uplo, *trans;
    const int *n, *k;
    const void *alpha, *a;
    const int *lda;
    const void *b;
    const int *ldb;
    const void *beta;
    void *c;
    const int *ldc;
    size_t uplo_len, trans_len;
} ts_syrk_f77_args;

typedef struct {
    const char *side, *uplo, *transa, *diag;
    const int *m, *n;
    const void *alpha, *a;
    const int *lda;
    void *b;
    const int *ldb;
    size_t side_len, uplo_len, transa_len, diag_len;
} ts_trsm_f77_args;

/* xSYMM and xHEMM: C = alpha A B + beta C (side L) or alpha B A + beta C
 * (side R), A the symmetric (Hermitian) one. */
typedef struct {
    const char *side, *uplo;
    const int *m, *n;
    const void *alpha, *a;
    const int *lda;
    const void *b;
    const int *ldb;
    const void *beta;
    void *c;
    const int *ldc;
    size_t side_len, uplo_len;
} ts_symm_f77_args;

/* xTRMM takes TRSM's arguments (ts_trsm_f77_args, ts_trsm_cblas_args);
 * xSYR2K and xHER2K SYRK's (ts_syrk_f77_args, ts_syrk_cblas_args). */

/* CBLAS: enums as ints, scalars through pointers to the caller's values
 * (real ones arrived by value and are forwarded by value); the integers
 * wide enough for CBLAS_64. */
typedef struct {
    int layout, uplo, trans;
    int64_t n, k;
    const void *alpha, *a;
    int64_t lda;
    const void *b; /* SYR2K, HER2K; SYRK and HERK: A */
    int64_t ldb;
    const void *beta;
    void *c;
    int64_t ldc;
} ts_syrk_cblas_args;

typedef struct {
    int layout, side, uplo, transa, diag;
    int64_t m, n;
    const void *alpha, *a;
    int64_t lda;
    void *b;
    int64_t ldb;
} ts_trsm_cblas_args;

typedef struct {
    int layout, side, uplo;
    int64_t m, n;
    const void *alpha, *a;
    int64_t lda;
    const void *b;
    int64_t ldb;
    const void *beta;
    void *c;
    int64_t ldc;
} ts_symm_cblas_args;

typedef void (*ts_syrk_fn)(const char *, const char *, const int *, const int *, const void *, const void *,
                           const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*ts_trsm_fn)(const char *, const char *, const char *, const char *, const int *, const int *,
                           const void *, const void *, const int *, void *, const int *, size_t, size_t, size_t,
                           size_t);
typedef void (*ts_symm_fn)(const char *, const char *, const int *, const int *, const void *, const void *,
                           const int *, const void *, const int *, const void *, void *, const int *, size_t,
                           size_t);
/* SYR2K's has SYMM's types: two characters, two integers, then the same. */
typedef ts_symm_fn ts_syr2k_fn;
/* The CBLAS ones: src/common/cblas.h (TS_CBLAS_SYRK_PARAMS, ...). */

/* A Fortran integer argument of routine r: 64-bit for the F77_64 rows. */
static inline int64_t ts_f77_dim(ts_routine r, const int *p)
{
    return ts_routine_ilp64(r) ? *(const int64_t *)(const void *)p : *p;
}

#endif
