/* Device arithmetic shared by the tuned kernels, over the four BLAS element
 * types: float, double, float2 (complex float) and double2 (complex double).
 * Overloads rather than traits keep the kernel templates readable; the
 * complex layout (re, im) matches Fortran COMPLEX and C99 _Complex. */
#ifndef TSK_COMPLEX_CUH
#define TSK_COMPLEX_CUH

#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include "common/call.h"

/* Element type of each BLAS precision (TS_S..TS_Z). */
template <int P> struct tsk_elem;
template <> struct tsk_elem<TS_S> { typedef float type; };
template <> struct tsk_elem<TS_D> { typedef double type; };
template <> struct tsk_elem<TS_C> { typedef float2 type; };
template <> struct tsk_elem<TS_Z> { typedef double2 type; };

/* 32-bit registers per element: sizes register tiles at compile time. */
template <typename T> struct tsk_words { static const int value = sizeof(T) / 4; };

template <typename T> __device__ __forceinline__ T tsk_zero();
template <> __device__ __forceinline__ float tsk_zero<float>() { return 0.0f; }
template <> __device__ __forceinline__ double tsk_zero<double>() { return 0.0; }
template <> __device__ __forceinline__ float2 tsk_zero<float2>() { return make_float2(0.0f, 0.0f); }
template <> __device__ __forceinline__ double2 tsk_zero<double2>() { return make_double2(0.0, 0.0); }

/* c + a * b */
__device__ __forceinline__ float tsk_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double tsk_fma(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float2 tsk_fma(float2 a, float2 b, float2 c)
{
    return make_float2(fmaf(-a.y, b.y, fmaf(a.x, b.x, c.x)), fmaf(a.y, b.x, fmaf(a.x, b.y, c.y)));
}
__device__ __forceinline__ double2 tsk_fma(double2 a, double2 b, double2 c)
{
    return make_double2(fma(-a.y, b.y, fma(a.x, b.x, c.x)), fma(a.y, b.x, fma(a.x, b.y, c.y)));
}

__device__ __forceinline__ float tsk_mul(float a, float b) { return a * b; }
__device__ __forceinline__ double tsk_mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 tsk_mul(float2 a, float2 b) { return tsk_fma(a, b, tsk_zero<float2>()); }
__device__ __forceinline__ double2 tsk_mul(double2 a, double2 b) { return tsk_fma(a, b, tsk_zero<double2>()); }

__device__ __forceinline__ float tsk_add(float a, float b) { return a + b; }
__device__ __forceinline__ double tsk_add(double a, double b) { return a + b; }
__device__ __forceinline__ float2 tsk_add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 tsk_add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }

/* Conjugate when `on` (a no-op for real types): 'C' operands. */
__device__ __forceinline__ float tsk_conj(float a, bool) { return a; }
__device__ __forceinline__ double tsk_conj(double a, bool) { return a; }
__device__ __forceinline__ float2 tsk_conj(float2 a, bool on) { return make_float2(a.x, on ? -a.y : a.y); }
__device__ __forceinline__ double2 tsk_conj(double2 a, bool on) { return make_double2(a.x, on ? -a.y : a.y); }

/* Warp butterfly sum: every lane ends with the total. */
__device__ __forceinline__ float tsk_shfl_xor(float a, int m) { return __shfl_xor_sync(0xffffffffu, a, m); }
__device__ __forceinline__ double tsk_shfl_xor(double a, int m) { return __shfl_xor_sync(0xffffffffu, a, m); }
__device__ __forceinline__ float2 tsk_shfl_xor(float2 a, int m)
{
    return make_float2(__shfl_xor_sync(0xffffffffu, a.x, m), __shfl_xor_sync(0xffffffffu, a.y, m));
}
__device__ __forceinline__ double2 tsk_shfl_xor(double2 a, int m)
{
    return make_double2(__shfl_xor_sync(0xffffffffu, a.x, m), __shfl_xor_sync(0xffffffffu, a.y, m));
}
template <typename T> __device__ __forceinline__ T tsk_warp_sum(T a)
{
    for (int m = 16; m > 0; m >>= 1)
        a = tsk_add(a, tsk_shfl_xor(a, m));
    return a;
}

/* Host-side scalars of a call, passed to kernels by value. */
template <typename T> struct tsk_scalars {
    T alpha, beta;
    int alpha_zero; /* alpha = 0: neither A nor B may be read */
    int beta_zero;  /* beta = 0: C is written, never read (NaN in C must not leak) */
    int beta_one;   /* beta = 1: C is added, not multiplied ((1,0) x Inf would make a NaN) */
};

