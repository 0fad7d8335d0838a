#include "scale_matrix.h"

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
    scale<T><<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
        call->m, call->n, *static_cast<const T *>(call->beta), call->beta_zero, static_cast<T *>(c), ldc);
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
