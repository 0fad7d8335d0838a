/* Gram matrices in double, G = X X^T for a skinny X (m <= W rows, k long
 * columns, element (i, kk) at x[i si + kk sk]), straight from memory into
 * the FP64 tensor cores: the aliased TSMTTSM call of a SYRK (tsk_aliased).
 *
 * The staged kernel (tsmttsm_dmma_gemm.cu) copies every chunk into shared
 * memory and reads it back into DMMA fragments; on a Gram call it stayed
 * short of the memory bound (docs/performance.md, SYRK and TRSM on device
 * data).  Here each lane loads its fragment of X from memory itself.  k is
 * a sum index, so any order of k serves if both sides of a product use the
 * same one: lane (g, t)'s fragment slot for k-step t + 4 j holds row
 * 4 t + j of a 16-row step, so a lane's four values of a row of X are
 * consecutive (two 16-byte loads where k is the unit stride), and a warp
 * reads whole 128-byte lines.  The B side of a product is a slice of the
 * same fragment (X's rows 8 q to 8 q + 7 are rows g + 8 h of its 16-row
 * block q / 2), so each value is loaded once.  Only the tiles that hold an
 * upper-triangle element are multiplied; the partial writes both
 * triangles.
 *
 * A warp takes groups of U 16-row steps in turn over the resident grid
 * (warp w takes groups w, w + warps, ...), all of a group's loads issued
 * before its DMMAs; the block's warps add their tiles in shared memory in
 * warp order, the block writes one partial G, and tsk_sum_partials adds the
 * partials in block order (bitwise reproducible for a given grid). */
#include "tsk_dmma.cuh"
#include "tsk_gram.h"
#include "tsk_view.cuh"