template <typename T> static inline bool tsk_host_is_zero(const T *v);
template <> inline bool tsk_host_is_zero<float>(const float *v) { return *v == 0.0f; }
template <> inline bool tsk_host_is_zero<double>(const double *v) { return *v == 0.0; }
template <> inline bool tsk_host_is_zero<float2>(const float2 *v) { return v->x == 0.0f && v->y == 0.0f; }
template <> inline bool tsk_host_is_zero<double2>(const double2 *v) { return v->x == 0.0 && v->y == 0.0; }

template <typename T> static inline tsk_scalars<T> tsk_scalars_of(const ts_call *call)
{
    tsk_scalars<T> s;
    /* The caller's scalars need only the alignment of their real parts:
     * copy them, a double2 load would fault on an 8-byte-aligned one. */
    memcpy(&s.alpha, call->alpha, sizeof s.alpha);
    memcpy(&s.beta, call->beta, sizeof s.beta);
    s.alpha_zero = tsk_host_is_zero<T>(&s.alpha);
    s.beta_zero = tsk_host_is_zero<T>(&s.beta);
    s.beta_one = call->beta_one;
    return s;
}

/* The BLAS value of one C element from the accumulated op(A) op(B) value
 * and C's old value at c_old, which beta = 0 never reads. */
template <typename T>
__device__ __forceinline__ T tsk_updated(const T *c_old, T acc, const tsk_scalars<T> &s)
{
    return s.beta_zero  ? tsk_mul(s.alpha, acc)
           : s.beta_one ? tsk_add(tsk_mul(s.alpha, acc), *c_old)
                        : tsk_fma(s.alpha, acc, tsk_mul(s.beta, *c_old));
}

/* The BLAS update of one C element in place. */
template <typename T>
__device__ __forceinline__ void tsk_update(T *c, T acc, const tsk_scalars<T> &s)
{
    *c = tsk_updated(c, acc, s);
}

/* C = beta C over an m x n matrix: the whole GEMM when alpha = 0, where
 * BLAS reads neither A nor B (and beta = 0 writes zeros without reading C). */
template <typename T>
__global__ void tsk_scale_c_kernel(T *c, int64_t ldc, int64_t m, int64_t n, tsk_scalars<T> s)
{
    int64_t total = m * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = e % m, j = e / m;
        T *p = c + i + j * ldc;
        *p = s.beta_zero ? tsk_zero<T>() : tsk_mul(s.beta, *p);
    }
}

template <typename T>
static inline cudaError_t tsk_scale_c(const ts_call *call, T *c, int64_t ldc, cudaStream_t stream)
{
    tsk_scalars<T> s = tsk_scalars_of<T>(call);
    int64_t total = call->m * call->n;
    int64_t blocks = (total + 255) / 256;
    if (blocks > 4096)
        blocks = 4096;
    tsk_scale_c_kernel<T><<<(unsigned)blocks, 256, 0, stream>>>(c, ldc, call->m, call->n, s);
    return cudaGetLastError();
}

/* C = alpha (sum of nparts partial results) + beta C, for kernels that split
 * a call's sum over blocks.  Partial b holds rows x cols values, row index
 * fastest; C(i, j) is at c[i * c_si + j * c_sj].  A block owns 32 elements;
 * its 8 warps each add every 8th partial, then one warp adds the 8 sums:
 * a fixed order for a given nparts, so results are deterministic. */
template <typename T>
__global__ void __launch_bounds__(256) tsk_sum_partials_kernel(const T *ws, int nparts, int64_t rows, int64_t cols,
                                                               T *c, int64_t c_si, int64_t c_sj, tsk_scalars<T> s)
{
    __shared__ T part[8][32];
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    const int64_t total = rows * cols;
    const int64_t e = blockIdx.x * (int64_t)32 + lane;
    T sum = tsk_zero<T>();
    if (e < total) {
#pragma unroll 4
        for (int b = w; b < nparts; b += 8)
            sum = tsk_add(sum, ws[(int64_t)b * total + e]);
    }
    part[w][lane] = sum;
    __syncthreads();
    if (w == 0 && e < total) {
        for (int q = 1; q < 8; ++q)
            sum = tsk_add(sum, part[q][lane]);
        tsk_update(c + e % rows * c_si + e / rows * c_sj, sum, s);
    }
}

template <typename T>
static inline cudaError_t tsk_sum_partials(const T *ws, int nparts, int64_t rows, int64_t cols, T *c, int64_t c_si,
                                           int64_t c_sj, const tsk_scalars<T> &s, cudaStream_t stream)
{
    int64_t blocks = (rows * cols + 31) / 32;
    tsk_sum_partials_kernel<T><<<(unsigned)blocks, 256, 0, stream>>>(ws, nparts, rows, cols, c, c_si, c_sj, s);
    return cudaGetLastError();
}

#endif
