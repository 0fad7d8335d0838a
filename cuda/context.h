/* Per-thread, per-device CUDA state of the backend: a stream, a cuBLAS
 * handle and a memory pool, created on first use. */
#ifndef TS_GPU_CONTEXT_H
#define TS_GPU_CONTEXT_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "ts_call.h" /* TS_MAX_DEVICES */

typedef struct {
    int device;
    int sm;                 /* compute capability, e.g. 90 */
    cudaStream_t stream;
    cublasHandle_t cublas;
    cudaMemPool_t pool;     /* the backend's own pool: never the program's */
    void *small_dev;        /* small calls' operands (cuda/small_call.c), made on first use */
} ts_gpu_context;

/* The calling thread's context for `device` (made current by the caller),
 * or NULL with *err set. */
ts_gpu_context *ts_gpu_context_get(int device, cudaError_t *err);

#endif
