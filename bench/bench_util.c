/* Timing, operand rewriting and the pinned link's rate for the benchmarks
 * (bench_util.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "bench_util.h"

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof t[0], cmp);
    return t[n / 2];
}

void bench_rewrite(void *x, size_t bytes, int single, int round)
{
    if (single) {
        float f = round & 1 ? 0.5f : 2.0f, *v = x;
        for (size_t i = 0; i < bytes / 4; i++)
            v[i] *= f;
    } else {
        double f = round & 1 ? 0.5 : 2.0, *v = x;
        for (size_t i = 0; i < bytes / 8; i++)
            v[i] *= f;
    }
}

/* The best of 5 copies of 32 MB each way. */
void bench_link_rates(double *h2d, double *d2h)
{
    size_t bytes = (size_t)32 << 20;
    void *host, *dev;
    *h2d = *d2h = 0;
    if (cudaMallocHost(&host, bytes) || cudaMalloc(&dev, bytes))
        return;
    memset(host, 1, bytes);
    for (int dir = 0; dir < 2; dir++) {
        double best = 1e30;
        for (int i = 0; i < 5; i++) {
            double t0 = bench_now();
            if (dir == 0)
                cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
            else
                cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
            double t = bench_now() - t0;
            best = t < best ? t : best;
        }
        *(dir == 0 ? h2d : d2h) = (double)bytes / best * 1e-9;
    }
    cudaFree(dev);
    cudaFreeHost(host);
}

double bench_link_us(double in_bytes, double out_bytes, double h2d, double d2h)
{
    return h2d > 0 && d2h > 0 ? (in_bytes / h2d + out_bytes / d2h) * 1e-3 : 0;
}
