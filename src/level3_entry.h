/* SYRK, HERK and TRSM, the routine list's rows after the GEMMs: their
 * arguments as received (forwarding passes them untouched), the CPU BLAS's
 * function types, and the core's entries for the adapters in
 * shim/level3_adapters.h.
 *
 * Each call becomes one ts_call in GEMM terms, so that classification, the
 * cost model and the trace serve it unchanged: SYRK and HERK are their Gram
 * GEMM op(A) op(A)^T (or ^H) with B = A and m = n, plus the triangle
 * (uplo); TRSM is B = alpha op(A)^-1 B (side L) or B op(A)^-1 (side R) with
 * m x n B as both B and C, k the triangle's order and beta = 0. */
#ifndef TS_LEVEL3_ENTRY_H
#define TS_LEVEL3_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "ts_call.h"

/* gfortran ABI: everything by reference, the hidden lengths of the
 * character arguments last.  HERK has SYRK's arguments (real scalars).  An
 * F77_64 routine's integer pointers point to 64-bit integers (ts_f77_dim
 * reads them). */
typedef struct {
    const char *uplo, *trans;
    const int *n, *k;
    const void *alpha, *a;
    const int *lda;
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

/* CBLAS: enums as ints, scalars through pointers to the caller's values
 * (real ones arrived by value and are forwarded by value); the integers
 * wide enough for CBLAS_64. */
typedef struct {
    int layout, uplo, trans;
    int64_t n, k;
    const void *alpha, *a;
    int64_t lda;
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

typedef void (*ts_syrk_fn)(const char *, const char *, const int *, const int *, const void *, const void *,
                           const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*ts_trsm_fn)(const char *, const char *, const char *, const char *, const int *, const int *,
                           const void *, const void *, const int *, void *, const int *, size_t, size_t, size_t,
                           size_t);
/* CBLAS by the type of the scalars as passed: float, double, or a pointer
 * (complex); cblas_cherk and cblas_zherk take the float and double ones. */
typedef void (*ts_cblas_syrk_s_fn)(int, int, int, int, int, float, const void *, int, float, void *, int);
typedef void (*ts_cblas_syrk_d_fn)(int, int, int, int, int, double, const void *, int, double, void *, int);
typedef void (*ts_cblas_syrk_z_fn)(int, int, int, int, int, const void *, const void *, int, const void *, void *,
                                   int);
typedef void (*ts_cblas_trsm_s_fn)(int, int, int, int, int, int, int, float, const void *, int, void *, int);
typedef void (*ts_cblas_trsm_d_fn)(int, int, int, int, int, int, int, double, const void *, int, void *, int);
typedef void (*ts_cblas_trsm_z_fn)(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
/* The same with 64-bit integers (CBLAS_64). */
typedef void (*ts_cblas_syrk_s64_fn)(int, int, int, int64_t, int64_t, float, const void *, int64_t, float, void *,
                                     int64_t);
typedef void (*ts_cblas_syrk_d64_fn)(int, int, int, int64_t, int64_t, double, const void *, int64_t, double, void *,
                                     int64_t);
typedef void (*ts_cblas_syrk_z64_fn)(int, int, int, int64_t, int64_t, const void *, const void *, int64_t,
                                     const void *, void *, int64_t);
typedef void (*ts_cblas_trsm_s64_fn)(int, int, int, int, int, int64_t, int64_t, float, const void *, int64_t, void *,
                                     int64_t);
typedef void (*ts_cblas_trsm_d64_fn)(int, int, int, int, int, int64_t, int64_t, double, const void *, int64_t,
                                     void *, int64_t);
typedef void (*ts_cblas_trsm_z64_fn)(int, int, int, int, int, int64_t, int64_t, const void *, const void *, int64_t,
                                     void *, int64_t);

/* A Fortran integer argument of routine r: 64-bit for the F77_64 rows. */
static inline int64_t ts_f77_dim(ts_routine r, const int *p)
{
    return ts_routine_ilp64(r) ? *(const int64_t *)(const void *)p : *p;
}

/* The core's entries: forwarded at once when the gate passes the call,
 * else described and run by ts_gemm (src/gemm_entry.h). */
void ts_syrk_fortran(ts_routine r, const ts_syrk_f77_args *args);
void ts_trsm_fortran(ts_routine r, const ts_trsm_f77_args *args);
void ts_syrk_cblas(ts_routine r, const ts_syrk_cblas_args *args);
void ts_trsm_cblas(ts_routine r, const ts_trsm_cblas_args *args);

/* Calls the CPU BLAS routine of a SYRK, HERK or TRSM call with the
 * arguments as received. */
void ts_forward_level3(const ts_call *c);

#endif
