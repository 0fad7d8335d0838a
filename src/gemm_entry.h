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

#endif
