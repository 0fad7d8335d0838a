/* Reference SYRK, HERK and TRSM written in C, computing in long double:
 * what tests/level3_differential compares the routines under test with.
 * Matrices are column-major in the precision of the case; results come
 * back in long double with, per element, the bound that rounding in the
 * tested precision may reach. */
#ifndef TS_REF_LEVEL3_H
#define TS_REF_LEVEL3_H

#include <stdint.h>

#include "common/call.h"

typedef struct {
    long double re, im;
} ref_cx;

/* Element i of a matrix of precision p (imaginary part 0 for S and D). */
ref_cx ref_get(ts_prec p, const void *x, int64_t i);
void ref_put(ts_prec p, void *x, int64_t i, ref_cx v);

typedef enum { REF_SYRK, REF_HERK, REF_TRSM } ref_op;

/* One call in column-major BLAS terms.  SYRK and HERK: C (n x n, ldc) =
 * alpha op(A) op(A)^T (^H) + beta C on the triangle uplo, A n x k (trans N)
 * or k x n.  TRSM: B (m x n, ldc) = alpha op(A)^-1 B (side L) or
 * alpha B op(A)^-1 (side R).  HERK's scalars are the real parts. */
typedef struct {
    ts_prec prec;
    ref_op op;
    char uplo, trans, side, diag;
    int m, n, k;
    int lda, ldc;
    double alpha[2], beta[2];
} ref_case;

/* The triangle's order of a TRSM (m for side L, n for side R). */
int ref_trsm_order(const ref_case *rc);

/* The result the call must produce from A and the initial C (or B) c0:
 * out (ldc x n, column-major, the elements the call writes) and bound
 * (the same shape: how far a correct result in the case's precision may
 * lie from out).  Elements the call must not write are copied from c0
 * with bound 0. */
void ref_level3(const ref_case *rc, const void *a, const void *c0, ref_cx *out, long double *bound);

/* Unit roundoff of precision p. */
long double ref_eps(ts_prec p);

#endif
