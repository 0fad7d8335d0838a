/* One GEMM on device operands, on a context's stream: the step the in-place
 * path and each pipeline slice share. */
#ifndef TS_CUDA_COMPUTE_H
#define TS_CUDA_COMPUTE_H

#include "common/settings.h"
#include "context.h"
#include "tsk_gemm.h"
#include "common/call.h"

/* Launches C = alpha op(A) op(B) + beta C of the call on device operands on
 * ctx's stream: the tuned kernel when the registry has a faster one, else
 * cuBLAS, or only the scaling when alpha = 0 or k = 0.  *path names what ran. */
cudaError_t ts_gpu_compute(const ts_call *c, const tsk_operands *ops, ts_gpu_context *ctx, const ts_config *cfg,
                           const char **path);

/* TSSHIM_FAULT test hook: an error when the fault-injection build was asked
 * to fail at `stage` (alloc, copy, kernel, copy_back, late_kernel). */
cudaError_t ts_gpu_fault(const ts_config *cfg, const char *stage);

/* TSSHIM_GPU_MEM_LIMIT: 1 with why filled when a call needing `bytes` of
 * device memory may not run. */
int ts_gpu_mem_refused(const ts_config *cfg, int64_t bytes, char *why, size_t why_len);

#endif
