/* TSM2: C = alpha P Q + beta C with P long x long (nl x nk) and Q nk x nw,
 * nw <= W (see tsk_view.cuh for P, Q and the mirror).  A block covers all
 * nw columns of its rows, so P, the only large operand, is read exactly
 * once; Q streams through shared memory in double-buffered k tiles
 * (cp.async), and the next tile of P is loaded into registers while the
 * current one is multiplied (leap frogging).
 *
 * Two thread mappings, chosen by which stride of P is 1:
 *  - rows unit (A 'N'): lane = row, warps split each k tile; the warps'
 *    partial sums meet in shared memory at the end (a fixed order, so the
 *    result is deterministic);
 *  - k unit (A 'T'/'C'): warps own rows, lanes read 32 consecutive k values
 *    (coalesced); a warp butterfly sums the lanes at the end. */
#include <cuda_pipeline_primitives.h>
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 tsm2_smem[];

/* Loads of P in flight per thread (KU steps of R rows): about 128 bytes,
 * enough with a few hundred threads per SM to cover the memory latency;
 * within [LO, HI] and at most SMEM_CAP (the Q tile grows with KU). */
template <typename T, int R, int LO, int HI, int SMEM_CAP> struct tsm2_depth {
    static const int want = 128 / (R * (int)sizeof(T));
    static const int clamped = want < LO ? LO : (want > HI ? HI : want);
    static const int value = clamped > SMEM_CAP ? (SMEM_CAP < 1 ? 1 : SMEM_CAP) : clamped;
};

/* Copies the tk x W tile of Q at kk0 into shared memory, zeros outside Q
 * (k tail, j >= nw) so the multiply needs no masks.  K_FAST: qs[j * tk + kk]
 * (lanes read consecutive k, conflict-free); otherwise qs[kk * W + j] (a warp
 * reads one row of W, broadcast and vectorisable). */
template <typename T, int W, bool K_FAST>
__device__ __forceinline__ void tsm2_stage_q(T *qs, int tk, const tsk_view &v, int64_t kk0)
{
    const T *q = (const T *)v.q;
    bool k_unit = v.q_sk == 1;
    for (int e = threadIdx.x; e < tk * W; e += blockDim.x) {
        int kl = k_unit ? e % tk : e / W;
        int j = k_unit ? e / tk : e % W;
        int64_t kk = kk0 + kl;
        T *dst = K_FAST ? qs + j * tk + kl : qs + kl * W + j;
        if (kk < v.nk && j < v.nw)
            __pipeline_memcpy_async(dst, q + kk * v.q_sk + j * v.q_sj, sizeof(T));
        else
            *dst = tsk_zero<T>();
    }
    __pipeline_commit();
}

/* Rows-unit mapping: thread (lane, warp) owns rows row0 + r * 32 + lane and
 * k values tile + warp * KU + u. */
template <typename T, int W, int R, int KU>
__device__ __forceinline__ void tsm2_li_load(T (&a)[R][KU], const tsk_view &v, int64_t row0, int64_t kk0)
{
    const T *p = (const T *)v.p;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int u = 0; u < KU; u++) {
        int64_t kk = kk0 + warp * KU + u;
#pragma unroll
        for (int r = 0; r < R; r++) {
            int64_t i = row0 + r * 32 + lane;
            a[r][u] = i < v.nl && kk < v.nk ? tsk_conj(__ldcs(p + i + kk * v.p_sk), v.p_conj) : tsk_zero<T>();
        }
    }
}

