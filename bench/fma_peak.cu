/* The arithmetic peak the roofline of bench_kernels quotes where a cell is
 * compute-bound: fused multiply-adds per second on the FMA pipes (not the
 * tensor cores), measured on this device rather than taken from a data
 * sheet, so clocks and SM count are the ones the kernels really get. */
#include <cuda_runtime.h>

namespace {

const int CHAINS = 16; /* independent FMAs per thread: covers the pipe latency */

template <typename T> __global__ void fma_chains(T *sink, int iters, T x, T y)
{
    T a[CHAINS];
#pragma unroll
    for (int i = 0; i < CHAINS; i++)
        a[i] = x + (T)(threadIdx.x + i);
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int i = 0; i < CHAINS; i++)
            a[i] = a[i] * x + y;
    T s = 0;
#pragma unroll
    for (int i = 0; i < CHAINS; i++)
        s += a[i];
    /* Never true for the values passed, but the compiler cannot know. */
    if (s == (T)-1)
        *sink = s;
}

template <typename T> double peak(void)
{
    int dev = 0, sms = 0;
    T *sink = NULL;
    cudaEvent_t e0, e1;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaMalloc(&sink, sizeof(T)) != cudaSuccess)
        return -1.0;
    const int threads = 256, blocks = sms * 8, iters = 1 << 14;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 0;
    for (int rep = 0; rep < 4; rep++) {
        float ms = 0;
        cudaEventRecord(e0, 0);
        fma_chains<T><<<blocks, threads>>>(sink, iters, (T)0.999999, (T)1e-7);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (rep > 0 && (best == 0 || ms < best))
            best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(sink);
    if (cudaGetLastError() != cudaSuccess || best <= 0)
        return -1.0;
    return 2.0 * CHAINS * (double)iters * threads * blocks / (best * 1e-3);
}

} /* namespace */

/* Flop/s of the FMA pipes in single (double_precision = 0) or double
 * precision; negative when the measurement fails. */
extern "C" double bc_fma_peak(int double_precision)
{
    return double_precision ? peak<double>() : peak<float>();
}
