/* SYRK, HERK, TRSM, and SYMM, HEMM, TRMM, SYR2K, HER2K, the routine list's
 * rows after the GEMMs: the core's entries for the adapters in
 * shim/level3_adapters.h (their arguments as received are
 * src/common/level3_args.h's).
 *
 * Each call becomes one ts_call in GEMM terms, so that classification, the
 * cost model and the trace serve it unchanged: SYRK and HERK are their Gram
 * GEMM op(A) op(A)^T (or ^H) with B = A and m = n, plus the triangle
 * (uplo); TRSM is B = alpha op(A)^-1 B (side L) or B op(A)^-1 (side R) with
 * m x n B as both B and C, k the triangle's order and beta = 0, and so is
 * TRMM (B = alpha op(A) B or alpha B op(A); its entries are TRSM's);
 * SYR2K and HER2K are SYRK's descriptor with their B; SYMM and HEMM have A
 * the k x k symmetric matrix (k = m for side L, n for side R), B and C
 * m x n, plus side and uplo. */
#ifndef TS_LEVEL3_ENTRY_H
#define TS_LEVEL3_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "common/call.h"
#include "common/level3_args.h"

/* The core's entries (SYR2K and HER2K take SYRK's, TRMM TRSM's): forwarded at once when the gate passes the call,
 * else described and run by ts_dispatch (src/dispatch/dispatch.h). */
void ts_syrk_fortran(ts_routine r, const ts_syrk_f77_args *args);
void ts_trsm_fortran(ts_routine r, const ts_trsm_f77_args *args);
void ts_syrk_cblas(ts_routine r, const ts_syrk_cblas_args *args);
void ts_trsm_cblas(ts_routine r, const ts_trsm_cblas_args *args);
void ts_symm_fortran(ts_routine r, const ts_symm_f77_args *args);
void ts_symm_cblas(ts_routine r, const ts_symm_cblas_args *args);


#endif
