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

/* HERK's real scalars scale each part of a complex value; the diagonal is real. */
__device__ __forceinline__ float scale_parts(float v, float s) { return v * s; }
__device__ __forceinline__ double scale_parts(double v, double s) { return v * s; }
__device__ __forceinline__ float2 scale_parts(float2 v, float2 s) { return make_float2(v.x * s.x, v.y * s.x); }
__device__ __forceinline__ double2 scale_parts(double2 v, double2 s) { return make_double2(v.x * s.x, v.y * s.x); }
__device__ __forceinline__ float real_part(float v) { return v; }
__device__ __forceinline__ double real_part(double v) { return v; }
__device__ __forceinline__ float2 real_part(float2 v) { return make_float2(v.x, 0.0f); }
__device__ __forceinline__ double2 real_part(double2 v) { return make_double2(v.x, 0.0); }

template <typename T>
__global__ void triangle_update(const T *g, int64_t ldg, T *c, int64_t ldc, int64_t n, bool upper, bool herk,
                                tsk_scalars<T> s)
{
    const int64_t total = n * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = e % n, j = e / n;
        if (upper ? i > j : i < j)
            continue;
        T *p = c + i + j * ldc;
        T gv = g[i + j * ldg];
        if (!herk) {
            tsk_update(p, gv, s);
            continue;
        }
        T r = scale_parts(gv, s.alpha);
        if (!s.beta_zero)
            r = tsk_add(r, scale_parts(*p, s.beta));
        *p = i == j ? real_part(r) : r;
    }
}

template <typename T>
cudaError_t launch_triangle(const ts_call *call, const void *g, int64_t ldg, void *c, int64_t ldc, cudaStream_t stream)
{
    const int64_t blocks = (call->n * call->n + 255) / 256;
    triangle_update<T><<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
        static_cast<const T *>(g), ldg, static_cast<T *>(c), ldc, call->n, call->uplo == 'U',
        ts_routine_args(call->routine) == TS_ARGS_HERK, tsk_scalars_of<T>(call));
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t ts_triangle_update(const ts_call *call, const void *g, int64_t ldg, void *c, int64_t ldc,
                                          cudaStream_t stream)
{
    switch (call->prec) {
    case TS_S: return launch_triangle<float>(call, g, ldg, c, ldc, stream);
    case TS_D: return launch_triangle<double>(call, g, ldg, c, ldc, stream);
    case TS_C: return launch_triangle<float2>(call, g, ldg, c, ldc, stream);
    default: return launch_triangle<double2>(call, g, ldg, c, ldc, stream);
    }
}

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
