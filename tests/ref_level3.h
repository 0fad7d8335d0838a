/* Reference level-3 routines other than GEMM (SYRK, HERK, TRSM, SYMM, HEMM,
 * TRMM, SYR2K, HER2K) written in C, computing in long double: what the
 * level-3 tests compare the routines under test with.  Matrices are
 * column-major in the precision of the case; results come back in long
 * double with, per element, the bound that rounding in the tested
 * precision may reach. */
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

typedef enum { REF_SYRK, REF_HERK, REF_TRSM, REF_SYMM, REF_HEMM, REF_TRMM, REF_SYR2K, REF_HER2K } ref_op;

/* One call in column-major BLAS terms.  SYRK and HERK: C (n x n, ldc) =
 * alpha op(A) op(A)^T (^H) + beta C on the triangle uplo, A n x k (trans N)
 * or k x n; SYR2K and HER2K the same with alpha op(A) op(B)^T + alpha op(B)
 * op(A)^T (HER2K: ^H and conj(alpha) on the second term), B (ldb) shaped as
 * A.  TRSM: B (m x n, ldc) = alpha op(A)^-1 B (side L) or alpha B op(A)^-1
 * (side R); TRMM: B = alpha op(A) B or alpha B op(A).  SYMM and HEMM: C (m
 * x n, ldc) = alpha A B + beta C (side L) or alpha B A + beta C (side R), A
 * symmetric (Hermitian) from its triangle uplo, B m x n (ldb).  A is the k
 * x k triangle or symmetric matrix of the side's order for TRSM, TRMM, SYMM
 * and HEMM.  HERK's scalars, and HER2K's beta, are the real parts. */
typedef struct {
    ts_prec prec;
    ref_op op;
    char uplo, trans, side, diag;
    int m, n, k;
    int lda, ldb, ldc;
    double alpha[2], beta[2];
} ref_case;

/* The order of the triangle or symmetric matrix of a TRSM, TRMM, SYMM or
 * HEMM (m for side L, n for side R). */
int ref_trsm_order(const ref_case *rc);

/* The result the call must produce from A, B (SYMM, HEMM, SYR2K, HER2K;
 * NULL for the others) and the initial C (TRSM's and TRMM's B) c0: out
 * (ldc x n, column-major, the elements the call writes) and bound (the
 * same shape: how far a correct result in the case's precision may lie
 * from out).  Elements the call must not write are copied from c0 with
 * bound 0. */
void ref_level3(const ref_case *rc, const void *a, const void *b, const void *c0, ref_cx *out, long double *bound);

/* The stored rows and columns of A and of B (B: 0 x 0 where the routine has
 * none of its own). */
void ref_shape_a(const ref_case *rc, int *rows, int *cols);
void ref_shape_b(const ref_case *rc, int *rows, int *cols);

/* Unit roundoff of precision p. */
long double ref_eps(ts_prec p);

#endif
