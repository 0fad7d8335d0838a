/* TSM2: C = alpha P Q + beta C with P long x long (nl x nk) and Q nk x nw,
 * nw <= W (see tsk_view.cuh for P, Q and the mirror).  A block covers all
 * nw columns of its rows, so P, the only large operand, is read exactly
 * once; Q streams through shared memory in double-buffered k pieces
 * (cp.async), and the next piece of P is loaded into registers while the
 * current one is multiplied (leap frogging).
 *
 * Two thread mappings, chosen by which stride of P is 1:
 *  - rows unit (A 'N'): lane = row; the warps of a block take turns over
 *    k, each with its own buffers of Q (no block barrier in the loop), and
 *    their partial sums meet in shared memory at the end in warp order;
 *    when the rows alone give too few blocks to fill the GPU, k is split
 *    over blocks as well and tsk_sum_partials adds the ranges in order
 *    (results stay deterministic);
 *  - k unit (A 'T'/'C'): warps own rows, each lane reads a 16-byte vector of
 *    consecutive k values (coalesced); a warp butterfly sums the lanes at
 *    the end.
 * Q is read from shared memory in 16-byte vectors: one load feeds R rows
 * times the vector's elements of multiply-adds, so shared-memory issue does
 * not bound the wide cells. */
#include <cuda_pipeline_primitives.h>
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 tsm2_smem[];

/* Elements of T in one 16-byte vector, at most W (a narrower row of Q is
 * read whole). */
template <typename T, int W> struct tsm2_vec {
    static const int full = 16 / (int)sizeof(T);
    static const int value = W < full ? W : full;
};

template <int BYTES> struct tsm2_raw;
template <> struct tsm2_raw<4> { typedef unsigned int type; };
template <> struct tsm2_raw<8> { typedef uint2 type; };
template <> struct tsm2_raw<16> { typedef uint4 type; };

/* N consecutive elements at p, aligned to their total size, in one load:
 * from shared memory, or streamed from global memory (read once). */
template <typename T, int N> __device__ __forceinline__ void tsm2_ld_shared(T (&x)[N], const T *p)
{
    typedef typename tsm2_raw<N * sizeof(T)>::type raw;
    raw r = *reinterpret_cast<const raw *>(p);
    memcpy(x, &r, sizeof r);
}

template <typename T, int N> __device__ __forceinline__ void tsm2_ld_stream(T (&x)[N], const T *p)
{
    typedef typename tsm2_raw<N * sizeof(T)>::type raw;
    raw r = __ldcs(reinterpret_cast<const raw *>(p));
    memcpy(x, &r, sizeof r);
}

/* Loads of P in flight per thread (KU steps of R rows): about 128 bytes,
 * enough with a few hundred threads per SM to cover the memory latency;
 * within [LO, HI] and at most CAP (the Q tile grows with KU, and the
 * prefetched copy must leave room for the accumulators). */
template <typename T, int R, int LO, int HI, int CAP> struct tsm2_depth {
    static const int want = 128 / (R * (int)sizeof(T));
    static const int clamped = want < LO ? LO : (want > HI ? HI : want);
    static const int value = clamped > CAP ? (CAP < 1 ? 1 : CAP) : clamped;
};

/* K-unit staging: the block copies the TK x W tile of Q at kk0 into shared
 * memory as qs[j * TK + kk] (lanes then read consecutive k, conflict-free),
 * zeros outside Q.  Columns of Q that are contiguous and 16-byte aligned
 * (B 'N' with an aligned ldb) go in 16-byte copies; the k tail and other
 * layouts element by element. */
template <typename T, int W, int TK>
__device__ __forceinline__ void tsm2_stage_block(T *qs, const tsk_view &v, int64_t kk0)
{
    const int VK = tsm2_vec<T, 64>::value;
    const T *q = (const T *)v.q;
    if (v.q_sk == 1 && (uintptr_t)q % 16 == 0 && v.q_sj % VK == 0) {
        for (int e = threadIdx.x; e < TK / VK * W; e += blockDim.x) {
            int kl = e % (TK / VK) * VK, j = e / (TK / VK);
            int64_t kk = kk0 + kl;
            T *dst = qs + j * TK + kl;
            if (j < v.nw && kk + VK <= v.nk) {
                __pipeline_memcpy_async(dst, q + kk + j * v.q_sj, 16);
            } else {
#pragma unroll
                for (int x = 0; x < VK; x++)
                    dst[x] = j < v.nw && kk + x < v.nk ? q[kk + x + j * v.q_sj] : tsk_zero<T>();
            }
        }
    } else {
        const bool k_fast = v.q_sk == 1;
        for (int e = threadIdx.x; e < TK * W; e += blockDim.x) {
            int kl = k_fast ? e % TK : e / W;
            int j = k_fast ? e / TK : e % W;
            int64_t kk = kk0 + kl;
            T *dst = qs + j * TK + kl;
            if (kk < v.nk && j < v.nw)
                __pipeline_memcpy_async(dst, q + kk * v.q_sk + j * v.q_sj, sizeof(T));
            else
                *dst = tsk_zero<T>();
        }
    }
    __pipeline_commit();
}

