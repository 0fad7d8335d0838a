#include "small_gemm.h"

#include "tsk_complex.cuh"

namespace {

/* Square tiles of C per block; k is walked in steps of the same size. */
const int TILE = 16;

/* k up to which one block's walk over k stays a few microseconds. */
const int64_t MAX_K = 256;

/* op(X)(row, col) of a matrix X stored column-major with leading dimension ld. */
template <typename T>
__device__ __forceinline__ T op_at(const T *x, int64_t ld, char trans, int64_t row, int64_t col)
{
    return trans == 'N' ? x[row + col * ld] : tsk_conj(x[col + row * ld], trans == 'C');
}

template <typename T>
__global__ void __launch_bounds__(TILE *TILE)
    small_gemm(int64_t m, int64_t n, int64_t k, char ta, const T *a, int64_t lda, char tb, const T *b, int64_t ldb,
               const T *c_old, int64_t ld_old, T *c, int64_t ldc, tsk_scalars<T> s)
{
    __shared__ T as[TILE][TILE + 1], bs[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t i = blockIdx.x * (int64_t)TILE + tx, j = blockIdx.y * (int64_t)TILE + ty;
    /* The thread that loads op(B)(l, jb) is not the one that uses it. */
    const int64_t jb = blockIdx.y * (int64_t)TILE + tx;
    T acc = tsk_zero<T>();
    for (int64_t l0 = 0; l0 < k; l0 += TILE) {
        as[ty][tx] = i < m && l0 + ty < k ? op_at(a, lda, ta, i, l0 + ty) : tsk_zero<T>();
        bs[tx][ty] = l0 + ty < k && jb < n ? op_at(b, ldb, tb, l0 + ty, jb) : tsk_zero<T>();
        __syncthreads();
#pragma unroll
        for (int q = 0; q < TILE; q++)
            acc = tsk_fma(as[q][tx], bs[ty][q], acc);
        __syncthreads();
    }
    if (i < m && j < n)
        c[i + j * ldc] = tsk_updated(c_old + i + j * ld_old, acc, s);
}

template <typename T>
cudaError_t launch(const ts_call *call, const tsk_operands *ops, const void *c_old, int64_t ld_old,
                   cudaStream_t stream)
{
    const dim3 grid((unsigned)((call->m + TILE - 1) / TILE), (unsigned)((call->n + TILE - 1) / TILE));
    small_gemm<T><<<grid, dim3(TILE, TILE), 0, stream>>>(
        call->m, call->n, call->k, call->transa, static_cast<const T *>(ops->a), ops->lda, call->transb,
        static_cast<const T *>(ops->b), ops->ldb, static_cast<const T *>(c_old), ld_old, static_cast<T *>(ops->c),
        ops->ldc, tsk_scalars_of<T>(call));
    return cudaGetLastError();
}

} // namespace

extern "C" int tsk_small_gemm_fits(const ts_call *call)
{
    /* Grid dimensions: y is limited to 65535 blocks. */
    return ts_call_reads_ab(call) && call->k <= MAX_K && call->n <= (int64_t)65535 * TILE;
}

extern "C" cudaError_t tsk_small_gemm(const ts_call *call, const tsk_operands *ops, const void *c_old,
                                      int64_t ld_old, cudaStream_t stream)
{
    switch (call->prec) {
    case TS_S: return launch<float>(call, ops, c_old, ld_old, stream);
    case TS_D: return launch<double>(call, ops, c_old, ld_old, stream);
    case TS_C: return launch<float2>(call, ops, c_old, ld_old, stream);
    default: return launch<double2>(call, ops, c_old, ld_old, stream);
    }
}
