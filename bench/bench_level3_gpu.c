/* Level-3 routines on device data through the shim against cuBLAS called
 * directly and against the HBM roofline (a device-to-device copy's rate),
 * each with a long dimension k (m) and a short one n:
 *   dsyrk_   C = A^T A, A k x n (n = 8, 16, 32)
 *   dtrsm_   B = B R^-1, B m x 16 (side R, upper, non-unit)
 *   dtrmm_   B = B R, the same shapes
 *   dsymm_   C = B A, A 16 x 16 symmetric (side R, upper), B and C m x 16
 *   dsyr2k_  C = A^T B + B^T A, A and B k x 16 (trans T)
 * Device operands run on the GPU in any mode, so the shim's path (the Gram
 * GEMM on the tuned TSMTTSM kernels, the small-triangle TRSM kernel, the
 * level3 op's cuBLAS call for TRMM, SYMM and SYR2K) is what is timed.
 *
 *   LD_PRELOAD=.libs/libtsshim.so bench/bench_level3_gpu [LOG2_LONG]
 *
 * LOG2_LONG (default 24) sets k and m.  Prints per case the best of the
 * timed runs (best_seconds), GB/s over the bytes that must move and the
 * fraction of the roofline.  The bytes: each input read once and C
 * written once (beta = 0: C is not read), so A and C for SYRK, R and B
 * twice (in and out) for TRSM and TRMM, A, B and C for SYMM and SYR2K. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench_util.h"

void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, size_t, size_t);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
void dtrmm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
void dsymm_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, const int *, const double *, double *, const int *, size_t, size_t);
void dsyr2k_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
             const double *, const int *, const double *, double *, const int *, size_t, size_t);

static const double one = 1.0, zero = 0.0;

/* An operand's shape: none, n x n (a triangle or symmetric matrix, or
 * SYRK's and SYR2K's C) or k x n (leading dimension k). */
typedef enum { NONE, SQUARE, LONG } extent;

typedef struct bench_case bench_case;

typedef struct {
    const char *name; /* a format of n and log2 k */
    int n;
    extent a, b, c;
    int c_read;       /* C (TRSM's and TRMM's B) read as well as written */
    void (*call)(const bench_case *, int shim);
} routine;

struct bench_case {
    const routine *r;
    int n, k;
    double *a, *b, *c;
    cublasHandle_t h;
};

static void syrk(const bench_case *b, int shim)
{
    if (shim)
        dsyrk_("U", "T", &b->n, &b->k, &one, b->a, &b->k, &zero, b->c, &b->n, 1, 1);
    else
        cublasDsyrk(b->h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, b->n, b->k, &one, b->a, b->k, &zero, b->c, b->n);
}

static void trsm(const bench_case *b, int shim)
{
    if (shim)
        dtrsm_("R", "U", "N", "N", &b->k, &b->n, &one, b->a, &b->n, b->c, &b->k, 1, 1, 1, 1);
    else
        cublasDtrsm(b->h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, b->k, b->n,
                    &one, b->a, b->n, b->c, b->k);
}

/* cuBLAS's TRMM writes a third matrix: B itself, in place as the BLAS does. */
static void trmm(const bench_case *b, int shim)
{
    if (shim)
        dtrmm_("R", "U", "N", "N", &b->k, &b->n, &one, b->a, &b->n, b->c, &b->k, 1, 1, 1, 1);
    else
        cublasDtrmm(b->h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, b->k, b->n,
                    &one, b->a, b->n, b->c, b->k, b->c, b->k);
}

static void symm(const bench_case *b, int shim)
{
    if (shim)
        dsymm_("R", "U", &b->k, &b->n, &one, b->a, &b->n, b->b, &b->k, &zero, b->c, &b->k, 1, 1);
    else
        cublasDsymm(b->h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, b->k, b->n, &one, b->a, b->n, b->b, b->k, &zero,
                    b->c, b->k);
}

static void syr2k(const bench_case *b, int shim)
{
    if (shim)
        dsyr2k_("U", "T", &b->n, &b->k, &one, b->a, &b->k, b->b, &b->k, &zero, b->c, &b->n, 1, 1);
    else
        cublasDsyr2k(b->h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, b->n, b->k, &one, b->a, b->k, b->b, b->k, &zero, b->c,
                     b->n);
}

static const routine routines[] = {
    { "dsyrk T n=%d k=2^%d", 8, LONG, NONE, SQUARE, 0, syrk },
    { "dsyrk T n=%d k=2^%d", 16, LONG, NONE, SQUARE, 0, syrk },
    { "dsyrk T n=%d k=2^%d", 32, LONG, NONE, SQUARE, 0, syrk },
    { "dtrsm RUNN n=%d m=2^%d", 16, SQUARE, NONE, LONG, 1, trsm },
    { "dtrmm RUNN n=%d m=2^%d", 16, SQUARE, NONE, LONG, 1, trmm },
    { "dsymm RU n=%d m=2^%d", 16, SQUARE, LONG, LONG, 0, symm },
    { "dsyr2k UT n=%d k=2^%d", 16, LONG, LONG, SQUARE, 0, syr2k },
};