/* Rows-unit shape: a thread owns R consecutive rows (one 16-byte vector of
 * shared memory) and JW = W / CS columns; CS warps split the columns of the
 * same rows when R W words would pass a 64-register accumulator budget, so
 * every width keeps its tile in registers and each load of Q feeds R rows.
 * A stage holds KU values of k: 2 KB of P per warp of distinct rows. */
template <typename T, int W> struct tsm2_rows_shape {
    static const int R = tsm2_vec<T, 64>::value;
    static const int acc = R * W * tsk_words<T>::value;
    static const int CS = acc > 64 ? acc / 64 : 1;
    static const int JW = W / CS;
    static const int KU = 64 / (R * (int)sizeof(T)) * CS;
    static const int STAGES = 4;
};

/* Rows-unit staging of piece kk0 (KU values of k) into one stage buffer:
 * P rows [row0, row0 + rows) as ps[kl * rows + i] and Q as qs[kl * W + j],
 * all by cp.async, zero-filled outside [.., nl) x [.., kend) x [.., nw).
 * P goes in 16-byte copies when its columns are 16-byte aligned (vec),
 * element by element otherwise. */
template <typename T, int W, int KU>
__device__ __forceinline__ void tsm2_stage_rows(T *ps, T *qs, const tsk_view &v, int64_t row0, int rows,
                                                int64_t kk0, int64_t kend, bool vec)
{
    const T *p = (const T *)v.p, *q = (const T *)v.q;
    const int E = vec ? tsm2_vec<T, 64>::value : 1;
    /* Chunk c = threadIdx.x + n blockDim.x is (kl, il) = divmod(c, per_k):
     * one division per stage, then steps. */
    const int per_k = rows / E, dk = blockDim.x / per_k, di = blockDim.x % per_k;
    for (int kl = threadIdx.x / per_k, ic = threadIdx.x % per_k; kl < KU; kl += dk, ic += di) {
        if (ic >= per_k) {
            ic -= per_k;
            kl++;
            if (kl >= KU)
                break;
        }
        int il = ic * E;
        int64_t i = row0 + il, kk = kk0 + kl;
        int64_t n = kk < kend ? v.nl - i : 0;
        int valid = n <= 0 ? 0 : (n < E ? (int)n : E);
        const T *src = valid ? p + i + kk * v.p_sk : p;
        __pipeline_memcpy_async(ps + kl * rows + il, src, sizeof(T) * E, sizeof(T) * (E - valid));
    }
    const bool k_fast = v.q_sk == 1;
    for (int e = threadIdx.x; e < KU * W; e += blockDim.x) {
        int kl = k_fast ? e % KU : e / W;
        int j = k_fast ? e / KU : e % W;
        int64_t kk = kk0 + kl;
        bool in = kk < kend && j < v.nw;
        __pipeline_memcpy_async(qs + kl * W + j, in ? q + kk * v.q_sk + j * v.q_sj : q, sizeof(T),
                                in ? 0 : sizeof(T));
    }
}

/* Rows-unit mapping (P unit stride along rows).  Warp w owns rows
 * row0 + (w / CS) 32 R + lane R + r and columns (w % CS) JW + j; the block
 * walks its range of k (blockIdx.y: [y kc, y kc + kc)) through a ring of
 * STAGES buffers filled by cp.async, STAGES - 1 pieces ahead, one barrier
 * per piece: the bytes in flight live in shared memory, not in registers.
 * With one range the block updates C; with several it writes its partial
 * sums to ws[y] (rows of the view fastest) for tsk_sum_partials. */
