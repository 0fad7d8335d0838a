/* A GEMM problem prepared once (random inputs in [-1, 1), OpenBLAS's result)
 * and then run any number of times, from any thread, through the routine
 * under test: the robustness tests (threads, fork, exit paths, faults) all
 * ask the same question, "is this C still what OpenBLAS computes?". */
#ifndef TS_CHECKED_GEMM_H
#define TS_CHECKED_GEMM_H

#include <stddef.h>

#include "ref_blas.h"
#include "common/call.h"

typedef struct {
    const char *name;           /* for diagnostics, e.g. "tsm2" */
    ts_prec prec;
    char transa, transb;
    int m, n, k;
    int lda, ldb, ldc;
    double alpha[2], beta[2];   /* scalars in the call's precision (real, imaginary) */
    void *a, *b, *c0;           /* the inputs: read-only once prepared */
    void *want;                 /* OpenBLAS's C */
    size_t bytes_a, bytes_b, bytes_c;
} checked_gemm;

/* Allocates and fills the operands (leading dimensions padded by pad rows)
 * and computes the reference.  Uses the shared generator of gemm_cases.h, so
 * call it from one thread at a time; needs ref_blas_open first. */
void cg_prepare(checked_gemm *g, const char *name, ts_prec prec, char transa, char transb, int m, int n, int k,
                int pad);
void cg_free(checked_gemm *g);

/* The precision's ?gemm_ as the program sees it: the shim when preloaded. */
gemm_f77 *cg_tested(ts_prec p);

/* Calls fn on the given operands (host or device pointers, laid out like the
 * prepared ones); thread-safe. */
void cg_call(const checked_gemm *g, gemm_f77 *fn, const void *a, const void *b, void *c);

/* Worst |got - want| over C relative to the error bound of the data's
 * range, (k + 2) eps (|alpha| k s + |beta| sqrt(s)) with s reals per
 * element; infinite where got is not finite.  Thread-safe. */
double cg_ratio(const checked_gemm *g, const void *got);
int cg_ratio_ok(const checked_gemm *g, double ratio);

/* Runs fn on private host copies and returns cg_ratio of the result. */
double cg_run_host(const checked_gemm *g, gemm_f77 *fn);

#endif
