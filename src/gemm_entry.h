/* The pipeline every intercepted call goes through:
 * validate -> classify -> residency -> policy -> GPU or CPU BLAS. */
#ifndef TS_GEMM_ENTRY_H
#define TS_GEMM_ENTRY_H

#include "ts_call.h"

/* Fills a descriptor from the Fortran arguments (all by reference). */
void ts_call_from_fortran(ts_call *c, ts_prec prec, const char *transa, const char *transb, const int *m,
                          const int *n, const int *k, const void *alpha, const void *a, const int *lda,
                          const void *b, const int *ldb, const void *beta, void *cmat, const int *ldc,
                          size_t transa_len, size_t transb_len);

void ts_gemm(ts_call *c);

/* Whether a call goes straight to the CPU BLAS, decided from the raw
 * arguments before any descriptor is filled: nothing is logged or counted
 * (verbosity 0), the CUDA driver is not in the process (no operand can be
 * device memory), m, n, k > 0 and alpha != 0 (alpha = 0, k = 0 and quick
 * returns keep the full path, which does them without the CPU BLAS), and
 * the policy keeps such a call on the CPU (ts_policy_cpu_reason).  Invalid
 * arguments go to the CPU BLAS either way. */
int ts_gemm_forward_early(ts_prec prec, const int *m, const int *n, const int *k, const void *alpha);

#endif
