/* The backend's level3 op: TRSM, SYRK and HERK with C in device memory
 * (a skinny SYRK or HERK as its Gram GEMM and a triangle update), and the
 * Gram matrix of the other SYRK and HERK calls that are not skinny
 * (src/dispatch/level3_gpu.c passes it as the call with alpha = 1, beta = 0 and C a
 * host scratch).  Device and managed operands are used in place; host ones
 * make one round trip through device buffers from the context's pool (these
 * calls are compute-heavy or small: the GEMM pipeline's slicing does not
 * apply to a triangular solve's dependencies).  TRSM with a triangle up to
 * TSK_TRSM_MAX_ORDER runs kernels/trsm_small.cu, everything else cuBLAS. */
#include "level3_cublas.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/scalars.h"
#include "c_update.h"
#include "compute.h"
#include "gemm.h"
#include "tsk_trsm.h"

static cublasFillMode_t fill(char uplo) { return uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
static cublasOperation_t op(char t) { return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }

/* Scalars in copies of their type's alignment (cublas_gemm.c says why). */
typedef union {
    float s;
    double d;
    cuComplex c;
    cuDoubleComplex z;
} scalar;

/* SYRK and HERK: the descriptor's transa is op(A) of C = op(A) op(A)^T.
 * C = beta C (alpha = 0, device operands only) passes k = 0: A unread. */
static cublasStatus_t syrk(cublasHandle_t h, const ts_call *c, const void *a, int64_t lda, void *cm, int64_t ldc)
{
    scalar alpha, beta;
    memcpy(&alpha, c->alpha, ts_elem_size(c->prec));
    memcpy(&beta, c->beta, ts_elem_size(c->prec));
    int64_t k = ts_call_reads_ab(c) ? c->k : 0;
    cublasFillMode_t u = fill(c->uplo);
    cublasOperation_t t = op(c->transa);
    if (ts_routine_args(c->routine) == TS_ARGS_HERK) {
        /* HERK's real scalars are the real parts of the descriptor's. */
        if (c->prec == TS_C)
            return cublasCherk_64(h, u, t, c->n, k, &alpha.c.x, a, lda, &beta.c.x, cm, ldc);
        return cublasZherk_64(h, u, t, c->n, k, &alpha.z.x, a, lda, &beta.z.x, cm, ldc);
    }
    switch (c->prec) {
    case TS_S: return cublasSsyrk_64(h, u, t, c->n, k, &alpha.s, a, lda, &beta.s, cm, ldc);
    case TS_D: return cublasDsyrk_64(h, u, t, c->n, k, &alpha.d, a, lda, &beta.d, cm, ldc);
    case TS_C: return cublasCsyrk_64(h, u, t, c->n, k, &alpha.c, a, lda, &beta.c, cm, ldc);
    default: return cublasZsyrk_64(h, u, t, c->n, k, &alpha.z, a, lda, &beta.z, cm, ldc);
    }
}

static cublasStatus_t trsm(cublasHandle_t h, const ts_call *c, const void *a, int64_t lda, void *b, int64_t ldb)
{
    scalar alpha;
    memcpy(&alpha, c->alpha, ts_elem_size(c->prec));
    cublasSideMode_t s = c->side == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    cublasFillMode_t u = fill(c->uplo);
    cublasOperation_t t = op(c->transa);
    cublasDiagType_t d = c->diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    switch (c->prec) {
    case TS_S: return cublasStrsm_64(h, s, u, t, d, c->m, c->n, &alpha.s, a, lda, b, ldb);
    case TS_D: return cublasDtrsm_64(h, s, u, t, d, c->m, c->n, &alpha.d, a, lda, b, ldb);
    case TS_C: return cublasCtrsm_64(h, s, u, t, d, c->m, c->n, &alpha.c, a, lda, b, ldb);
    default: return cublasZtrsm_64(h, s, u, t, d, c->m, c->n, &alpha.z, a, lda, b, ldb);
    }
}

/* A skinny SYRK or HERK (TSMTTSM) with C on the device: its Gram GEMM
 * on the tuned TSMTTSM kernels (ts_gpu_compute: A as both operands, alpha =
 * 1, beta = 0) into a scratch, then the triangle update; cuBLAS's SYRK is
 * far from the memory bound on such shapes. */
static cudaError_t gram(const ts_call *c, const void *a, int64_t lda, void *cm, int64_t ldc, ts_gpu_context *ctx,
                        const ts_config *cfg, const char **path)
{
    ts_call gemm = *c;
    gemm.routine = ts_gemm_routine(c->prec);
    gemm.alpha = ts_scalar_one(c->prec);
    gemm.beta = ts_scalar_zero(c->prec);
    gemm.alpha_zero = gemm.beta_one = 0;
    gemm.beta_zero = 1;
    void *g = NULL;
    cudaError_t err = ts_gpu_fault(cfg, "alloc");
    if (!err)
        err = cudaMallocFromPoolAsync(&g, (size_t)(c->n * c->n) * ts_elem_size(c->prec), ctx->pool, ctx->stream);
    if (err)
        return err;
    tsk_operands ops = { a, lda, a, lda, g, c->n };
    err = ts_gpu_compute(&gemm, &ops, ctx, cfg, path);
    *path = !strcmp(*path, "tuned") ? "gram+tuned" : "gram+cublas";
    if (!err)
        err = ts_triangle_update(c, g, c->n, cm, ldc, ctx->stream);
    cudaError_t freed = cudaFreeAsync(g, ctx->stream);
    return err ? err : freed;
}

static cudaError_t compute(const ts_call *c, const void *a, int64_t lda, void *cm, int64_t ldc, ts_gpu_context *ctx,
                           const ts_config *cfg, const char **path)
{
    if (ts_routine_args(c->routine) != TS_ARGS_TRSM && c->cls == TS_CLASS_TSMTTSM && ts_call_reads_ab(c))
        return gram(c, a, lda, cm, ldc, ctx, cfg, path);
    cudaError_t err = ts_gpu_fault(cfg, "kernel");
    if (err)
        return err;
    int is_trsm = ts_routine_args(c->routine) == TS_ARGS_TRSM;
    if (is_trsm) {
        if (!ts_call_reads_ab(c)) {
            *path = "scale"; /* B = 0: the descriptor's beta is 0 */
            return ts_scale_matrix(c, cm, ldc, ctx->stream);
        }
        tsk_status k = tsk_trsm(c, a, lda, cm, ldc, ctx->stream);
        if (k == TSK_RAN) {
            *path = "trsm_small";
            return cudaSuccess;
        }
        if (k == TSK_ERROR) {
            err = cudaGetLastError();
            return err ? err : cudaErrorLaunchFailure;
        }
    }
    cublasHandle_t h = ts_gpu_cublas(ctx);
    if (!h)
        return cudaErrorInitializationError;
    cublasStatus_t st = is_trsm ? trsm(h, c, a, lda, cm, ldc) : syrk(h, c, a, lda, cm, ldc);
    *path = "cublas";
    return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

/* One operand: rows x cols with leading dimension ld at host, in place when
 * the GPU reads it, else a packed device copy (ld = rows). */
typedef struct {
    const void *host;
    int64_t rows, cols, ld;
    void *dev;
    int64_t dev_ld;
    int copied;
} operand;

/* upload = 0: the device copy starts as zeros (a SYRK's C with beta = 0,
 * which must not be read: NaN there must not reach the result). */
static cudaError_t place(operand *o, ts_residency r, size_t es, int upload, ts_gpu_context *ctx,
                         const ts_config *cfg, uint64_t *h2d)
{
    o->copied = !ts_residency_gpu_reads(r);
    if (!o->copied) {
        o->dev = (void *)o->host;
        o->dev_ld = o->ld;
        return cudaSuccess;
    }
    o->dev_ld = ts_max1(o->rows);
    cudaError_t err = ts_gpu_fault(cfg, "alloc");
    if (!err)
        err = cudaMallocFromPoolAsync(&o->dev, (size_t)(o->dev_ld * o->cols) * es, ctx->pool, ctx->stream);
    if (err) {
        o->dev = NULL;
        return err;
    }
    if (!upload)
        return cudaMemsetAsync(o->dev, 0, (size_t)(o->dev_ld * o->cols) * es, ctx->stream);
    err = ts_gpu_fault(cfg, "copy");
    if (!err)
        err = cudaMemcpy2DAsync(o->dev, (size_t)o->dev_ld * es, o->host, (size_t)o->ld * es, (size_t)o->rows * es,
                                (size_t)o->cols, cudaMemcpyHostToDevice, ctx->stream);
    *h2d += (uint64_t)(o->rows * o->cols) * es;
    return err;
}

static cudaError_t run(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                       size_t why_len)
{
    const size_t es = ts_elem_size(c->prec);
    int trsm_call = ts_routine_args(c->routine) == TS_ARGS_TRSM;
    /* A: TRSM's k x k triangle, or op(A) as stored; C (TRSM's B): m x n. */
    operand a = { c->a, trsm_call ? c->k : ts_rows_a(c), trsm_call ? c->k : ts_cols_a(c), c->lda, NULL, 0, 0 };
    operand cm = { c->c, c->m, c->n, c->ldc, NULL, 0, 0 };
    int64_t bytes = (ts_residency_gpu_reads(c->res_a) ? 0 : a.rows * a.cols) +
                    (ts_residency_gpu_reads(c->res_c) ? 0 : cm.rows * cm.cols);
    if (ts_gpu_mem_refused(cfg, bytes * (int64_t)es, why, why_len))
        return cudaErrorMemoryAllocation;
    /* A call that does not read A (alpha = 0) passes it as received, for
     * cuBLAS's argument checks only.  A host C goes up unless beta = 0 (a
     * SYRK writes one triangle and the copy back carries the other as it
     * was; the core's Gram scratch has beta = 0). */
    cudaError_t err = cudaSuccess;
    if (ts_call_reads_ab(c))
        err = place(&a, c->res_a, es, 1, ctx, cfg, &c->bytes_h2d);
    else
        a.dev = (void *)c->a, a.dev_ld = c->lda;
    if (!err)
        err = place(&cm, c->res_c, es, trsm_call || !c->beta_zero, ctx, cfg, &c->bytes_h2d);
    if (!err)
        err = compute(c, a.dev, a.dev_ld, cm.dev, cm.dev_ld, ctx, cfg, path);
    if (!err && cm.copied) {
        err = ts_gpu_fault(cfg, "copy_back");
        if (!err)
            err = cudaMemcpy2DAsync(c->c, (size_t)c->ldc * es, cm.dev, (size_t)cm.dev_ld * es, (size_t)cm.rows * es,
                                    (size_t)cm.cols, cudaMemcpyDeviceToHost, ctx->stream);
        c->bytes_d2h += (uint64_t)(cm.rows * cm.cols) * es;
    }
    cudaError_t sync = cudaStreamSynchronize(ctx->stream);
    if (a.copied && a.dev)
        cudaFreeAsync(a.dev, ctx->stream);
    if (cm.copied && cm.dev)
        cudaFreeAsync(cm.dev, ctx->stream);
    return err ? err : sync;
}

int ts_gpu_level3(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = ts_now();
    int prev = -1, dev = c->device >= 0 ? c->device : ts_gpu_home;
    const char *path = "cublas";
    why[0] = 0;
    cudaError_t err = cudaGetDevice(&prev);
    if (!err && prev != dev)
        err = cudaSetDevice(dev);
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(dev, &err);
    if (ctx)
        err = run(c, ctx, cfg, &path, why, why_len);
    if (prev >= 0 && prev != dev)
        cudaSetDevice(prev);
    c->gpu_path = path;
    c->gpu_seconds = ts_now() - t0;
    if (!err)
        return 0;
    if (!why[0])
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
    cudaGetLastError(); /* clear a non-sticky error so the next call starts clean */
    return -1;
}
