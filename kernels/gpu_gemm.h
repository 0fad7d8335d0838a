/* Runs one GEMM on the GPU and returns when C is complete (BLAS is
 * synchronous).  Operands that all live on the device (device or managed
 * memory) are used in place with one kernel; a call with host operands goes
 * through the slicing pipeline (gpu_pipeline.c). */
#ifndef TS_GPU_GEMM_H
#define TS_GPU_GEMM_H

#include <stddef.h>

#include "configuration.h"
#include "gpu_context.h"
#include "tsk_gemm.h"
#include "ts_call.h"

int ts_gpu_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len);

/* Launches C = alpha op(A) op(B) + beta C of the call on device operands on
 * ctx's stream: the tuned kernel when the registry has a faster one, else
 * cuBLAS, or only the scaling when alpha = 0 or k = 0.  *path names what ran. */
cudaError_t ts_gpu_compute(const ts_call *c, const tsk_operands *ops, ts_gpu_context *ctx, const ts_config *cfg,
                           const char **path);

/* TSSHIM_FAULT test hook: an error when the fault-injection build was asked
 * to fail at `stage` (alloc, copy, kernel, copy_back, late_kernel). */
cudaError_t ts_gpu_fault(const ts_config *cfg, const char *stage);

#endif
