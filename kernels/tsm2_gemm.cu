/* TSM2: C = alpha P Q + beta C with P long x long (nl x nk) and Q nk x nw,
 * nw <= W (see tsk_view.cuh for P, Q and the mirror).  A block covers all
 * nw columns of its rows, so P, the only large operand, is read exactly
 * once.  Two thread mappings, chosen by which stride of P is 1:
 *  - rows unit (A 'N'): a block-wide ring of four shared-memory stages,
 *    filled by cp.async three pieces ahead, carries P and Q (the bytes in
 *    flight cost no registers); each thread owns a 16-byte vector of rows
 *    and all columns, or a share of them at wide widths; when the rows
 *    alone would leave the last wave of blocks short, k is split over
 *    blocks as well and tsk_sum_partials adds the ranges in order (results
 *    stay deterministic);
 *  - k unit (A 'T'/'C'): warps own rows, each lane reads a 16-byte vector of
 *    consecutive k values (coalesced) into registers while the previous
 *    ones are multiplied (leap frogging); Q streams through double-buffered
 *    shared memory; a warp butterfly sums the lanes at the end.
 * Q is read from shared memory in 16-byte vectors: one load feeds R rows
 * times the vector's elements of multiply-adds, so shared-memory issue does
 * not bound the wide cells.  Both mappings need P 16-byte aligned along its
 * unit stride and decline otherwise (cuBLAS runs). */
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
 * A stage holds KU values of k: 2 KB of P per warp of distinct rows.  The
 * block size NT is fixed, so that the staging's index arithmetic is all
 * shifts of constants. */
template <typename T, int W> struct tsm2_rows_shape {
    static const int NT = 256;
    static const int R = tsm2_vec<T, 64>::value;
    static const int acc = R * W * tsk_words<T>::value;
    static const int CS = acc > 64 ? acc / 64 : 1;
    static const int JW = W / CS;
    static const int KU = 64 / (R * (int)sizeof(T)) * CS;
    static const int STAGES = 4;
    static const int ROWS = NT / 32 / CS * 32 * R;  /* rows of a block */
    static const int STAGE = ROWS * KU + KU * W;    /* elements of a stage */
};

/* Rows-unit staging of piece kk0 (KU values of k) into ring slot `slot`:
 * P rows [row0, row0 + ROWS) as ps[kl * ROWS + i] and Q as qs[kl * W + j],
 * all by cp.async, zero-filled outside [.., nl) x [.., kend) x [.., nw).
 * P goes in 16-byte copies of E elements (the launch checks the alignment):
 * a thread's copies step through fixed offsets from one pointer, so few
 * registers stay live. */