static void run(const bench_case *b, int shim)
{
    b->r->call(b, shim);
    cudaDeviceSynchronize();
}

/* The best of at least 5 calls and at least 0.3 s of them, after 0.1 s of
 * calls that bring the GPU's clocks up: a sub-millisecond call timed 5
 * times varied by 15% between runs. */
static double best_seconds(const bench_case *b, int shim)
{
    double best = 1e30, warm_end = bench_now() + 0.1;
    do
        run(b, shim);
    while (bench_now() < warm_end);
    double end = bench_now() + 0.3;
    for (int i = 0; i < 5 || bench_now() < end; i++) {
        double t0 = bench_now();
        run(b, shim);
        double t = bench_now() - t0;
        best = t < best ? t : best;
    }
    return best;
}

/* The HBM roofline: bytes read plus written per second by a large device copy. */
static double roofline_gbs(void)
{
    size_t bytes = (size_t)1 << 30;
    void *x, *y;
    if (cudaMalloc(&x, bytes) || cudaMalloc(&y, bytes))
        return 0;
    double best = 1e30;
    for (int i = 0; i < 6; i++) {
        double t0 = bench_now();
        cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice);
        cudaDeviceSynchronize();
        double t = bench_now() - t0;
        best = i && t < best ? t : best;
    }
    cudaFree(x);
    cudaFree(y);
    return 2.0 * (double)bytes / best / 1e9;
}

static size_t elements(extent e, const bench_case *b)
{
    return e == NONE ? 0 : e == SQUARE ? (size_t)b->n * b->n : (size_t)b->k * b->n;
}

/* A device operand of shape e: a well-conditioned upper triangle (2 on the
 * diagonal, 0.01 above: TRSM's and TRMM's R, SYMM's symmetric A), values of
 * magnitude below 1 (the long inputs), or zeros (C: repeated TRSM and TRMM
 * calls on B = 0 stay finite).  NULL where there is none. */
static double *device_operand(extent e, int is_c, const bench_case *b)
{
    size_t count = elements(e, b);
    if (!count)
        return NULL;
    double *h = malloc(count * sizeof *h), *d;
    if (!h || cudaMalloc((void **)&d, count * sizeof *d)) {
        fprintf(stderr, "memory for the case failed\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        h[i] = is_c ? 0.0 : e == SQUARE ? (i % (b->n + 1) == 0 ? 2.0 : 0.01) : (double)(i % 7) * 0.125 - 0.375;
    if (cudaMemcpy(d, h, count * sizeof *d, cudaMemcpyHostToDevice)) {
        fprintf(stderr, "copying the case's operands failed\n");
        exit(1);
    }
    free(h);
    return d;
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 24;
    if (lg < 10 || lg > 28) {
        fprintf(stderr, "usage: %s [LOG2_LONG, 10..28]\n", argv[0]);
        return 2;
    }
    Dl_info info;
    const char *from = dladdr((void *)dsyrk_, &info) && info.dli_fname ? info.dli_fname : "?";
    if (!strstr(from, "libtsshim")) {
        fprintf(stderr, "dsyrk_ comes from %s: run with LD_PRELOAD=libtsshim.so\n", from);
        return 2;
    }
    bench_case b = { 0 };
    if (cublasCreate(&b.h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "no usable GPU\n");
        return 1;
    }
    double roof = roofline_gbs();
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s; long dimension 2^%d; roofline (device copy) %.0f GB/s\n", prop.name, lg, roof);
    printf("%-26s %10s %10s %9s %9s %8s\n", "case", "shim ms", "cuBLAS ms", "shim GB/s", "roofline", "speedup");
    for (size_t i = 0; i < sizeof routines / sizeof routines[0]; i++) {
        const routine *r = &routines[i];
        b.r = r;
        b.n = r->n;
        b.k = 1 << lg;
        b.a = device_operand(r->a, 0, &b);
        b.b = device_operand(r->b, 0, &b);
        b.c = device_operand(r->c, 1, &b);
        double shim = best_seconds(&b, 1), cublas = best_seconds(&b, 0);
        double bytes = 8.0 * (double)(elements(r->a, &b) + elements(r->b, &b) + (1 + r->c_read) * elements(r->c, &b));
        char name[64];
        snprintf(name, sizeof name, r->name, b.n, lg);
        printf("%-26s %10.3f %10.3f %9.0f %8.0f%% %7.2fx\n", name, shim * 1e3, cublas * 1e3, bytes / shim / 1e9,
               roof > 0 ? 100.0 * bytes / shim / 1e9 / roof : 0.0, cublas / shim);
        cudaFree(b.a);
        cudaFree(b.b);
        cudaFree(b.c);
    }
    cublasDestroy(b.h);
    return 0;
}
