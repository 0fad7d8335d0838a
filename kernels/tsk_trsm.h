/* TRSM with a small triangle on device operands: B = alpha op(A)^-1 B
 * (side L) or alpha B op(A)^-1 (side R), every uplo, trans and diag.
 * C-callable; implemented in kernels/trsm_small.cu. */
#ifndef TSK_TRSM_H
#define TSK_TRSM_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "tsk_gemm.h"
#include "common/call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest triangle the kernel takes (its order is call->k). */
#define TSK_TRSM_MAX_ORDER 64

/* Launches the solve of a validated TRSM call (src/entry/level3_entry.h: B is
 * call->m x call->n, the triangle's order call->k) on device memory a (lda)
 * and b (ldb), asynchronously on `stream`.  Needs alpha != 0 (alpha = 0 is
 * B = 0, which reads nothing).  TSK_DECLINED for a triangle larger than
 * TSK_TRSM_MAX_ORDER. */
tsk_status tsk_trsm(const ts_call *call, const void *a, int64_t lda, void *b, int64_t ldb, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