template <typename T, int W>
__global__ void __launch_bounds__(256) tsm2_rows_unit(tsk_view v, tsk_scalars<T> s, T *ws, int64_t kc, bool vec)
{
    typedef tsm2_rows_shape<T, W> sh;
    const int R = sh::R, JW = sh::JW, KU = sh::KU, N = tsm2_vec<T, JW>::value;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows = (blockDim.x >> 5) / sh::CS * 32 * R;
    const int stage = rows * KU + KU * W;
    const int rl = warp / sh::CS * 32 * R + lane * R, j0 = warp % sh::CS * JW;
    T *smem = reinterpret_cast<T *>(tsm2_smem);
    const int64_t row0 = blockIdx.x * (int64_t)rows;
    const int64_t kbeg = blockIdx.y * kc, kend = kbeg + kc < v.nk ? kbeg + kc : v.nk;
    const int64_t npiece = (kend - kbeg + KU - 1) / KU;

    T acc[R][JW];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int j = 0; j < JW; j++)
            acc[r][j] = tsk_zero<T>();

    for (int t = 0; t < sh::STAGES - 1; t++) {
        T *st = smem + t * stage;
        if (t < npiece)
            tsm2_stage_rows<T, W, KU>(st, st + rows * KU, v, row0, rows, kbeg + t * (int64_t)KU, kend, vec);
        __pipeline_commit();
    }
    for (int64_t t = 0; t < npiece; t++) {
        __pipeline_wait_prior(sh::STAGES - 2);
        /* Piece t has landed for every thread, and every warp is done with
         * the buffer the next copy overwrites (piece t - 1's). */
        __syncthreads();
        const int64_t next = t + sh::STAGES - 1;
        if (next < npiece) {
            T *st = smem + next % sh::STAGES * stage;
            tsm2_stage_rows<T, W, KU>(st, st + rows * KU, v, row0, rows, kbeg + next * KU, kend, vec);
        }
        __pipeline_commit();
        const T *ps = smem + t % sh::STAGES * stage, *qs = ps + rows * KU;
#pragma unroll
        for (int u = 0; u < KU; u++) {
            T a[R];
            tsm2_ld_shared<T, R>(a, ps + u * rows + rl);
#pragma unroll
            for (int r = 0; r < R; r++)
                a[r] = tsk_conj(a[r], v.p_conj);
#pragma unroll
            for (int jj = 0; jj < JW; jj += N) {
                T b[N];
                tsm2_ld_shared<T, N>(b, qs + u * W + j0 + jj);
#pragma unroll
                for (int x = 0; x < N; x++) {
                    T q = tsk_conj(b[x], v.q_conj);
#pragma unroll
                    for (int r = 0; r < R; r++)
                        acc[r][jj + x] = tsk_fma(a[r], q, acc[r][jj + x]);
                }
            }
        }
    }

    T *c = (T *)v.c;
#pragma unroll
    for (int j = 0; j < JW; j++)
#pragma unroll
        for (int r = 0; r < R; r++) {
            int64_t i = row0 + rl + r;
            if (i >= v.nl || j0 + j >= v.nw)
                continue;
            if (ws)
                ws[(blockIdx.y * v.nw + j0 + j) * v.nl + i] = acc[r][j];
            else
                tsk_update(c + i * v.c_si + (j0 + j) * v.c_sj, acc[r][j], s);
        }
}

/* K-unit mapping: warp w owns rows row0 + w * R + r; lane reads the VK
 * consecutive k values tile + (u * 32 + lane) * VK as one vector (rows of P
 * start 16-byte aligned, checked at launch); the k tail is read by element. */
template <typename T, int R, int KU, int VK>
__device__ __forceinline__ void tsm2_lk_load(T (&a)[R][KU][VK], const tsk_view &v, int64_t row0, int64_t kk0)
{
    const T *p = (const T *)v.p;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int u = 0; u < KU; u++) {
        int64_t kk = kk0 + (int64_t)(u * 32 + lane) * VK;
#pragma unroll
        for (int r = 0; r < R; r++) {
            int64_t i = row0 + warp * R + r;
            const T *row = p + i * v.p_si;
            if (i < v.nl && kk + VK <= v.nk) {
                tsm2_ld_stream<T, VK>(a[r][u], row + kk);
            } else {
#pragma unroll
                for (int x = 0; x < VK; x++)
                    a[r][u][x] = i < v.nl && kk + x < v.nk ? __ldcs(row + kk + x) : tsk_zero<T>();
            }
#pragma unroll
            for (int x = 0; x < VK; x++)
                a[r][u][x] = tsk_conj(a[r][u][x], v.p_conj);
        }
    }
}

