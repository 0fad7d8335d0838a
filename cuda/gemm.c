#include "gemm.h"

#include <stdio.h>

#include "common/clock.h"
#include "compute.h"
#include "common/gpu_plugin.h"
#include "pipeline.h"
#include "small_call.h"

int ts_gpu_home;

/* Nothing to copy: every operand the call reads or writes is on the device. */
static int all_on_device(const ts_call *c)
{
    return ts_residency_gpu_reads(c->res_c) &&
           (!ts_call_reads_ab(c) || (ts_residency_gpu_reads(c->res_a) && ts_residency_gpu_reads(c->res_b)));
}

/* One kernel on the caller's pointers.  Managed memory is not prefetched:
 * nothing measured that a prefetch hint pays on this path yet. */
static cudaError_t in_place(const ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path)
{
    tsk_operands ops = { c->a, c->lda, c->b, c->ldb, c->c, c->ldc };
    cudaError_t err = ts_gpu_compute(c, &ops, ctx, cfg, path);
    cudaError_t sync = cudaStreamSynchronize(ctx->stream);
    return err ? err : sync;
}

/* The call as the device runs it: host A and B with a device copy equal to
 * them (the operand cache, src/cache/operand_cache.h) are read there. */
static ts_call device_view(const ts_call *c)
{
    ts_call d = *c;
    if (c->cache_dev[TS_OP_A])
        d.a = c->cache_dev[TS_OP_A], d.res_a = TS_MEM_DEVICE;
    if (c->cache_dev[TS_OP_B])
        d.b = c->cache_dev[TS_OP_B], d.res_b = TS_MEM_DEVICE;
    return d;
}

int ts_gpu_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = ts_now();
    int dev = c->device >= 0 ? c->device : ts_gpu_home;
    const char *path = "cublas";
    int rc = 0;

    why[0] = 0;
    ts_call d = device_view(c);
    ts_device_scope scope = ts_device_enter(dev);
    cudaError_t err = scope.err;
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(dev, &err);
    if (ctx && all_on_device(&d)) {
        /* In place, the kernel writes C at once: the tracker's word first. */
        if (ts_call_prove(&d))
            rc = TS_GPU_STALE;
        else
            err = in_place(&d, ctx, cfg, &path);
    } else if (ctx && (rc = ts_small_gemm(&d, ctx, cfg, &path, why, why_len)) != TS_SMALL_DECLINED)
        d.gpu_phases = ts_small_phases();
    else if (ctx) {
        rc = ts_pipeline_gemm(&d, ctx, cfg, &path, why, why_len);
        d.gpu_phases = ts_pipeline_phases();
    }
    c->bytes_h2d = d.bytes_h2d;
    c->bytes_d2h = d.bytes_d2h;
    c->gpu_phases = d.gpu_phases;
    c->prove_seconds = d.prove_seconds;
    c->gpu_ring_cold = d.gpu_ring_cold;
    /* Also clears a non-sticky error, so that the next call starts clean. */
    ts_device_leave(scope);
    c->gpu_path = path;
    c->gpu_seconds = ts_now() - t0;
    if (err) {
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
        rc = -1;
    }
    return rc;
}