namespace {

template <int W> struct gram_shape {
    static const int NB = W >= 16 ? W / 16 : 1; /* 16-row blocks of X (DMMA row pairs) */
    static const int NQ = W / 8;                /* 8-row slices of X (DMMA column tiles) */
    /* 16-row steps a group loads at once: about 8 KB of X in flight per warp. */
    static const int U = W == 8 ? 8 : W == 16 ? 4 : 2;
};

struct gram_args {
    const double *x;
    int64_t si, sk, k;
    int m;
    bool vec; /* 16-byte loads along k: sk == 1, x and si keep them aligned */
    double *ws;
};

/* Lane (g, t)'s values of X rows r = 16 b + g + 8 h at rows kk0 + 4 t + j
 * (j = 0..3) of k into f[2 j + h]; rows past m and steps past k read 0.
 * FULL: all 16 steps' rows lie below k. */
template <int W, bool FULL>
__device__ __forceinline__ void gram_load(double (&f)[gram_shape<W>::NB][8], const gram_args &p, int64_t kk0, int g,
                                          int t)
{
    typedef gram_shape<W> S;
    const int64_t kk = kk0 + 4 * t;
#pragma unroll
    for (int b = 0; b < S::NB; b++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int r = 16 * b + g + 8 * h;
            const bool live = (W > 8 || h == 0) && r < p.m;
            const double *x = p.x + r * p.si + kk * p.sk;
            if (FULL && p.vec) {
                double2 lo = make_double2(0.0, 0.0), hi = lo;
                if (live) {
                    lo = __ldcs(reinterpret_cast<const double2 *>(x));
                    hi = __ldcs(reinterpret_cast<const double2 *>(x) + 1);
                }
                f[b][h] = lo.x;
                f[b][2 + h] = lo.y;
                f[b][4 + h] = hi.x;
                f[b][6 + h] = hi.y;
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    f[b][2 * j + h] = live && (FULL || kk + j < p.k) ? __ldcs(x + j * p.sk) : 0.0;
            }
        }
}

/* acc[b][q] += the products of one 16-row step's fragments: the tiles of G
 * rows 16 b.., columns 8 q.. that hold upper-triangle elements (q >= 2 b)
 * and columns below m. */
template <int W>
__device__ __forceinline__ void gram_step(dmma_tile<double> (&acc)[gram_shape<W>::NB][gram_shape<W>::NQ],
                                          const double (&f)[gram_shape<W>::NB][8], int m)
{
    typedef gram_shape<W> S;
#pragma unroll
    for (int q = 0; q < S::NQ; q++) {
        if (8 * q >= m)
            continue;
        double bq[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            bq[j] = f[q / 2][2 * j + q % 2];
#pragma unroll
        for (int b = 0; b < S::NB; b++)
            if (q >= 2 * b)
                acc[b][q].mma<4>(f[b], bq);
    }
}

template <int W> __global__ void __launch_bounds__(256) gram_dmma_kernel(gram_args p)
{
    typedef gram_shape<W> S;
    const int U = S::U;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, warp = threadIdx.x / 32;
    const int wpb = blockDim.x / 32;
    const int64_t warps = (int64_t)gridDim.x * wpb, me = (int64_t)blockIdx.x * wpb + warp;
    const int64_t rows = 16 * U, full = p.k / rows; /* groups wholly below k */
    const int64_t groups = (p.k + rows - 1) / rows;

    dmma_tile<double> acc[S::NB][S::NQ];
#pragma unroll
    for (int b = 0; b < S::NB; b++)
#pragma unroll
        for (int q = 0; q < S::NQ; q++)
            acc[b][q].zero();
    for (int64_t grp = me; grp < groups; grp += warps) {
        double f[U][S::NB][8];
        if (grp < full) {
#pragma unroll
            for (int u = 0; u < U; u++)
                gram_load<W, true>(f[u], p, grp * rows + 16 * u, g, t);
        } else {
#pragma unroll
            for (int u = 0; u < U; u++)
                gram_load<W, false>(f[u], p, grp * rows + 16 * u, g, t);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            gram_step<W>(acc, f[u], p.m);
    }

    /* The warps add their tiles in warp order into red (upper triangle, W
     * x W), then the block writes both triangles of its partial. */
    __shared__ double red[W * W];
    for (int turn = 0; turn < wpb; turn++) {
        if (warp == turn) {
#pragma unroll
            for (int b = 0; b < S::NB; b++)
#pragma unroll
                for (int q = 0; q < S::NQ; q++)
#pragma unroll
                    for (int x = 0; x < 4; x++) {
                        const int i = 16 * b + g + 8 * (x / 2), j = 8 * q + 2 * t + x % 2;
                        if (q >= 2 * b && i < W && i <= j) {
                            double *r = red + i + j * W;
                            *r = turn == 0 ? acc[b][q].at(x) : *r + acc[b][q].at(x);
                        }
                    }
        }
        __syncthreads();
    }
    const int m = p.m;
    double *out = p.ws + (int64_t)blockIdx.x * m * m;
    for (int e = threadIdx.x; e < m * m; e += blockDim.x) {
        const int i = e % m, j = e / m;
        out[e] = i <= j ? red[i + j * W] : red[j + i * W];
    }
}

} /* namespace */

template <int W>
tsk_status tsk_gram_dmma(const ts_call *call, const tsk_operands *ops, cudaStream_t stream, const tsk_params *params)
{
    static const bool built = dmma_built(gram_dmma_kernel<W>);
    if (!built)
        return TSK_DECLINED;
    const int threads = tsk_threads_or(params, 256);
    if (threads > 256 || threads % 32)
        return TSK_DECLINED;
    const bool kfast = call->transa != 'N'; /* op(A) = A^T: X's rows are A's columns */
    gram_args p;
    p.x = (const double *)ops->a;
    p.si = kfast ? ops->lda : 1;
    p.sk = kfast ? 1 : ops->lda;
    p.k = call->k;
    p.m = (int)call->m;
    p.vec = kfast && (uintptr_t)p.x % 16 == 0 && (p.m == 1 || p.si % 2 == 0);
    p.ws = NULL;
    const int resident = tsk_resident_blocks<gram_dmma_kernel<W>>(threads, 0);
    if (resident < 1)
        return TSK_ERROR;
    int bps = tsk_blocks_per_sm_or(params, resident);
    if (bps > resident)
        bps = resident;
    const int64_t groups = (call->k + 16 * gram_shape<W>::U - 1) / (16 * gram_shape<W>::U);
    const int64_t grid = tsk_persistent_grid(groups, threads / 32, bps);
    return tsk_run_parts<double>(grid, false, call->m, call->m, (double *)ops->c, 1, ops->ldc,
                                 tsk_scalars_of<double>(call), stream, [&](double *ws) {
                                     p.ws = ws;
                                     gram_dmma_kernel<W><<<(unsigned)grid, threads, 0, stream>>>(p);
                                     return cudaGetLastError();
                                 });
}

template tsk_status tsk_gram_dmma<8>(const ts_call *, const tsk_operands *, cudaStream_t, const tsk_params *);
template tsk_status tsk_gram_dmma<16>(const ts_call *, const tsk_operands *, cudaStream_t, const tsk_params *);
template tsk_status tsk_gram_dmma<32>(const ts_call *, const tsk_operands *, cudaStream_t, const tsk_params *);