template <typename T, int W>
__device__ __forceinline__ void tsm2_stage_rows(T *smem, int64_t slot, const tsk_view &v, int64_t row0,
                                                int64_t kk0, int64_t kend)
{
    typedef tsm2_rows_shape<T, W> sh;
    const int E = sh::R, KU = sh::KU, ROWS = sh::ROWS, NT = sh::NT, PER_K = ROWS / E;
    T *ps = smem + slot * sh::STAGE, *qs = ps + ROWS * KU;
    const T *p = (const T *)v.p, *q = (const T *)v.q;
    /* One run of E rows per thread, every (NT / PER_K)-th column. */
    const int G = NT / PER_K, il = threadIdx.x % PER_K * E, kl0 = threadIdx.x / PER_K;
    const int64_t left = v.nl - (row0 + il);
    const int rv = left <= 0 ? 0 : (left < E ? (int)left : E);
    const T *src = p + row0 + il + (kk0 + kl0) * v.p_sk;
#pragma unroll
    for (int n = 0; n < KU / G; n++) {
        int valid = kk0 + kl0 + n * G < kend ? rv : 0;
        __pipeline_memcpy_async(ps + (kl0 + n * G) * ROWS + il, valid ? src : p, sizeof(T) * E,
                                sizeof(T) * (E - valid));
        src += G * v.p_sk;
    }
    const bool k_fast = v.q_sk == 1;
#pragma unroll
    for (int e0 = 0; e0 < KU * W; e0 += NT) {
        int e = e0 + threadIdx.x;
        if (KU * W % NT && e >= KU * W)
            break;
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
__global__ void __launch_bounds__(256, 2) tsm2_rows_unit(tsk_view v, tsk_scalars<T> s, T *ws, int64_t kc)
{
    typedef tsm2_rows_shape<T, W> sh;
    const int R = sh::R, JW = sh::JW, KU = sh::KU, N = tsm2_vec<T, JW>::value, ROWS = sh::ROWS;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rl = warp / sh::CS * 32 * R + lane * R, j0 = warp % sh::CS * JW;
    T *smem = reinterpret_cast<T *>(tsm2_smem);
    const int64_t row0 = blockIdx.x * (int64_t)ROWS;
    const int64_t kbeg = blockIdx.y * kc, kend = kbeg + kc < v.nk ? kbeg + kc : v.nk;
    const int64_t npiece = (kend - kbeg + KU - 1) / KU;

    T acc[R][JW];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int j = 0; j < JW; j++)
            acc[r][j] = tsk_zero<T>();

    for (int t = 0; t < sh::STAGES - 1; t++) {
        if (t < npiece)
            tsm2_stage_rows<T, W>(smem, t, v, row0, kbeg + t * (int64_t)KU, kend);
        __pipeline_commit();
    }
    for (int64_t t = 0; t < npiece; t++) {
        __pipeline_wait_prior(sh::STAGES - 2);
        /* Piece t has landed for every thread, and every warp is done with
         * the buffer the next copy overwrites (piece t - 1's). */
        __syncthreads();
        const int64_t next = t + sh::STAGES - 1;
        if (next < npiece)
            tsm2_stage_rows<T, W>(smem, next % sh::STAGES, v, row0, kbeg + next * KU, kend);
        __pipeline_commit();
        const T *ps = smem + t % sh::STAGES * sh::STAGE, *qs = ps + ROWS * KU;
#pragma unroll
        for (int u = 0; u < KU; u++) {
            T a[R];
            tsm2_ld_shared<T, R>(a, ps + u * ROWS + rl);
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

/* The length of the k ranges the rows-unit grid is split into: the number
 * of ranges (at most 32, each at least four steps of k) that fills the
 * `slots` blocks resident at once best, counting the idle slots of the last
 * wave; ties go to fewer ranges (less partial-sum traffic).  A multiple of
 * `step`; one range when the rows alone fill the device as well. */
static int64_t tsm2_split_k(int64_t rowblocks, int64_t nk, int64_t step, int64_t slots)
{
    int64_t most = nk / (4 * step), best = 1;
    double best_fill = 0;
    if (most > 32)
        most = 32;
    for (int64_t s = 1; s <= most || s == 1; s++) {
        int64_t blocks = rowblocks * s, waves = (blocks + slots - 1) / slots;
        double fill = (double)blocks / (double)(waves * slots);
        if (fill > best_fill + 1e-9) {
            best_fill = fill;
            best = s;
        }
    }
    if (best <= 1)
        return nk > 0 ? nk : 1;
    return ((nk + best - 1) / best + step - 1) / step * step;
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
    /* Both mappings copy P in 16-byte vectors along its unit stride: the
     * other stride and the base must keep them aligned. */
    const int64_t lead = v.p_si == 1 ? v.p_sk : v.p_si;
    if ((v.p_si != 1 && v.p_sk != 1) || (uintptr_t)v.p % 16 || lead % tsm2_vec<T, 64>::value)
        return TSK_DECLINED;
    cudaError_t e;
    if (v.p_si == 1) {
        typedef tsm2_rows_shape<T, W> sh;
        size_t smem = (size_t)sh::STAGES * sh::STAGE * sizeof(T);
        int64_t blocks = (v.nl + sh::ROWS - 1) / sh::ROWS;
        /* Blocks resident per SM: the tuning row's, else the occupancy. */
        int per_sm = params ? params->blocks_per_sm : 0;
        e = tsk_allow_smem(tsm2_rows_unit<T, W>, smem);
        if (e == cudaSuccess && per_sm <= 0)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tsm2_rows_unit<T, W>, sh::NT, smem);
        if (e != cudaSuccess || per_sm <= 0)
            return TSK_DECLINED;
        int64_t kc = tsm2_split_k(blocks, v.nk, sh::KU, (int64_t)tsk_sm_count() * per_sm);
        int64_t splits = v.nk > kc ? (v.nk + kc - 1) / kc : 1;
        T *ws = NULL;
        if (splits > 1)
            e = cudaMallocAsync((void **)&ws, (size_t)(splits * v.nl * v.nw) * sizeof(T), stream);
        if (e == cudaSuccess) {
            dim3 grid((unsigned)blocks, (unsigned)splits);
            tsm2_rows_unit<T, W><<<grid, sh::NT, smem, stream>>>(v, s, ws, kc);
            e = cudaGetLastError();
            if (e == cudaSuccess && ws)
                e = tsk_sum_partials<T>(ws, (int)splits, v.nl, v.nw, (T *)v.c, v.c_si, v.c_sj, s, stream);
        }
        if (ws) {
            cudaError_t f = cudaFreeAsync(ws, stream);
            e = e != cudaSuccess ? e : f;
        }
    } else {
        int threads = params && params->threads ? params->threads : 256;
        if (threads % 32 || threads > tsk_max_threads<T, W>::value)
            return TSK_DECLINED;
        const int nwarp = threads / 32, VK = tsm2_vec<T, 64>::value;
        const int R = tsk_fit<T, W, 2>::value, KU = tsm2_depth<T, R * VK, 1, 2, 64 / W>::value;
        size_t smem = 2 * (size_t)32 * KU * VK * W * sizeof(T);
        int64_t blocks = (v.nl + nwarp * R - 1) / (nwarp * R);
        e = tsk_allow_smem(tsm2_k_unit<T, W, R, KU>, smem);
        if (e == cudaSuccess) {
            tsm2_k_unit<T, W, R, KU><<<(unsigned)blocks, threads, smem, stream>>>(v, s);
            e = cudaGetLastError();
        }
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
