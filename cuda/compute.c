#include "compute.h"

#include <stdio.h>
#include <string.h>

#include "c_update.h"
#include "cublas_gemm.h"

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
static cudaError_t cublas_accumulate(const ts_call *c, const tsk_operands *ops, ts_gpu_context *ctx,
                                     cublasHandle_t h)
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
    if (ts_cublas_gemm(h, &product, &scratch) != CUBLAS_STATUS_SUCCESS)
        err = cudaErrorUnknown;
    if (!err)
        err = ts_add_matrix(c, scratch.c, scratch.ldc, ops->c, ops->ldc, ctx->stream);
    cudaError_t freed = cudaFreeAsync(scratch.c, ctx->stream);
    return err ? err : freed;
}

int ts_gpu_mem_refused(const ts_config *cfg, int64_t bytes, char *why, size_t why_len)
{
    if (!cfg->gpu_mem_limit_mb || bytes <= (cfg->gpu_mem_limit_mb << 20))
        return 0;
    snprintf(why, why_len, "needs %lld MB, above TSSHIM_GPU_MEM_LIMIT=%lld", (long long)(bytes >> 20),
             (long long)cfg->gpu_mem_limit_mb);
    return 1;
}

cudaError_t ts_gpu_compute(const ts_call *c, const tsk_operands *ops, ts_gpu_context *ctx, const ts_config *cfg,
                           const char **path)
{
    cudaError_t err = ts_gpu_fault(cfg, "kernel");
    if (err)
        return err;
    if (!ts_call_reads_ab(c)) {
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
    cublasHandle_t h = ts_gpu_cublas(ctx);
    if (!h)
        return cudaErrorInitializationError;
    if (ts_prec_is_complex(c->prec) && c->beta_one)
        return cublas_accumulate(c, ops, ctx, h);
    return ts_cublas_gemm(h, c, ops) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