template <typename T, int W, int R, int KU>
__global__ void __launch_bounds__(tsk_max_threads<T, W>::value) tsm2_rows_unit(tsk_view v, tsk_scalars<T> s)
{
    T *qs = reinterpret_cast<T *>(tsm2_smem);
    const int nwarp = blockDim.x >> 5, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int tk = nwarp * KU;
    const int64_t row0 = blockIdx.x * (int64_t)(32 * R);
    const int64_t ntile = (v.nk + tk - 1) / tk;

    T acc[R][W], a[R][KU];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int j = 0; j < W; j++)
            acc[r][j] = tsk_zero<T>();

    tsm2_stage_q<T, W, false>(qs, tk, v, 0);
    tsm2_li_load<T, W, R, KU>(a, v, row0, 0);
    for (int64_t t = 0; t < ntile; t++) {
        const T *cur = qs + (t & 1) * tk * W;
        T an[R][KU];
        if (t + 1 < ntile) {
            tsm2_stage_q<T, W, false>(qs + ((t + 1) & 1) * tk * W, tk, v, (t + 1) * tk);
            tsm2_li_load<T, W, R, KU>(an, v, row0, (t + 1) * tk);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < KU; u++)
#pragma unroll
            for (int j = 0; j < W; j++) {
                T b = tsk_conj(cur[(warp * KU + u) * W + j], v.q_conj);
#pragma unroll
                for (int r = 0; r < R; r++)
                    acc[r][j] = tsk_fma(a[r][u], b, acc[r][j]);
            }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int u = 0; u < KU; u++)
                a[r][u] = an[r][u];
    }

    /* Sum the warps' partials in warp order: red[j][row in block]. */
    T *red = qs;
    for (int w2 = 0; w2 < nwarp; w2++) {
        if (warp == w2)
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int j = 0; j < W; j++) {
                    T *x = red + j * (32 * R) + r * 32 + lane;
                    *x = w2 ? tsk_add(*x, acc[r][j]) : acc[r][j];
                }
        __syncthreads();
    }
    T *c = (T *)v.c;
    bool i_unit = v.c_si == 1;
    for (int e = threadIdx.x; e < 32 * R * W; e += blockDim.x) {
        int rl = i_unit ? e % (32 * R) : e / W;
        int j = i_unit ? e / (32 * R) : e % W;
        int64_t i = row0 + rl;
        if (i < v.nl && j < v.nw)
            tsk_update(c + i * v.c_si + j * v.c_sj, red[j * (32 * R) + rl], s);
    }
}

/* K-unit mapping: warp w owns rows row0 + w * R + r; lane reads k values
 * tile + u * 32 + lane. */
template <typename T, int W, int R, int KU>
__device__ __forceinline__ void tsm2_lk_load(T (&a)[R][KU], const tsk_view &v, int64_t row0, int64_t kk0)
{
    const T *p = (const T *)v.p;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int u = 0; u < KU; u++) {
        int64_t kk = kk0 + u * 32 + lane;
#pragma unroll
        for (int r = 0; r < R; r++) {
            int64_t i = row0 + warp * R + r;
            a[r][u] = i < v.nl && kk < v.nk ? tsk_conj(__ldcs(p + i * v.p_si + kk), v.p_conj) : tsk_zero<T>();
        }
    }
}

template <typename T, int W, int R, int KU>
__global__ void __launch_bounds__(tsk_max_threads<T, W>::value) tsm2_k_unit(tsk_view v, tsk_scalars<T> s)
{
    T *qs = reinterpret_cast<T *>(tsm2_smem);
    const int nwarp = blockDim.x >> 5, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int tk = 32 * KU;
    const int64_t row0 = blockIdx.x * (int64_t)(nwarp * R);
    const int64_t ntile = (v.nk + tk - 1) / tk;

    T acc[R][W], a[R][KU];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int j = 0; j < W; j++)
            acc[r][j] = tsk_zero<T>();

    tsm2_stage_q<T, W, true>(qs, tk, v, 0);
    tsm2_lk_load<T, W, R, KU>(a, v, row0, 0);
    for (int64_t t = 0; t < ntile; t++) {
        const T *cur = qs + (t & 1) * tk * W;
        T an[R][KU];
        if (t + 1 < ntile) {
            tsm2_stage_q<T, W, true>(qs + ((t + 1) & 1) * tk * W, tk, v, (t + 1) * tk);
            tsm2_lk_load<T, W, R, KU>(an, v, row0, (t + 1) * tk);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < KU; u++)
#pragma unroll
            for (int j = 0; j < W; j++) {
                T b = tsk_conj(cur[j * tk + u * 32 + lane], v.q_conj);
#pragma unroll
                for (int r = 0; r < R; r++)
                    acc[r][j] = tsk_fma(a[r][u], b, acc[r][j]);
            }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int u = 0; u < KU; u++)
                a[r][u] = an[r][u];
    }

    T *c = (T *)v.c;
