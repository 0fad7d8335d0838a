#include "c_update.h"

#include <string.h>

#include <cuComplex.h>

namespace {

__device__ float mul(float b, float c) { return b * c; }
__device__ double mul(double b, double c) { return b * c; }
__device__ cuFloatComplex mul(cuFloatComplex b, cuFloatComplex c) { return cuCmulf(b, c); }
__device__ cuDoubleComplex mul(cuDoubleComplex b, cuDoubleComplex c) { return cuCmul(b, c); }

template <typename T>
__global__ void scale(int64_t m, int64_t n, T beta, bool zero, T *c, int64_t ldc)
{
    const int64_t total = m * n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        T *p = c + (i % m) + (i / m) * ldc;
        *p = zero ? T{} : mul(beta, *p);
    }
}

template <typename T>
cudaError_t launch(const ts_call *call, void *c, int64_t ldc, cudaStream_t stream)
{
    const int64_t blocks = (call->m * call->n + 255) / 256;
    T beta; /* copied: the caller's complex scalar may be only 8-byte aligned */
    memcpy(&beta, call->beta, sizeof beta);
    scale<T><<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
        call->m, call->n, beta, call->beta_zero, static_cast<T *>(c), ldc);
    return cudaGetLastError();
}

/* Complex matrices are added as real ones with twice the rows. */
template <typename R>
__global__ void add(int64_t rows, int64_t n, const R *x, int64_t ldx, R *c, int64_t ldc)
{
    const int64_t total = rows * n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x)
        c[(i % rows) + (i / rows) * ldc] += x[(i % rows) + (i / rows) * ldx];
}

template <typename R>
cudaError_t launch_add(int64_t rows, int64_t n, const void *x, int64_t ldx, void *c, int64_t ldc,
                       cudaStream_t stream)
{
    const int64_t blocks = (rows * n + 255) / 256;
    add<R><<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
        rows, n, static_cast<const R *>(x), ldx, static_cast<R *>(c), ldc);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t ts_scale_matrix(const ts_call *call, void *c, int64_t ldc, cudaStream_t stream)
{
    switch (call->prec) {
    case TS_S: return launch<float>(call, c, ldc, stream);
    case TS_D: return launch<double>(call, c, ldc, stream);
    case TS_C: return launch<cuFloatComplex>(call, c, ldc, stream);
    default: return launch<cuDoubleComplex>(call, c, ldc, stream);
    }
}

extern "C" cudaError_t ts_add_matrix(const ts_call *call, const void *x, int64_t ldx, void *c, int64_t ldc,
                                     cudaStream_t stream)
{
    const int64_t parts = ts_prec_is_complex(call->prec) ? 2 : 1;
    if (call->prec == TS_S || call->prec == TS_C)
        return launch_add<float>(parts * call->m, call->n, x, parts * ldx, c, parts * ldc, stream);
    return launch_add<double>(parts * call->m, call->n, x, parts * ldx, c, parts * ldc, stream);
}
