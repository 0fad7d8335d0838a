/* GEMMs of KB-sized operands in one kernel (cuda/small_call.c).  cuBLAS's
 * host-side cost per call is most of such a call's time, and the kernel can
 * write C straight into pinned host memory, which saves the copy back. */
#ifndef TSK_SMALL_GEMM_H
#define TSK_SMALL_GEMM_H

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "tsk_gemm.h"
#include "common/call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the kernel serves the call: it reads A and B (alpha != 0, k > 0)
 * and k is short enough for one block's loop over it. */
int tsk_small_gemm_fits(const ts_call *call);

/* Launches C = alpha op(A) op(B) + beta C on `stream`: A, B and C's old
 * values (c_old, ld_old; never read when beta = 0) are device memory; the
 * result goes to ops->c, which may be pinned host memory (every pointer
 * allocated by cudaHostAlloc is device-addressable under unified
 * addressing). */
cudaError_t tsk_small_gemm(const ts_call *call, const tsk_operands *ops, const void *c_old, int64_t ld_old,
                           cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