#pragma unroll
    for (int r = 0; r < R; r++) {
        int64_t i = row0 + warp * R + r;
#pragma unroll
        for (int j = 0; j < W; j++) {
            T sum = tsk_warp_sum(acc[r][j]);
            if (lane == (j & 31) && i < v.nl && j < v.nw)
                tsk_update(c + i * v.c_si + j * v.c_sj, sum, s);
        }
    }
}

template <typename T, int W>
static tsk_status tsm2_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                              const tsk_params *params)
{
    if (call->cls != TS_CLASS_TSM2)
        return TSK_DECLINED;
    tsk_view v = tsk_view_of(call, ops);
    if (v.nw > W || !tsk_aligned(ops, sizeof(T)))
        return TSK_DECLINED;
    tsk_scalars<T> s = tsk_scalars_of<T>(call);
    if (s.alpha_zero)
        return tsk_status_of(tsk_scale_c<T>(call, (T *)ops->c, ops->ldc, stream));
    int threads = params && params->threads ? params->threads : 256;
    if (threads % 32 || threads > tsk_max_threads<T, W>::value)
        return TSK_DECLINED;
    const int nwarp = threads / 32;
    cudaError_t e;
    if (v.p_si == 1) {
        const int R = tsk_fit<T, W, 2>::value, KU = tsm2_depth<T, R, 4, 16, 1 << 30>::value;
        size_t tile = 2 * (size_t)nwarp * KU * W, red = 32 * R * W;
        size_t smem = (tile > red ? tile : red) * sizeof(T);
        int64_t blocks = (v.nl + 32 * R - 1) / (32 * R);
        e = tsk_allow_smem(tsm2_rows_unit<T, W, R, KU>, smem);
        if (e == cudaSuccess) {
            tsm2_rows_unit<T, W, R, KU><<<(unsigned)blocks, threads, smem, stream>>>(v, s);
            e = cudaGetLastError();
        }
    } else if (v.p_sk == 1) {
        const int R = tsk_fit<T, W, 4>::value, KU = tsm2_depth<T, R, 1, 8, 1024 / (W * sizeof(T))>::value;
        size_t smem = 2 * (size_t)32 * KU * W * sizeof(T);
        int64_t blocks = (v.nl + nwarp * R - 1) / (nwarp * R);
        e = tsk_allow_smem(tsm2_k_unit<T, W, R, KU>, smem);
        if (e == cudaSuccess) {
            tsm2_k_unit<T, W, R, KU><<<(unsigned)blocks, threads, smem, stream>>>(v, s);
            e = cudaGetLastError();
        }
    } else {
        return TSK_DECLINED;
    }
    return tsk_status_of(e);
}

} /* namespace */

#define TSM2_ENTRY(p, P, T, W, LO) { "tsm2_" #p "_w" #W, TS_CLASS_TSM2, P, '*', '*', LO, W, tsm2_launch<T, W> },
#define TSM2_UPTO32(p, P, T) \
    TSM2_ENTRY(p, P, T, 1, 1) TSM2_ENTRY(p, P, T, 2, 2) TSM2_ENTRY(p, P, T, 4, 3) \
    TSM2_ENTRY(p, P, T, 8, 5) TSM2_ENTRY(p, P, T, 16, 9) TSM2_ENTRY(p, P, T, 32, 17)

/* Width 64 in complex double would need 256 accumulator registers: cuBLAS. */
const tsk_instance tsk_tsm2_instances[] = {
    TSM2_UPTO32(s, TS_S, float) TSM2_ENTRY(s, TS_S, float, 64, 33)
    TSM2_UPTO32(d, TS_D, double) TSM2_ENTRY(d, TS_D, double, 64, 33)
    TSM2_UPTO32(c, TS_C, float2) TSM2_ENTRY(c, TS_C, float2, 64, 33)
    TSM2_UPTO32(z, TS_Z, double2)
};
const size_t tsk_tsm2_ninstances = sizeof tsk_tsm2_instances / sizeof tsk_tsm2_instances[0];
