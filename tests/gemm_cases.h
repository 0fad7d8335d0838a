/* One differential GEMM case, written once for the four precisions: the
 * element type is handled through ts_prec and a complex element is a pair of
 * reals.  A case runs the GEMM under test and the reference on copies of the
 * same inputs and judges the result. */
#ifndef TS_GEMM_CASES_H
#define TS_GEMM_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "ref_blas.h"
#include "common/call.h"

enum { GC_A = 0, GC_B = 1, GC_C = 2, GC_NOPER = 3 };

typedef struct {
    ts_prec prec;
    char transa, transb;
    int m, n, k;
    double alpha[2], beta[2];   /* real, imaginary (imaginary unused for S, D) */
    int pad[GC_NOPER];          /* rows added to each leading dimension */
    int off[GC_NOPER];          /* view: rows and columns of the bigger array
                                   before the operand, and columns after it */
    int nan_ab;                 /* A and B all NaN: they must not be read */
    int nan_c;                  /* C's view NaN: beta = 0 must not read it */
} gemm_case;

typedef struct {
    int ok;
    double ratio;               /* worst elementwise residual ratio */
    char why[256];              /* first broken rule; empty when ok */
} gemm_verdict;

/* Elements of each precision: reals per element, machine epsilon. */
int gc_reals(ts_prec p);
double gc_eps(ts_prec p);

/* Real number i of buf, where element e holds reals gc_reals(p)*e ... */
double gc_get(ts_prec p, const void *buf, size_t i);
void gc_set(ts_prec p, void *buf, size_t i, double v);

/* Modulus of element e. */
double gc_abs(ts_prec p, const void *buf, size_t e);

/* Fills elements [first, first + count) with uniform values in [-1, 1)
 * from the fixed-seed generator, or with NaN. */
void gc_seed(uint64_t seed);
void gc_fill_random(ts_prec p, void *buf, size_t first, size_t count);
void gc_fill_nan(ts_prec p, void *buf, size_t first, size_t count);

/* Largest allowed residual ratio |C - Cref| / ((k + 2) eps bound) where
 * bound = |alpha| |op(A)| |op(B)| + |beta| |C0| elementwise: each of the two
 * results is within (k + 2) eps / 2 * bound of the exact one; complex
 * products add a factor of about sqrt(2). */
double gc_ratio_limit(ts_prec p);

/* Runs the case through tested and through the reference and checks: A and B
 * unchanged, C outside the operand's view unchanged (bitwise), the BLAS rules
 * for alpha = 0 or k = 0 (C = beta C exactly), no NaN when beta = 0, and the
 * residual bound against the reference. */
void gc_run(const gemm_case *c, gemm_f77 *tested, gemm_verdict *v);

/* One-line description of the case for diagnostics. */
void gc_describe(const gemm_case *c, char *buf, size_t len);

#endif
