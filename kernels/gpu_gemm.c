#define _GNU_SOURCE
#include "gpu_gemm.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu_context.h"
#include "gpu_cublas.h"
#include "scale_matrix.h"
#include "tsk_gemm.h"

/* Device-side view of one operand: the caller's pointer when it already
 * lives on the device, else a compact copy (leading dimension = rows). */
typedef struct {
    const void *host;
    int64_t rows, cols, ld;
    ts_residency res;
    void *dev;
    int64_t dev_ld;
    int owned;
} operand;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int on_device(ts_residency r) { return r == TS_MEM_DEVICE || r == TS_MEM_MANAGED; }

static cudaError_t fault(const ts_config *cfg, const char *stage)
{
#ifdef TSSHIM_FAULT_INJECTION
    if (!strcmp(cfg->fault, stage))
        return cudaErrorUnknown;
#else
    (void)cfg;
    (void)stage;
#endif
    return cudaSuccess;
}

static cudaError_t place(operand *o, size_t es, int upload, ts_gpu_context *ctx, const ts_config *cfg,
                         uint64_t *h2d)
{
    if (on_device(o->res)) {
        o->dev = (void *)o->host;
        o->dev_ld = o->ld;
        return cudaSuccess;
    }
    size_t bytes = (size_t)(o->rows * o->cols) * es;
    cudaError_t err = fault(cfg, "alloc");
    if (!err)
        err = cudaMallocFromPoolAsync(&o->dev, bytes ? bytes : es, ctx->pool, ctx->stream);
    if (err)
        return err;
    o->owned = 1;
    o->dev_ld = o->rows > 0 ? o->rows : 1;
    if (!upload || !bytes)
        return cudaSuccess;
    *h2d += bytes;
    if ((err = fault(cfg, "copy")))
        return err;
    return cudaMemcpy2DAsync(o->dev, (size_t)o->dev_ld * es, o->host, (size_t)o->ld * es, (size_t)o->rows * es,
                             (size_t)o->cols, cudaMemcpyHostToDevice, ctx->stream);
}

static cudaError_t compute(const ts_call *c, const tsk_operands *ops, ts_gpu_context *ctx, const ts_config *cfg,
                           const char **path)
{
    cudaError_t err = fault(cfg, "kernel");
    if (err)
        return err;
    if (c->alpha_zero || c->k == 0) {
        *path = "scale";
        return ts_scale_matrix(c, ops->c, ops->ldc, ctx->stream);
    }
    tsk_status s = tsk_gemm(c, ops, ctx->stream, ctx->sm);
    if (s == TSK_RAN) {
        *path = "tuned";
        return cudaSuccess;
    }
    if (s == TSK_ERROR) {
        cudaError_t e = cudaGetLastError();
        return e ? e : cudaErrorLaunchFailure;
    }
    *path = "cublas";
    return ts_cublas_gemm(ctx->cublas, c, ops) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

static int64_t limit_bytes(const ts_config *cfg) { return cfg->gpu_mem_limit_mb * 1024 * 1024; }

int ts_gpu_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = now();
    size_t es = ts_elem_size(c->prec);
    operand a = { c->a, ts_rows_a(c), ts_cols_a(c), c->lda, c->res_a, NULL, 0, 0 };
    operand b = { c->b, ts_rows_b(c), ts_cols_b(c), c->ldb, c->res_b, NULL, 0, 0 };
    operand cm = { c->c, c->m, c->n, c->ldc, c->res_c, NULL, 0, 0 };
    int reads_ab = !(c->alpha_zero || c->k == 0);

    int64_t need = 0;
    if (reads_ab)
        need += (on_device(a.res) ? 0 : a.rows * a.cols) + (on_device(b.res) ? 0 : b.rows * b.cols);
    need += on_device(cm.res) ? 0 : cm.rows * cm.cols;
    if (limit_bytes(cfg) && need * (int64_t)es > limit_bytes(cfg)) {
        snprintf(why, why_len, "needs %lld MB, above TSSHIM_GPU_MEM_LIMIT=%lld",
                 (long long)(need * (int64_t)es >> 20), (long long)cfg->gpu_mem_limit_mb);
        return -1;
    }

    int prev = -1;
    int dev = c->device >= 0 ? c->device : (int)cfg->device;
    cudaError_t err = cudaGetDevice(&prev);
    if (!err && prev != dev)
        err = cudaSetDevice(dev);
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(dev, &err);
    const char *path = "cublas";
    if (ctx && reads_ab)
        err = place(&a, es, 1, ctx, cfg, &c->bytes_h2d);
    if (ctx && !err && reads_ab)
        err = place(&b, es, 1, ctx, cfg, &c->bytes_h2d);
    if (ctx && !err)
        err = place(&cm, es, !c->beta_zero, ctx, cfg, &c->bytes_h2d);
    if (ctx && !err) {
        tsk_operands ops = { a.dev, a.dev_ld, b.dev, b.dev_ld, cm.dev, cm.dev_ld };
        err = compute(c, &ops, ctx, cfg, &path);
    }
    /* Wait for the kernel before copying back: C stays untouched on failure,
     * so the CPU can still compute the call. */
    if (ctx && !err)
        err = cudaStreamSynchronize(ctx->stream);
    if (ctx && !err && cm.owned && cm.rows * cm.cols > 0) {
        err = fault(cfg, "copy_back");
        if (!err)
            err = cudaMemcpy2DAsync(c->c, (size_t)c->ldc * es, cm.dev, (size_t)cm.dev_ld * es, (size_t)cm.rows * es,
                                    (size_t)cm.cols, cudaMemcpyDeviceToHost, ctx->stream);
        if (!err)
            c->bytes_d2h += (uint64_t)(cm.rows * cm.cols) * es;
    }
    if (ctx) {
        operand *all[] = { &a, &b, &cm };
        for (int i = 0; i < 3; i++)
            if (all[i]->owned)
                cudaFreeAsync(all[i]->dev, ctx->stream);
        cudaError_t sync = cudaStreamSynchronize(ctx->stream);
        if (!err)
            err = sync;
    }
    if (prev >= 0 && prev != dev)
        cudaSetDevice(prev);
    c->gpu_path = path;
    c->gpu_seconds = now() - t0;
    if (err) {
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
        cudaGetLastError();
        return -1;
    }
    return 0;
}
