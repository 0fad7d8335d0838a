#include "gemm.h"

#include <stdio.h>
#include <time.h>

#include "compute.h"
#include "pipeline.h"
#include "small_call.h"
#include "staged_copy.h"

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

/* The call as the device runs it: host operands with a device copy equal
 * to them (the operand cache, src/operand_cache.h) are read there, and C is
 * computed there and then sent back whole. */
static ts_call device_view(const ts_call *c)
{
    ts_call d = *c;
    if (c->cache_dev[TS_OP_A])
        d.a = c->cache_dev[TS_OP_A], d.res_a = TS_MEM_DEVICE;
    if (c->cache_dev[TS_OP_B])
        d.b = c->cache_dev[TS_OP_B], d.res_b = TS_MEM_DEVICE;
    if (c->cache_dev[TS_OP_C])
        d.c = c->cache_dev[TS_OP_C], d.res_c = TS_MEM_DEVICE;
    return d;
}

/* Sends C back from its device copy.  When that fails part way, the columns
 * already written are final and the CPU computes the others from the
 * caller's operands, as the pipeline does with a failed slice; the copy
 * then no longer equals C, so the call stops vouching for it (the operand
 * cache learns of the write from the tracker). */
static cudaError_t send_back(ts_call *c, const ts_config *cfg)
{
    const size_t es = ts_elem_size(c->prec);
    const ts_region whole = { 0, 0, c->m, c->n, c->ldc };
    int64_t final = 0;
    cudaError_t err = ts_staged_download(c->c, c->cache_dev[TS_OP_C], &whole, es, cfg, &final);
    c->bytes_d2h += (uint64_t)(c->m * final) * es;
    ts_gemm_fn gemm = err ? ts_host_gemm(c->prec) : NULL;
    if (!gemm)
        return err;
    c->cache_dev[TS_OP_C] = NULL;
    int m = (int)c->m, n = (int)(c->n - final), k = (int)c->k, lda = (int)c->lda, ldb = (int)c->ldb,
        ldc = (int)c->ldc;
    int64_t b_off = c->transb == 'N' ? final * c->ldb : final;
    gemm(&c->transa, &c->transb, &m, &n, &k, c->alpha, c->a, &lda, (const char *)c->b + b_off * (int64_t)es, &ldb,
         c->beta, (char *)c->c + final * c->ldc * (int64_t)es, &ldc, 1, 1);
    return cudaSuccess;
}

int ts_gpu_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = now();
    int prev = -1;
    int dev = c->device >= 0 ? c->device : ts_gpu_home;
    const char *path = "cublas";
    int rc = 0;

    why[0] = 0;
    ts_call d = device_view(c);
    cudaError_t err = cudaGetDevice(&prev);
    if (!err && prev != dev)
        err = cudaSetDevice(dev);
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(dev, &err);
    if (ctx && all_on_device(&d))
        err = in_place(&d, ctx, cfg, &path);
    else if (ctx && (rc = ts_small_gemm(&d, ctx, cfg, &path, why, why_len)) != TS_SMALL_DECLINED)
        d.gpu_phases = ts_small_phases();
    else if (ctx) {
        rc = ts_pipeline_gemm(&d, ctx, cfg, &path, why, why_len);
        d.gpu_phases = ts_pipeline_phases();
    }
    c->bytes_h2d = d.bytes_h2d;
    c->bytes_d2h = d.bytes_d2h;
    c->gpu_phases = d.gpu_phases;
    /* The device copy of C is complete only when the computation is. */
    if (!err && !rc && c->cache_dev[TS_OP_C])
        err = send_back(c, cfg);
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
