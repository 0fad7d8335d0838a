/* Shared by bench/bench_kernels.c and tools/tsshim_tune.c: building a
 * classified ts_call for a shape, running cuBLAS on it, timing with CUDA
 * events (median of repetitions) and measuring the copy bandwidth. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include "tsk_registry.h"

static const char bc_prec_char[TS_NPREC] = { 's', 'd', 'c', 'z' };
static const char *const bc_class_name[TS_NCLASS] = { "none", "tsm2", "ism2", "tsmttsm", "rankk", "regular" };
static const int bc_widths[] = { 1, 2, 4, 8, 16, 32, 64 };
#define BC_NWIDTHS 7

/* One and zero of each precision (complex as re, im pairs). */
static const double bc_one[2] = { 1.0, 0.0 }, bc_zero[2] = { 0.0, 0.0 };
static const float bc_onef[2] = { 1.0f, 0.0f }, bc_zerof[2] = { 0.0f, 0.0f };

/* Fills the call as classify would for class `cls` (tight leading
 * dimensions); alpha = 1, beta = 0 in the call's precision. */
static void bc_call(ts_call *c, ts_class cls, ts_prec p, char ta, char tb, int64_t m, int64_t n, int64_t k)
{
    int single = p == TS_S || p == TS_C;
    ts_call_shape(c, p, ta, tb, m, n, k);
    c->alpha = single ? (const void *)bc_onef : (const void *)bc_one;
    c->beta = single ? (const void *)bc_zerof : (const void *)bc_zero;
    c->cls = cls;
    c->beta_zero = 1;
    if (cls == TS_CLASS_TSM2) {
        c->mirror = m <= 64 && n > 64;
        c->width = c->mirror ? m : n;
    } else if (cls == TS_CLASS_ISM2) {
        c->mirror = m <= 64 && n > 64;
        c->width = c->mirror ? (k > m ? k : m) : (k > n ? k : n);
    } else {
        c->width = m > n ? m : n;
    }
}

static void bc_operands(tsk_operands *o, const ts_call *c, void *a, void *b, void *cc)
{
    o->a = a;
    o->lda = c->lda;
    o->b = b;
    o->ldb = c->ldb;
    o->c = cc;
    o->ldc = c->ldc;
}

static cublasOperation_t bc_op(char t)
{
    return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}

static cublasStatus_t bc_cublas(cublasHandle_t h, const ts_call *c, const tsk_operands *o)
{
    cublasOperation_t ta = bc_op(c->transa), tb = bc_op(c->transb);
    int m = (int)c->m, n = (int)c->n, k = (int)c->k;
    int lda = (int)o->lda, ldb = (int)o->ldb, ldc = (int)o->ldc;
    switch (c->prec) {
    case TS_S:
        return cublasSgemm(h, ta, tb, m, n, k, c->alpha, o->a, lda, o->b, ldb, c->beta, o->c, ldc);
    case TS_D:
        return cublasDgemm(h, ta, tb, m, n, k, c->alpha, o->a, lda, o->b, ldb, c->beta, o->c, ldc);
    case TS_C:
        return cublasCgemm(h, ta, tb, m, n, k, c->alpha, o->a, lda, o->b, ldb, c->beta, o->c, ldc);
    default:
        return cublasZgemm(h, ta, tb, m, n, k, c->alpha, o->a, lda, o->b, ldb, c->beta, o->c, ldc);
    }
}

static int bc_cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Median seconds of `reps` runs of run(ctx) after `warm` untimed ones;
 * a negative value when a run fails. */
typedef int (*bc_run_fn)(void *ctx);
static double bc_time(bc_run_fn run, void *ctx, int warm, int reps)
{
    float ms[64];
    cudaEvent_t e0, e1;
    if (reps > 64)
        reps = 64;
    for (int i = 0; i < warm; i++)
        if (run(ctx) != 0)
            return -1.0;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < reps; i++) {
        cudaEventRecord(e0, 0);
        int bad = run(ctx);
        cudaEventRecord(e1, 0);
        if (bad || cudaEventSynchronize(e1) != cudaSuccess) {
            reps = -1;
            break;
        }
        cudaEventElapsedTime(&ms[i], e0, e1);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (reps <= 0 || cudaGetLastError() != cudaSuccess)
        return -1.0;
    qsort(ms, (size_t)reps, sizeof ms[0], bc_cmp_float);
    return ms[reps / 2] * 1e-3;
}

/* Device-to-device copy bandwidth, bytes read + written per second: the
 * memory roofline of every cell. */
static int bc_copy_run(void *ctx)
{
    void **p = ctx;
    return cudaMemcpyAsync(p[0], p[1], (size_t)p[2], cudaMemcpyDeviceToDevice, 0) != cudaSuccess;
}

static double bc_copy_bandwidth(void *dst, void *src, size_t bytes)
{
    void *ctx[3] = { dst, src, (void *)bytes };
    double s = bc_time(bc_copy_run, ctx, 2, 9);
    return s > 0 ? 2.0 * (double)bytes / s : -1.0;
}

/* Bytes a call must move at least: A, B and C once (C twice when read). */
static double bc_bytes(const ts_call *c)
{
    double e = (double)ts_elem_size(c->prec);
    return e * ((double)c->m * c->k + (double)c->k * c->n + (double)c->m * c->n * (c->beta_zero ? 1 : 2));
}

static int bc_sm(void)
{
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    return major * 10 + minor;
}

#endif
