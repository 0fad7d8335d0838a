/* libtsshim-cuda.so: the CUDA backend the core loads on the first call it
 * sends to the GPU.  Exports one symbol, the ops table. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "plugin.h"
#include "cache_memory.h"
#include "common/mpi_launcher.h"
#include "context.h"
#include "gemm.h"
#include "level3_cublas.h"
#include "replica.h"
#include "residency.h"
#include "staging.h"

/* Makes what every call needs: the primary context and this thread's
 * stream.  The cuBLAS handle, the pinned staging ring and the small calls'
 * buffers are made by the first call that uses them (or by prepare, in a
 * background start), so that a program whose calls are all small pays for
 * neither cuBLAS's modules nor the ring's pinned memory.  A failure here is
 * left to the calls, which fall back to the CPU on their own errors. */
static void warm(void)
{
    ts_device_scope s = ts_device_enter(ts_gpu_home);
    cudaError_t err = s.err;
    if (!err)
        ts_gpu_context_get(ts_gpu_home, &err);
    ts_device_leave(s);
}

static int visible;

static const ts_core_ops *core;

static void bind(const ts_core_ops *ops) { core = ops; }

const ts_core_ops *ts_core(void) { return core; }

/* The background start's second part (ts_gpu_ops.prepare): what a first
 * large call otherwise made on its own time, which made it far slower than
 * the next (docs/performance.md).  The handle made here is this thread's;
 * cuBLAS's one-time work stays done for the calls' handles. */
static void prepare(const ts_config *cfg)
{
    ts_device_scope s = ts_device_enter(ts_gpu_home);
    cudaError_t err = s.err;
    const int64_t ring = ts_staging_bytes(ts_gpu_home, cfg->staging_mb << 20, 0);
    ts_staging *st = err ? NULL : ts_staging_acquire(ts_gpu_home, ring, 0, 1, &err);
    if (st)
        ts_staging_release(st, 0);
    ts_gpu_context *c = err ? NULL : ts_gpu_context_get(ts_gpu_home, &err);
    if (c) {
        ts_gpu_cublas(c);
        /* The pool keeps what it is given back (context.c): device buffers
         * for what one round of the ring moves each way are then mapped
         * before the first call asks for them.  Ranks sharing the device
         * each keep their share, like the cache's budget. */
        size_t bytes = ((size_t)cfg->staging_mb << 21) / (size_t)ts_launcher_sharers(cfg->device, visible);
        void *grow = NULL;
        if (!cudaMallocFromPoolAsync(&grow, bytes, c->pool, c->stream))
            cudaFreeAsync(grow, c->stream);
        cudaStreamSynchronize(c->stream);
    }
    ts_device_leave(s);
}

static int device_count(void) { return visible; }

static int init(const ts_config *cfg, char *why, size_t why_len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err) {
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
        return -1;
    }
    if (cfg->device >= count) {
        snprintf(why, why_len, "TSSHIM_DEVICE=%lld but %d device(s)", (long long)cfg->device, count);
        return -1;
    }
    visible = count;
    ts_gpu_home = ts_home_device(cfg->device, count);
    warm();
    return 0;
}

__attribute__((visibility("default"))) const ts_gpu_ops tsshim_gpu_ops = {
    .abi = TS_GPU_ABI,
    .bind = bind,
    .init = init,
    .prepare = prepare,
    .residency = ts_gpu_residency_probe,
    .gemm = ts_gpu_gemm,
    .cache_budget = ts_cache_budget,
    .cache_alloc = ts_cache_alloc,
    .cache_free = ts_cache_free,
    .cache_upload = ts_cache_upload,
    .level3 = ts_gpu_level3,
    .device_count = device_count,
    .home_free = ts_home_free,
    .replica_alloc = ts_replica_alloc,
    .replica_free = ts_replica_free,
    .replica_upload = ts_replica_upload,
    .replica_pull = ts_replica_pull,
    .peer_on = ts_peer_on,
    .peer_off = ts_peer_off,
};