template <typename T, int W, int R, int KU>
__global__ void __launch_bounds__(tsk_max_threads<T, W>::value) tsm2_k_unit(tsk_view v, tsk_scalars<T> s)
{
    T *qs = reinterpret_cast<T *>(tsm2_smem);
    const int VK = tsm2_vec<T, 64>::value;
    const int nwarp = blockDim.x >> 5, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int TK = 32 * KU * VK;
    const int64_t row0 = blockIdx.x * (int64_t)(nwarp * R);
    const int64_t ntile = (v.nk + TK - 1) / TK;

    T acc[R][W], a[R][KU][VK];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int j = 0; j < W; j++)
            acc[r][j] = tsk_zero<T>();

    tsm2_stage_block<T, W, TK>(qs, v, 0);
    tsm2_lk_load<T, R, KU, VK>(a, v, row0, 0);
    for (int64_t t = 0; t < ntile; t++) {
        const T *cur = qs + (t & 1) * TK * W;
        T an[R][KU][VK];
        if (t + 1 < ntile) {
            tsm2_stage_block<T, W, TK>(qs + ((t + 1) & 1) * TK * W, v, (t + 1) * TK);
            tsm2_lk_load<T, R, KU, VK>(an, v, row0, (t + 1) * TK);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < KU; u++)
#pragma unroll
            for (int j = 0; j < W; j++) {
                T b[VK];
                tsm2_ld_shared<T, VK>(b, cur + j * TK + (u * 32 + lane) * VK);
#pragma unroll
                for (int x = 0; x < VK; x++) {
                    T q = tsk_conj(b[x], v.q_conj);
#pragma unroll
                    for (int r = 0; r < R; r++)
                        acc[r][j] = tsk_fma(a[r][u][x], q, acc[r][j]);
                }
            }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int u = 0; u < KU; u++)
#pragma unroll
                for (int x = 0; x < VK; x++)
                    a[r][u][x] = an[r][u][x];
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

/* The length of the k ranges the rows-unit grid is split into: enough
 * blocks for `per_sm` on every SM (a grid of few blocks leaves SMs idle in
 * its last wave), a multiple of a block's `step` (nwarp x KU), and at least
 * four steps per range.  One range when the rows alone fill the device. */
static int64_t tsm2_split_k(int64_t rowblocks, int64_t nk, int64_t step, int per_sm)
{
    int64_t want = ((int64_t)tsk_sm_count() * per_sm + rowblocks - 1) / rowblocks;
    int64_t most = nk / (4 * step);
    int64_t splits = want < most ? want : most;
    if (splits > 16)
        splits = 16;
    if (splits <= 1)
        return nk > 0 ? nk : 1;
    return ((nk + splits - 1) / splits + step - 1) / step * step;
}

template <typename T, int W>
static tsk_status tsm2_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                              const tsk_params *params)
{
    tsk_view v;
    tsk_scalars<T> s;
    tsk_status done;
    if (!tsk_view_begin<T>(call, ops, TS_CLASS_TSM2, W, INT64_MAX, stream, &v, &s, &done))
        return done;
    int threads = params && params->threads ? params->threads : 256;
    if (threads % 32 || threads > tsk_max_threads<T, W>::value)
        return TSK_DECLINED;
    const int nwarp = threads / 32;
    cudaError_t e;
    if (v.p_si == 1) {
        typedef tsm2_rows_shape<T, W> sh;
        if (threads > 256 || nwarp % sh::CS)
            return TSK_DECLINED;
        const int rows = nwarp / sh::CS * 32 * sh::R;
        size_t smem = (size_t)sh::STAGES * (rows * sh::KU + sh::KU * W) * sizeof(T);
        const bool vec = (uintptr_t)v.p % 16 == 0 && v.p_sk % tsm2_vec<T, 64>::value == 0;
        int64_t blocks = (v.nl + rows - 1) / rows;
        int per_sm = params && params->blocks_per_sm ? params->blocks_per_sm : 8;
        int64_t kc = tsm2_split_k(blocks, v.nk, sh::KU, per_sm);
        int64_t splits = v.nk > kc ? (v.nk + kc - 1) / kc : 1;
        T *ws = NULL;
        e = tsk_allow_smem(tsm2_rows_unit<T, W>, smem);
        if (e == cudaSuccess && splits > 1)
            e = cudaMallocAsync((void **)&ws, (size_t)(splits * v.nl * v.nw) * sizeof(T), stream);
        if (e == cudaSuccess) {
            dim3 grid((unsigned)blocks, (unsigned)splits);
            tsm2_rows_unit<T, W><<<grid, threads, smem, stream>>>(v, s, ws, kc, vec);
            e = cudaGetLastError();
            if (e == cudaSuccess && ws)
                e = tsk_sum_partials<T>(ws, (int)splits, v.nl, v.nw, (T *)v.c, v.c_si, v.c_sj, s, stream);
        }
        if (ws) {
            cudaError_t f = cudaFreeAsync(ws, stream);
            e = e != cudaSuccess ? e : f;
        }
    } else if (v.p_sk == 1) {
        /* Vector loads along k need every row of P 16-byte aligned. */
        const int VK = tsm2_vec<T, 64>::value;
        if ((uintptr_t)v.p % 16 || v.p_si % VK)
            return TSK_DECLINED;
        const int R = tsk_fit<T, W, 2>::value, KU = tsm2_depth<T, R * VK, 1, 2, 64 / W>::value;
        size_t smem = 2 * (size_t)32 * KU * VK * W * sizeof(T);
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
