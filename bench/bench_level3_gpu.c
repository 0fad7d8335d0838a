/* SYRK and TRSM on device data through the shim against cuBLAS called
 * directly and against the HBM roofline (a device-to-device copy's rate):
 * dsyrk_ C = A^T A with A k x n (n = 8, 16, 32), dtrsm_ B = B R^-1 with B
 * m x 16 (side R, upper, non-unit).  Device operands run on the GPU in any
 * mode, so the shim's path (the Gram GEMM on the tuned TSMTTSM kernels, the
 * small-triangle TRSM kernel) is what is timed.
 *
 *   LD_PRELOAD=.libs/libtsshim.so bench/bench_level3_gpu [LOG2_LONG]
 *
 * LOG2_LONG (default 24) sets k and m.  Prints per case the best of the
 * timed runs (best_seconds), GB/s over the bytes that must move (A once
 * and C for SYRK, B in and out for TRSM) and the fraction of the roofline. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, size_t, size_t);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    int syrk, n, k;    /* SYRK: C n x n, A k x n; TRSM: B k x n, R n x n */
    double *a, *c;
    cublasHandle_t h;
} bench_case;

static void run(const bench_case *b, int shim)
{
    const double one = 1.0, zero = 0.0;
    if (b->syrk && shim)
        dsyrk_("U", "T", &b->n, &b->k, &one, b->a, &b->k, &zero, b->c, &b->n, 1, 1);
    else if (b->syrk)
        cublasDsyrk(b->h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, b->n, b->k, &one, b->a, b->k, &zero, b->c, b->n);
    else if (shim)
        dtrsm_("R", "U", "N", "N", &b->k, &b->n, &one, b->a, &b->n, b->c, &b->k, 1, 1, 1, 1);
    else
        cublasDtrsm(b->h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, b->k, b->n,
                    &one, b->a, b->n, b->c, b->k);
    cudaDeviceSynchronize();
}

/* The best of at least 5 calls and at least 0.3 s of them, after 0.1 s of
 * calls that bring the GPU's clocks up: a sub-millisecond call timed 5
 * times varied by 15% between runs. */
static double best_seconds(const bench_case *b, int shim)
{
    double best = 1e30, warm_end = now() + 0.1;
    do
        run(b, shim);
    while (now() < warm_end);
    double end = now() + 0.3;
    for (int i = 0; i < 5 || now() < end; i++) {
        double t0 = now();
        run(b, shim);
        double t = now() - t0;
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
        double t0 = now();
        cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice);
        cudaDeviceSynchronize();
        double t = now() - t0;
        best = i && t < best ? t : best;
    }
    cudaFree(x);
    cudaFree(y);
    return 2.0 * (double)bytes / best / 1e9;
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
    const int k = 1 << lg;
    double roof = roofline_gbs();
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s; long dimension 2^%d; roofline (device copy) %.0f GB/s\n", prop.name, lg, roof);
    printf("%-26s %10s %10s %9s %9s %8s\n", "case", "shim ms", "cuBLAS ms", "shim GB/s", "roofline", "speedup");
    static const int syrk_n[] = { 8, 16, 32 };
    for (int i = 0; i < 4; i++) {
        b.syrk = i < 3;
        b.n = b.syrk ? syrk_n[i] : 16;
        b.k = k;
        size_t na = b.syrk ? (size_t)k * b.n : (size_t)b.n * b.n, nc = b.syrk ? (size_t)b.n * b.n : (size_t)k * b.n;
        double *ha = malloc(na * sizeof *ha);
        for (size_t e = 0; e < na; e++)
            ha[e] = b.syrk ? (double)(e % 7) * 0.125 - 0.375 : (e % (b.n + 1) == 0 ? 2.0 : 0.01);
        if (cudaMalloc((void **)&b.a, na * sizeof(double)) || cudaMalloc((void **)&b.c, nc * sizeof(double)) ||
            cudaMemcpy(b.a, ha, na * sizeof(double), cudaMemcpyHostToDevice) ||
            cudaMemset(b.c, 0, nc * sizeof(double))) {
            fprintf(stderr, "device memory for the case failed\n");
            return 1;
        }
        free(ha);
        double shim = best_seconds(&b, 1), cublas = best_seconds(&b, 0);
        double bytes = b.syrk ? (double)(na + nc) * 8 : 2.0 * (double)nc * 8 + (double)na * 8;
        char name[64];
        snprintf(name, sizeof name, b.syrk ? "dsyrk T n=%d k=2^%d" : "dtrsm RUNN n=%d m=2^%d", b.n, lg);
        printf("%-26s %10.3f %10.3f %9.0f %8.0f%% %7.2fx\n", name, shim * 1e3, cublas * 1e3, bytes / shim / 1e9,
               roof > 0 ? 100.0 * bytes / shim / 1e9 / roof : 0.0, cublas / shim);
        cudaFree(b.a);
        cudaFree(b.c);
    }
    cublasDestroy(b.h);
    return 0;
}
