#define _GNU_SOURCE
#include <config.h> /* TSSHIM_FAULT_INJECTION */

#include "gpu_gemm.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu_cublas.h"
#include "gpu_pipeline.h"
#include "c_update.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

cudaError_t ts_gpu_fault(const ts_config *cfg, const char *stage)
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

/* Complex C += alpha op(A) op(B): cuBLAS would multiply C by beta = (1, 0),
 * turning Inf into NaN where the CPU BLAS only adds; so the product goes to
 * a scratch matrix that is then added to C. */
static cudaError_t cublas_accumulate(const ts_call *c, const tsk_operands *ops, ts_gpu_context *ctx)
{
    static const double zero[2] = { 0, 0 };
    ts_call product = *c;
    tsk_operands scratch = *ops;
    product.beta = zero;
    product.beta_zero = 1;
    product.beta_one = 0;
    scratch.ldc = c->m;
    cudaError_t err = cudaMallocFromPoolAsync(&scratch.c, (size_t)(c->m * c->n) * ts_elem_size(c->prec), ctx->pool,
                                              ctx->stream);
    if (err)
        return err;
    if (ts_cublas_gemm(ctx->cublas, &product, &scratch) != CUBLAS_STATUS_SUCCESS)
        err = cudaErrorUnknown;
    if (!err)
        err = ts_add_matrix(c, scratch.c, scratch.ldc, ops->c, ops->ldc, ctx->stream);
    cudaError_t freed = cudaFreeAsync(scratch.c, ctx->stream);
    return err ? err : freed;
}

cudaError_t ts_gpu_compute(const ts_call *c, const tsk_operands *ops, ts_gpu_context *ctx, const ts_config *cfg,
                           const char **path)
{
    cudaError_t err = ts_gpu_fault(cfg, "kernel");
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
    if (ts_prec_is_complex(c->prec) && c->beta_one)
        return cublas_accumulate(c, ops, ctx);
    return ts_cublas_gemm(ctx->cublas, c, ops) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

static int on_device(ts_residency r) { return r == TS_MEM_DEVICE || r == TS_MEM_MANAGED; }

/* Nothing to copy: every operand the call reads or writes is on the device. */
static int all_on_device(const ts_call *c)
{
    int reads_ab = !(c->alpha_zero || c->k == 0);
    return on_device(c->res_c) && (!reads_ab || (on_device(c->res_a) && on_device(c->res_b)));
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
    int dev = c->device >= 0 ? c->device : (int)cfg->device;
    const char *path = "cublas";
    int rc = 0;

    why[0] = 0;
    cudaError_t err = cudaGetDevice(&prev);
    if (!err && prev != dev)
        err = cudaSetDevice(dev);
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(dev, &err);
    if (ctx && all_on_device(c))
        err = in_place(c, ctx, cfg, &path);
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
