/* Entry point of the tuned tall-and-skinny kernels (TSM2, ISM2/TSMM, TSMTTSM)
 * on device-resident operands.  C-callable; implemented in CUDA in kernels/. */
#ifndef TSK_GEMM_H
#define TSK_GEMM_H

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "common/call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device copies of the operands: pointers are device (or managed) memory,
 * leading dimensions in elements.  Shapes, transposes and scalars come from
 * the ts_call (alpha and beta point to host memory). */
typedef struct {
    const void *a;
    int64_t lda;
    const void *b;
    int64_t ldb;
    void *c;
    int64_t ldc;
} tsk_operands;

typedef enum {
    TSK_RAN = 0,      /* the tuned kernel was launched on the stream */
    TSK_DECLINED = 1, /* no tuned instance beats cuBLAS here: use cuBLAS */
    TSK_ERROR = -1    /* a CUDA error: the caller falls back */
} tsk_status;

/* Launches C = alpha op(A) op(B) + beta C asynchronously on `stream` when the
 * kernel registry holds an instance for (class, precision, transposes, width)
 * that the tuning table for `sm` (e.g. 90) marks faster than cuBLAS.  Honours
 * BLAS semantics: beta = 0 never reads C, alpha = 0 never reads A or B. */
tsk_status tsk_gemm(const ts_call *call, const tsk_operands *ops, cudaStream_t stream, int sm);

#ifdef __cplusplus
}
#endif

#endif
