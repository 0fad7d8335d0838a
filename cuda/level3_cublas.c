/* The backend's level3 op: the level-3 routines other than GEMM (SYRK,
 * HERK, TRSM, SYMM, HEMM, TRMM, SYR2K, HER2K) on the call's own operands,
 * and the Gram matrix of the SYRK and HERK calls with C on the host that
 * are not skinny (src/dispatch/level3_gpu.c passes it as the call with
 * alpha = 1, beta = 0 and C a host scratch).  A skinny SYRK or HERK with C
 * on the device runs as its Gram GEMM and a triangle update.  Device and
 * managed operands are used in place; host ones make one round trip through
 * device buffers from the context's pool (these calls are compute-heavy or
 * small: the GEMM pipeline's slicing does not apply to a triangular solve's
 * dependencies, nor to a result that is one triangle).  TRSM with a
 * triangle up to TSK_TRSM_MAX_ORDER runs kernels/trsm_small.cu, everything
 * else cuBLAS. */
#include "level3_cublas.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/scalars.h"
#include "c_update.h"
#include "compute.h"
#include "gemm.h"
#include "staged_copy.h"
#include "tsk_trsm.h"

static cublasFillMode_t fill(char uplo) { return uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
static cublasOperation_t op(char t) { return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }
static cublasSideMode_t side(char s) { return s == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
static cublasDiagType_t diag(char d) { return d == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }

/* Scalars in copies of their type's alignment (cublas_gemm.c says why). */
typedef union {
    float s;
    double d;
    cuComplex c;
    cuDoubleComplex z;
} scalar;

/* The call's alpha and beta.  The real ones of HERK (both) and HER2K
 * (beta) are the real parts of the descriptor's (.c.x, .z.x); TRSM's and
 * TRMM's beta is the descriptor's 0, which cuBLAS does not take. */
static void scalars(const ts_call *c, scalar *alpha, scalar *beta)
{
    memcpy(alpha, c->alpha, ts_elem_size(c->prec));
    memcpy(beta, c->beta, ts_elem_size(c->prec));
}

/* The routines with an operand B of their own (SYRK's and HERK's B is A,
 * TRSM's and TRMM's B is C). */
static int has_b(ts_args kind)
{
    return kind == TS_ARGS_SYMM || kind == TS_ARGS_HEMM || kind == TS_ARGS_SYR2K || kind == TS_ARGS_HER2K;
}

/* SYRK, HERK, SYR2K and HER2K: the descriptor's transa is op(A) of C =
 * op(A) op(B)^T (B = A for SYRK and HERK): trans N, T (real SYR2K's C made
 * T by validation) or C (HERK, HER2K), as cuBLAS takes it.  C = beta C
 * (alpha = 0, device operands only) passes k = 0: A and B unread. */
static cublasStatus_t rank_k(cublasHandle_t h, const ts_call *c, const tsk_operands *o)
{
    scalar alpha, beta;
    scalars(c, &alpha, &beta);
    int64_t k = ts_call_reads_ab(c) ? c->k : 0;
    cublasFillMode_t u = fill(c->uplo);
    cublasOperation_t t = op(c->transa);
    switch (ts_routine_args(c->routine)) {
    case TS_ARGS_HERK:
        if (c->prec == TS_C)
            return cublasCherk_64(h, u, t, c->n, k, &alpha.c.x, o->a, o->lda, &beta.c.x, o->c, o->ldc);
        return cublasZherk_64(h, u, t, c->n, k, &alpha.z.x, o->a, o->lda, &beta.z.x, o->c, o->ldc);
    case TS_ARGS_HER2K:
        if (c->prec == TS_C)
            return cublasCher2k_64(h, u, t, c->n, k, &alpha.c, o->a, o->lda, o->b, o->ldb, &beta.c.x, o->c, o->ldc);
        return cublasZher2k_64(h, u, t, c->n, k, &alpha.z, o->a, o->lda, o->b, o->ldb, &beta.z.x, o->c, o->ldc);
    case TS_ARGS_SYR2K:
        switch (c->prec) {
        case TS_S:
            return cublasSsyr2k_64(h, u, t, c->n, k, &alpha.s, o->a, o->lda, o->b, o->ldb, &beta.s, o->c, o->ldc);
        case TS_D:
            return cublasDsyr2k_64(h, u, t, c->n, k, &alpha.d, o->a, o->lda, o->b, o->ldb, &beta.d, o->c, o->ldc);
        case TS_C:
            return cublasCsyr2k_64(h, u, t, c->n, k, &alpha.c, o->a, o->lda, o->b, o->ldb, &beta.c, o->c, o->ldc);
        default:
            return cublasZsyr2k_64(h, u, t, c->n, k, &alpha.z, o->a, o->lda, o->b, o->ldb, &beta.z, o->c, o->ldc);
        }
    default:
        switch (c->prec) {
        case TS_S: return cublasSsyrk_64(h, u, t, c->n, k, &alpha.s, o->a, o->lda, &beta.s, o->c, o->ldc);
        case TS_D: return cublasDsyrk_64(h, u, t, c->n, k, &alpha.d, o->a, o->lda, &beta.d, o->c, o->ldc);
        case TS_C: return cublasCsyrk_64(h, u, t, c->n, k, &alpha.c, o->a, o->lda, &beta.c, o->c, o->ldc);
        default: return cublasZsyrk_64(h, u, t, c->n, k, &alpha.z, o->a, o->lda, &beta.z, o->c, o->ldc);
        }
    }
}

/* TRSM and TRMM: B is the descriptor's C (o->c, o->ldc), m x n; A the k x k
 * triangle.  cuBLAS's TRMM writes its product to a matrix C of its own; its
 * documentation gives BLAS's in-place TRMM as C = B (same address and
 * leading dimension). */
static cublasStatus_t triangular(cublasHandle_t h, const ts_call *c, const tsk_operands *o)
{
    scalar alpha, beta;
    scalars(c, &alpha, &beta);
    cublasSideMode_t s = side(c->side);
    cublasFillMode_t u = fill(c->uplo);
    cublasOperation_t t = op(c->transa);
    cublasDiagType_t d = diag(c->diag);
    if (ts_routine_args(c->routine) == TS_ARGS_TRMM) {
        switch (c->prec) {
        case TS_S: return cublasStrmm_64(h, s, u, t, d, c->m, c->n, &alpha.s, o->a, o->lda, o->c, o->ldc, o->c, o->ldc);
        case TS_D: return cublasDtrmm_64(h, s, u, t, d, c->m, c->n, &alpha.d, o->a, o->lda, o->c, o->ldc, o->c, o->ldc);
        case TS_C: return cublasCtrmm_64(h, s, u, t, d, c->m, c->n, &alpha.c, o->a, o->lda, o->c, o->ldc, o->c, o->ldc);
        default: return cublasZtrmm_64(h, s, u, t, d, c->m, c->n, &alpha.z, o->a, o->lda, o->c, o->ldc, o->c, o->ldc);
        }
    }
    switch (c->prec) {
    case TS_S: return cublasStrsm_64(h, s, u, t, d, c->m, c->n, &alpha.s, o->a, o->lda, o->c, o->ldc);
    case TS_D: return cublasDtrsm_64(h, s, u, t, d, c->m, c->n, &alpha.d, o->a, o->lda, o->c, o->ldc);
    case TS_C: return cublasCtrsm_64(h, s, u, t, d, c->m, c->n, &alpha.c, o->a, o->lda, o->c, o->ldc);
    default: return cublasZtrsm_64(h, s, u, t, d, c->m, c->n, &alpha.z, o->a, o->lda, o->c, o->ldc);
    }
}

/* SYMM and HEMM: C (m x n) = alpha A B + beta C (side L) or alpha B A +
 * beta C (side R), A the k x k symmetric or Hermitian matrix (one triangle
 * read; HEMM takes its diagonal as real, as the reference BLAS does). */
static cublasStatus_t symmetric(cublasHandle_t h, const ts_call *c, const tsk_operands *o)
{
    scalar alpha, beta;
    scalars(c, &alpha, &beta);
    cublasSideMode_t s = side(c->side);
    cublasFillMode_t u = fill(c->uplo);
    if (ts_routine_args(c->routine) == TS_ARGS_HEMM) {
        if (c->prec == TS_C)
            return cublasChemm_64(h, s, u, c->m, c->n, &alpha.c, o->a, o->lda, o->b, o->ldb, &beta.c, o->c, o->ldc);
        return cublasZhemm_64(h, s, u, c->m, c->n, &alpha.z, o->a, o->lda, o->b, o->ldb, &beta.z, o->c, o->ldc);
    }
    switch (c->prec) {
    case TS_S: return cublasSsymm_64(h, s, u, c->m, c->n, &alpha.s, o->a, o->lda, o->b, o->ldb, &beta.s, o->c, o->ldc);
    case TS_D: return cublasDsymm_64(h, s, u, c->m, c->n, &alpha.d, o->a, o->lda, o->b, o->ldb, &beta.d, o->c, o->ldc);
    case TS_C: return cublasCsymm_64(h, s, u, c->m, c->n, &alpha.c, o->a, o->lda, o->b, o->ldb, &beta.c, o->c, o->ldc);
    default: return cublasZsymm_64(h, s, u, c->m, c->n, &alpha.z, o->a, o->lda, o->b, o->ldb, &beta.z, o->c, o->ldc);
    }
}

/* A skinny SYRK or HERK (TSMTTSM) with C on the device: its Gram GEMM
 * on the tuned TSMTTSM kernels (ts_gpu_compute: A as both operands, alpha =
 * 1, beta = 0) into a scratch, then the triangle update; cuBLAS's SYRK is
 * far from the memory bound on such shapes. */
static cudaError_t gram(const ts_call *c, const tsk_operands *o, ts_gpu_context *ctx, const ts_config *cfg,
                        const char **path)
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
    tsk_operands ops = { o->a, o->lda, o->a, o->lda, g, c->n };
    err = ts_gpu_compute(&gemm, &ops, ctx, cfg, path);
    *path = !strcmp(*path, "tuned") ? "gram+tuned" : "gram+cublas";
    if (!err)
        err = ts_triangle_update(c, g, c->n, o->c, o->ldc, ctx->stream);
    cudaError_t freed = cudaFreeAsync(g, ctx->stream);
    return err ? err : freed;
}

static cudaError_t compute(const ts_call *c, const tsk_operands *o, ts_gpu_context *ctx, const ts_config *cfg,
                           const char **path)
{
    const ts_args kind = ts_routine_args(c->routine);
    if ((kind == TS_ARGS_SYRK || kind == TS_ARGS_HERK) && c->cls == TS_CLASS_TSMTTSM && ts_call_reads_ab(c))
        return gram(c, o, ctx, cfg, path);
    cudaError_t err = ts_gpu_fault(cfg, "kernel");
    if (err)
        return err;
    if (!ts_call_reads_ab(c) && ts_routine_side_shaped(c->routine)) {
        /* TRSM's and TRMM's B = 0 (the descriptor's beta is 0), SYMM's and
         * HEMM's C = beta C. */
        *path = "scale";
        return ts_scale_matrix(c, o->c, o->ldc, ctx->stream);
    }
    if (kind == TS_ARGS_TRSM) {
        tsk_status k = tsk_trsm(c, o->a, o->lda, o->c, o->ldc, ctx->stream);
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
    cublasStatus_t st = kind == TS_ARGS_TRSM || kind == TS_ARGS_TRMM   ? triangular(h, c, o)
                        : kind == TS_ARGS_SYMM || kind == TS_ARGS_HEMM ? symmetric(h, c, o)
                                                                       : rank_k(h, c, o);
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

/* upload = 0: the device copy starts as zeros (a C with beta = 0, which
 * must not be read: NaN there must not reach the result). */
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
    *h2d += (uint64_t)(o->rows * o->cols) * es;
    if (r == TS_MEM_HOST) {
        /* Pageable memory through the pinned ring, packed by the pool: five
         * times a pageable cudaMemcpy2D's rate.  The allocation is ordered
         * on ctx->stream, the ring's copies on its own streams. */
        const ts_region whole = { 0, 0, o->rows, o->cols, o->ld };
        err = cudaStreamSynchronize(ctx->stream);
        return err ? err : ts_staged_upload(o->dev, o->dev_ld, o->host, &whole, es, cfg);
    }
    err = ts_gpu_fault(cfg, "copy");
    if (!err)
        err = cudaMemcpy2DAsync(o->dev, (size_t)o->dev_ld * es, o->host, (size_t)o->ld * es, (size_t)o->rows * es,
                                (size_t)o->cols, cudaMemcpyHostToDevice, ctx->stream);
    return err;
}

/* C's device copy back into the caller's memory, after the kernel:
 * pageable C through the ring when it fits, else (and pinned C) by DMA. */
static cudaError_t copy_back(ts_call *c, const operand *cm, size_t es, ts_gpu_context *ctx, const ts_config *cfg)
{
    cudaError_t err = ts_gpu_fault(cfg, "copy_back");
    c->bytes_d2h += (uint64_t)(cm->rows * cm->cols) * es;
    int staged = 0;
    if (!err && c->res_c == TS_MEM_HOST) {
        const ts_region whole = { 0, 0, cm->rows, cm->cols, c->ldc };
        err = cudaStreamSynchronize(ctx->stream);
        if (!err)
            err = ts_staged_download(c->c, &whole, cm->dev, cm->dev_ld, es, cfg, &staged);
    }
    if (!err && !staged)
        err = cudaMemcpy2DAsync(c->c, (size_t)c->ldc * es, cm->dev, (size_t)cm->dev_ld * es, (size_t)cm->rows * es,
                                (size_t)cm->cols, cudaMemcpyDeviceToHost, ctx->stream);
    return err;
}

/* Bytes of the operand that a copy would move (0 when used in place). */
static int64_t moved(const operand *o, ts_residency r) { return ts_residency_gpu_reads(r) ? 0 : o->rows * o->cols; }

static cudaError_t run(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                       size_t why_len)
{
    const size_t es = ts_elem_size(c->prec);
    const ts_args kind = ts_routine_args(c->routine);
    const int side_shaped = ts_routine_side_shaped(c->routine), with_b = has_b(kind);
    /* A: the k x k triangle or symmetric matrix (TRSM, TRMM, SYMM, HEMM), or
     * op(A) as stored; B: SYMM's and HEMM's m x n, or op(B) as stored; C
     * (TRSM's and TRMM's B): m x n. */
    operand a = { c->a, side_shaped ? c->k : ts_rows_a(c), side_shaped ? c->k : ts_cols_a(c), c->lda, NULL, 0, 0 };
    operand b = { c->b, side_shaped ? c->m : ts_rows_b(c), side_shaped ? c->n : ts_cols_b(c), c->ldb, NULL, 0, 0 };
    operand cm = { c->c, c->m, c->n, c->ldc, NULL, 0, 0 };
    int64_t bytes = moved(&a, c->res_a) + (with_b ? moved(&b, c->res_b) : 0) + moved(&cm, c->res_c);
    if (ts_gpu_mem_refused(cfg, bytes * (int64_t)es, why, why_len))
        return cudaErrorMemoryAllocation;
    /* A call that does not read A and B (alpha = 0) passes them as
     * received, for cuBLAS's argument checks only.  A host C goes up when
     * the call reads it (TRSM's and TRMM's B; beta != 0), and SYR2K's and
     * HER2K's whatever beta: the copy back carries the triangle they leave
     * alone as it was (cuBLAS reads no C when beta = 0).  A SYRK's or
     * HERK's host C is the core's Gram scratch (beta = 0, only the triangle
     * read back). */
    int c_up = !c->beta_zero || kind == TS_ARGS_TRSM || kind == TS_ARGS_TRMM || kind == TS_ARGS_SYR2K ||
               kind == TS_ARGS_HER2K;
    cudaError_t err = cudaSuccess;
    if (ts_call_reads_ab(c)) {
        err = place(&a, c->res_a, es, 1, ctx, cfg, &c->bytes_h2d);
        if (!err && with_b)
            err = place(&b, c->res_b, es, 1, ctx, cfg, &c->bytes_h2d);
    } else {
        a.dev = (void *)c->a, a.dev_ld = c->lda;
        b.dev = (void *)c->b, b.dev_ld = c->ldb;
    }
    if (!err)
        err = place(&cm, c->res_c, es, c_up, ctx, cfg, &c->bytes_h2d);
    if (!err) {
        tsk_operands ops = { a.dev, a.dev_ld, with_b ? b.dev : NULL, b.dev_ld, cm.dev, cm.dev_ld };
        err = compute(c, &ops, ctx, cfg, path);
    }
    if (!err && cm.copied)
        err = copy_back(c, &cm, es, ctx, cfg);
    cudaError_t sync = cudaStreamSynchronize(ctx->stream);
    const operand *copies[] = { &a, &b, &cm };
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
        if (copies[i]->copied && copies[i]->dev)
            cudaFreeAsync(copies[i]->dev, ctx->stream);
    return err ? err : sync;
}

int ts_gpu_level3(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = ts_now();
    int dev = c->device >= 0 ? c->device : ts_gpu_home;
    const char *path = "cublas";
    why[0] = 0;
    ts_device_scope scope = ts_device_enter(dev);
    cudaError_t err = scope.err;
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(dev, &err);
    if (ctx)
        err = run(c, ctx, cfg, &path, why, why_len);
    /* Also clears a non-sticky error, so that the next call starts clean. */
    ts_device_leave(scope);
    c->gpu_path = path;
    c->gpu_seconds = ts_now() - t0;
    if (!err)
        return 0;
    if (!why[0])
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
    return -1;
}
