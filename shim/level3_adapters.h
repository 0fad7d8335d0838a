/* The entry points of the SYRK, HERK and TRSM rows of the routine list
 * (included by shim/entry_points.c, which expands the list).  Plain C: each
 * checks the forwarding gate (ts_gate_lane_cpu) and tail-calls the CPU BLAS
 * with its own arguments, or hands them to the core (src/level3_entry.h).
 * bench/bench_forward_level3 measures what this costs on the smallest calls. */
#ifndef TS_LEVEL3_ADAPTERS_H
#define TS_LEVEL3_ADAPTERS_H

#include "level3_entry.h"

/* The scalar parameters of each precision of scalars (ts_routine_scalar_prec):
 * CBLAS passes real ones by value, complex ones by pointer. */
#define TS_L3_SCALAR_TS_S float
#define TS_L3_SCALAR_TS_D double
#define TS_L3_SCALAR_TS_C const void *
#define TS_L3_SCALAR_TS_Z const void *
#define TS_L3_AT_TS_S(x) (&(x))
#define TS_L3_AT_TS_D(x) (&(x))
#define TS_L3_AT_TS_C(x) (x)
#define TS_L3_AT_TS_Z(x) (x)
#define TS_L3_KIND_TS_S s
#define TS_L3_KIND_TS_D d
#define TS_L3_KIND_TS_C z
#define TS_L3_KIND_TS_Z z
#define TS_L3_CAT(a, b, c) a##b##c
#define TS_L3_FN(op, kind) TS_L3_CAT(ts_cblas_##op##_, kind, _fn)
#define TS_L3_CBLAS_FN(op, sprec) TS_L3_FN(op, TS_L3_KIND_##sprec)

/* HERK's scalars are real. */
#define TS_L3_HERK_SPREC_TS_C TS_S
#define TS_L3_HERK_SPREC_TS_Z TS_D

#define TS_SYRK_F77_PARAMS                                                                                   \
    const char *uplo, const char *trans, const int *n, const int *k, const void *alpha, const void *a,       \
        const int *lda, const void *beta, void *c, const int *ldc, size_t uplo_len, size_t trans_len
#define TS_SYRK_F77_PASS uplo, trans, n, k, alpha, a, lda, beta, c, ldc, uplo_len, trans_len

#define TS_TRSM_F77_PARAMS                                                                                   \
    const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,    \
        const void *alpha, const void *a, const int *lda, void *b, const int *ldb, size_t side_len,          \
        size_t uplo_len, size_t transa_len, size_t diag_len
#define TS_TRSM_F77_PASS side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, side_len, uplo_len, transa_len, diag_len

#define TS_SYRK_CBLAS_PARAMS(sprec)                                                                          \
    int layout, int uplo, int trans, int n, int k, TS_L3_SCALAR_##sprec alpha, const void *a, int lda,       \
        TS_L3_SCALAR_##sprec beta, void *c, int ldc
#define TS_SYRK_CBLAS_PASS layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc

#define TS_TRSM_CBLAS_PARAMS(sprec)                                                                          \
    int layout, int side, int uplo, int transa, int diag, int m, int n, TS_L3_SCALAR_##sprec alpha,          \
        const void *a, int lda, void *b, int ldb
#define TS_TRSM_CBLAS_PASS layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb

/* The full path, out of line so that the check keeps no frame: the
 * arguments collected for the core. */
#define TS_L3_FULL(name, params, core, type, ...)                                                           \
    __attribute__((noinline)) static void name##_full(params)                                               \
    {                                                                                                       \
        const type args = { __VA_ARGS__ };                                                                  \
        core(TS_R_##name, &args);                                                                           \
    }

/* The exported symbol: the gate's answer, then one tail call. */
#define TS_L3_SYMBOL(name, params, fn_type, dims, alpha, pass)                                              \
    __attribute__((visibility("default"))) void name(params);                                               \
    void name(params)                                                                                       \
    {                                                                                                       \
        ts_gemm_fn cpu = ts_gate_lane_cpu(TS_R_##name, dims, alpha);                                        \
        (cpu ? (fn_type)(void (*)(void))cpu : name##_full)(pass);                                            \
    }

/* The gate's m, n, k: TRSM's k is the triangle's order. */
#define TS_L3_DIMS(a, b, c) a, b, c
#define TS_TRSM_F77_DIMS TS_L3_DIMS(m, n, *side == 'L' || *side == 'l' ? m : n)
#define TS_TRSM_CBLAS_DIMS TS_L3_DIMS(&m, &n, side == 141 ? &m : &n) /* CblasLeft */

#define TS_ENTRY_SYRK_F77(name, prec)                                                                      \
    TS_L3_FULL(name, TS_SYRK_F77_PARAMS, ts_syrk_fortran, ts_syrk_f77_args, TS_SYRK_F77_PASS)                \
    TS_L3_SYMBOL(name, TS_SYRK_F77_PARAMS, ts_syrk_fn, TS_L3_DIMS(n, n, k), alpha, TS_SYRK_F77_PASS)
#define TS_ENTRY_HERK_F77(name, prec) TS_ENTRY_SYRK_F77(name, prec)

#define TS_ENTRY_TRSM_F77(name, prec)                                                                      \
    TS_L3_FULL(name, TS_TRSM_F77_PARAMS, ts_trsm_fortran, ts_trsm_f77_args, TS_TRSM_F77_PASS)                \
    TS_L3_SYMBOL(name, TS_TRSM_F77_PARAMS, ts_trsm_fn, TS_TRSM_F77_DIMS, alpha, TS_TRSM_F77_PASS)

/* CBLAS, by the precision of the scalars as passed (sprec). */
#define TS_L3_SYRK_CBLAS(name, sprec)                                                                      \
    TS_L3_FULL(name, TS_SYRK_CBLAS_PARAMS(sprec), ts_syrk_cblas, ts_syrk_cblas_args, layout, uplo, trans, n, k, \
               TS_L3_AT_##sprec(alpha), a, lda, TS_L3_AT_##sprec(beta), c, ldc)                            \
    TS_L3_SYMBOL(name, TS_SYRK_CBLAS_PARAMS(sprec), TS_L3_CBLAS_FN(syrk, sprec), TS_L3_DIMS(&n, &n, &k),      \
                 TS_L3_AT_##sprec(alpha), TS_SYRK_CBLAS_PASS)
#define TS_L3_TRSM_CBLAS(name, sprec)                                                                      \
    TS_L3_FULL(name, TS_TRSM_CBLAS_PARAMS(sprec), ts_trsm_cblas, ts_trsm_cblas_args, layout, side, uplo, transa, \
               diag, m, n, TS_L3_AT_##sprec(alpha), a, lda, b, ldb)                                        \
    TS_L3_SYMBOL(name, TS_TRSM_CBLAS_PARAMS(sprec), TS_L3_CBLAS_FN(trsm, sprec), TS_TRSM_CBLAS_DIMS,         \
                 TS_L3_AT_##sprec(alpha), TS_TRSM_CBLAS_PASS)

/* One more expansion step, so that HERK's scalar precision is a token first. */
#define TS_L3_EXPAND(macro, name, sprec) macro(name, sprec)
#define TS_ENTRY_SYRK_CBLAS(name, prec) TS_L3_SYRK_CBLAS(name, prec)
#define TS_ENTRY_HERK_CBLAS(name, prec) TS_L3_EXPAND(TS_L3_SYRK_CBLAS, name, TS_L3_HERK_SPREC_##prec)
#define TS_ENTRY_TRSM_CBLAS(name, prec) TS_L3_TRSM_CBLAS(name, prec)

#endif
