#include "c_update.h"

#include "tsk_complex.cuh"

namespace {

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
    /* The tuned kernels' own alpha = 0 path serves every call. */
    switch (call->prec) {
    case TS_S: return tsk_scale_c(call, static_cast<float *>(c), ldc, stream);
    case TS_D: return tsk_scale_c(call, static_cast<double *>(c), ldc, stream);
    case TS_C: return tsk_scale_c(call, static_cast<float2 *>(c), ldc, stream);
    default: return tsk_scale_c(call, static_cast<double2 *>(c), ldc, stream);
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
