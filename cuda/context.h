/* Per-thread, per-device CUDA state of the backend: a stream and a memory
 * pool, made on first use; a cuBLAS handle and the small calls' buffers,
 * made when a call first needs them. */
#ifndef TS_GPU_CONTEXT_H
#define TS_GPU_CONTEXT_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "common/call.h" /* TS_MAX_DEVICES */

/* Room after the last byte of a device copy the shim makes of a host
 * operand (the operand cache, a split call's shared A): a 16-byte cp.async
 * copy of a partial vector (zero-filled past its valid bytes) spans up to
 * 15 bytes past an operand's last element, which compute-sanitizer counts
 * as a read out of bounds of an allocation ending there (memcheck of
 * split_gemm, a cached B of 5 rows in a leading dimension of 8).  256
 * keeps the next allocation on cudaMalloc's alignment. */
#define TS_DEVICE_COPY_SLACK 256

typedef struct {
    int device;
    int sm;                 /* compute capability, e.g. 90 */
    cudaStream_t stream;
    cublasHandle_t cublas;  /* through ts_gpu_cublas only */
    cudaMemPool_t pool;     /* the backend's own pool: never the program's */
    void *small_dev;        /* small calls' operands (cuda/small_call.c), made on first use */
    void *small_host;       /* and their pinned staging, the same size */
} ts_gpu_context;

/* The calling thread's context for `device` (made current by the caller),
 * or NULL with *err set. */
ts_gpu_context *ts_gpu_context_get(int device, cudaError_t *err);

/* The context's cuBLAS handle, made on first use (NULL if it cannot be):
 * making one loads cuBLAS's modules, a large part of the GPU's start that
 * programs whose calls all run on the tuned or small kernels never need. */
cublasHandle_t ts_gpu_cublas(ts_gpu_context *c);

/* A backend op's device: `device` made current, the caller's put back by
 * ts_device_leave (which also clears a non-sticky error, so that the
 * program's next CUDA call does not see ours). */
typedef struct {
    int prev, device;
    cudaError_t err;
} ts_device_scope;

ts_device_scope ts_device_enter(int device);
void ts_device_leave(ts_device_scope s);

#endif
