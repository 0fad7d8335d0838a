#include "gemm.h"

#include <stdio.h>
#include <time.h>

#include "compute.h"
#include "pipeline.h"
#include "small_call.h"

int ts_gpu_home;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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

int ts_gpu_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = now();
    int prev = -1;
    int dev = c->device >= 0 ? c->device : ts_gpu_home;
    const char *path = "cublas";
    int rc = 0;

    why[0] = 0;
    cudaError_t err = cudaGetDevice(&prev);
    if (!err && prev != dev)
        err = cudaSetDevice(dev);
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(dev, &err);
    if (ctx && all_on_device(c))
        err = in_place(c, ctx, cfg, &path);
    else if (ctx && (rc = ts_small_gemm(c, ctx, cfg, &path, why, why_len)) != TS_SMALL_DECLINED)
        c->gpu_phases = ts_small_phases();
    else if (ctx) {
        rc = ts_pipeline_gemm(c, ctx, cfg, &path, why, why_len);
        c->gpu_phases = ts_pipeline_phases();
    }
    if (prev >= 0 && prev != dev)
        cudaSetDevice(prev);
    c->gpu_path = path;
    c->gpu_seconds = now() - t0;
    if (err) {
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
        rc = -1;
    }
    if (rc)
        cudaGetLastError(); /* clear a non-sticky error so the next call starts clean */
    return rc;
}
