/* TSM2 on the FP64 tensor cores (DMMA, see tsk_dmma.cuh), single precision
 * and complex single from width 8, where the register-tile kernel
 * (tsm2_gemm.cu) is bound by issuing its multiply-adds: C = alpha P Q +
 * beta C with P nl x nk (both long) and Q nk x nw (nw <= W), in the view of
 * tsk_view.cuh.
 *
 * A block of 8 warps owns ROWS rows of P and C (each warp 16 of them,
 * every column of C in DMMA accumulators) and walks its range of k in
 * chunks (t2d_stage): a block-wide ring of cp.async stages
 * carries the chunk of P and the matching chunk of Q, copied along each
 * operand's unit stride, one barrier per chunk; Q's chunk serves all 8
 * warps.  When the row blocks alone leave the last wave of resident blocks
 * short, k is split over blocks too (tsk_split_k) and tsk_sum_partials adds
 * the ranges in order: results are bitwise reproducible.  Operands are
 * widened to double as they are read from shared memory and C is rounded
 * once. */
#include <cuda_pipeline_primitives.h>
#include "tsk_dmma.cuh"
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 tsm2_dmma_smem[];

/* A warp owns one DMMA row pair (16 rows).  Where its accumulators take at
 * most 32 registers (the memory-bound widths), two blocks share an SM: one
 * block's barrier, ramp and drain then overlap the other's copies.  One
 * 8-warp block per SM (two pairs a warp, three stages) left DRAM underused,
 * its few warps stalled on fixed-latency dependencies (docs/kernels.md,
 * 'Measurements behind the code's choices'). */
template <typename T, int W> struct t2d_shape {
    typedef typename dmma_wide<T>::type D;
    static const int NT = W / 8;
    static const int RP = 1;
    static const int acc_regs = NT * 8 * ((int)sizeof(D) / 8);
    static const int BLOCKS = acc_regs <= 32 ? 2 : 1;
    static const int WARPS = 8, THREADS = 32 * WARPS, ROWS = WARPS * 16 * RP;
};

/* Stages of `bytes` each that `blocks` blocks' shared memory holds (sm_90:
 * 228 KB per SM, 1 KB of it reserved per block). */
constexpr int t2d_fit(int blocks, int bytes)
{
    return (228 / blocks - 1) * 1024 / bytes;
}

/* The ring's stages: as many as fit, at most 4; one block keeps 3. */
constexpr int t2d_stages(int blocks, int bytes)
{
    return blocks == 1 ? 3 : t2d_fit(blocks, bytes) < 4 ? t2d_fit(blocks, bytes) : 4;
}

/* The chunk of P (ROWS x KCH) and of Q (KCH x W) in shared memory, each
 * stored as it lies in memory: rows of k where k is its unit stride
 * (PK, QK), k-columns otherwise.  Where k is P's unit stride a chunk holds
 * 256 bytes of each row: every row is a separate DRAM page, and 128-byte
 * runs read DRAM worse (docs/kernels.md, same section); otherwise a
 * column of the chunk is already ROWS elements long and KCH is one 128-byte
 * line.  The ring has t2d_stages stages.  Lines are padded against bank conflicts,
 * except P's rows of k in the real types where dropping the pad (16 bytes
 * a row) lets the ring hold one more stage (S width 16 'T': 3 stages, not
 * 2): there a swizzle (dmma_index) spreads the fragment reads instead, in
 * one wavefront where the pad took two.  It costs registers (the lane's
 * XOR is hoisted per k-step: C width 16 spilled 60 bytes under the
 * 128-register cap of two blocks), so it goes only where it buys a stage. */
template <typename T, int W, bool PK, bool QK> struct t2d_stage {
    typedef t2d_shape<T, W> S;
    static const int KCH = (PK ? 256 : 128) / (int)sizeof(T);
    static const int KS = KCH / 4, KI = KS < 4 ? KS : 4;
    static const bool PAIRS = dmma_pairs<T>::value;
    static const int p_inner = PK ? KCH : S::ROWS, p_outer = PK ? S::ROWS : KCH;
    static const int q_inner = QK ? KCH : W, q_outer = QK ? W : KCH;
    static const int p_pad = dmma_padded_line(p_inner, (int)sizeof(T), PK, PAIRS);
    static const int q_ld = dmma_padded_line(q_inner, (int)sizeof(T), QK, false);
    static const int q_elems = q_outer * q_ld;
    static const bool SWIZZLE = PK && PAIRS &&
                                t2d_stages(S::BLOCKS, (p_outer * p_inner + q_elems) * (int)sizeof(T)) >
                                    t2d_stages(S::BLOCKS, (p_outer * p_pad + q_elems) * (int)sizeof(T));
    static const int p_sw = SWIZZLE ? dmma_row(PAIRS, 1, 0) : 0, p_ld = SWIZZLE ? p_inner : p_pad;
    typedef dmma_line<p_ld, p_sw, 16 / (int)sizeof(T)> p_line;
    typedef dmma_line<q_ld> q_line;
    static_assert(dmma_read_wavefronts(p_ld, p_sw, (int)sizeof(T), PK, PAIRS) <=
                      dmma_read_wavefronts(p_pad, 0, (int)sizeof(T), PK, PAIRS),
                  "swizzled rows of k read as fast as padded ones");
    static const int p_elems = p_outer * p_ld, elems = p_elems + q_elems;
    static const int STAGES = t2d_stages(S::BLOCKS, elems * (int)sizeof(T));
    static_assert(STAGES >= 2 && STAGES <= t2d_fit(S::BLOCKS, elems * (int)sizeof(T)),
                  "the ring fits the shared memory");
};

/* Starts the block's copies of the chunk at k0 (< k_end) into stage st,
 * each operand along its unit stride (in vectors where pvec, qvec). */
template <typename T, int W, bool PK, bool QK>
__device__ __forceinline__ void t2d_copy_chunk(T *st, const tsk_view &v, bool pvec, bool qvec, int64_t i0, int64_t k0,
                                               int64_t k_end)
{
    typedef t2d_stage<T, W, PK, QK> L;
    const int N = t2d_shape<T, W>::THREADS;
    const T *p = (const T *)v.p, *q = (const T *)v.q;
    const T *px = p + i0 * v.p_si + k0 * v.p_sk, *qx = q + k0 * v.q_sk;
    /* Opaque copies of the outer strides: the copies' offsets are then
     * recomputed every chunk rather than hoisted out of the main loop and
     * kept live across the DMMAs (where they spilled). */
    int64_t po = PK ? v.p_si : v.p_sk, qo = QK ? v.q_sj : v.q_sk;
    asm volatile("" : "+l"(po), "+l"(qo));
    if (PK)
        dmma_copy_tile<T, L::p_outer, L::p_inner, typename L::p_line, N>(st, px, po, k_end - k0, v.nl - i0, p, pvec);
    else
        dmma_copy_tile<T, L::p_outer, L::p_inner, typename L::p_line, N>(st, px, po, v.nl - i0, k_end - k0, p, pvec);
    if (QK)
        dmma_copy_tile<T, L::q_outer, L::q_inner, typename L::q_line, N>(st + L::p_elems, qx, qo, k_end - k0, v.nw,
                                                                          q, qvec);
    else
        dmma_copy_tile<T, L::q_outer, L::q_inner, typename L::q_line, N>(st + L::p_elems, qx, qo, v.nw, k_end - k0,
                                                                          q, qvec);
}

/* Row block blockIdx.x, k range blockIdx.y (kc values of k): C itself when
 * ws is NULL, else the range's partial sums into ws[y] (rows of the view
 * fastest). */
template <typename T, int W, bool PK, bool QK>
__global__ void __launch_bounds__(256, t2d_shape<T, W>::BLOCKS)
    tsm2_dmma_kernel(tsk_view v, tsk_scalars<T> s, T *ws, int64_t kc, bool pvec, bool qvec, bool cvec)
{
    typedef t2d_shape<T, W> S;
    typedef t2d_stage<T, W, PK, QK> L;
    typedef typename S::D D;
    const int NT = S::NT, RP = S::RP, KS = L::KS, KI = L::KI, STAGES = L::STAGES;
    const int g = threadIdx.x % 32 / 4, warp = threadIdx.x / 32;
    const int64_t i0 = (int64_t)blockIdx.x * S::ROWS;
    const int64_t k_begin = (int64_t)blockIdx.y * kc, k_end = k_begin + kc < v.nk ? k_begin + kc : v.nk;
    const int64_t nchunks = (k_end - k_begin + L::KCH - 1) / L::KCH;
    T *ring = reinterpret_cast<T *>(tsm2_dmma_smem);

#pragma unroll
    for (int c = 0; c < STAGES - 1; c++) {
        if (c < nchunks)
            t2d_copy_chunk<T, W, PK, QK>(ring + c * L::elems, v, pvec, qvec, i0, k_begin + c * L::KCH, k_end);
        __pipeline_commit();
    }
    dmma_tile<D> acc[RP][NT];
    dmma_zero(acc);
    const int wrow = warp * 16 * RP;
    for (int64_t c = 0; c < nchunks; c++) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads(); /* chunk c is in; every warp is done with chunk c - 1 */
        const int64_t ahead = c + STAGES - 1;
        if (ahead < nchunks)
            t2d_copy_chunk<T, W, PK, QK>(ring + ahead % STAGES * L::elems, v, pvec, qvec, i0,
                                         k_begin + ahead * L::KCH, k_end);
        __pipeline_commit();
        const T *sp = ring + c % STAGES * L::elems, *sq = sp + L::p_elems;
#pragma unroll
        for (int x = 0; x < KS; x += KI) {
            /* a[pp][2 j + h]: half h of row pair pp of this warp, k-step x + j */
            D a[RP][2 * KI];
            dmma_load_a<RP, KI, typename L::p_line, PK, dmma_pairs<T>::value>(a, sp, wrow, x, v.p_conj);
#pragma unroll
            for (int nt = 0; nt < NT; nt++) {
                D b[KI];
                dmma_load_b<KI, typename L::q_line, QK>(b, sq, nt, x, v.q_conj);
#pragma unroll
                for (int pp = 0; pp < RP; pp++)
                    acc[pp][nt].template mma<KI>(a[pp], b);
            }
        }
    }
    __pipeline_wait_prior(0);
    if (ws == NULL) {
        dmma_store<T, RP, NT>(acc, v, s, cvec, false, i0 + wrow + g);
        return;
    }
    tsk_view part = v; /* the range's partial sums, nl x nw, rows fastest */
    part.c = ws + blockIdx.y * v.nl * v.nw;
    part.c_si = 1;
    part.c_sj = v.nl;
    dmma_store<T, RP, NT>(acc, part, s, false, true, i0 + wrow + g);
}

template <typename T, int W, bool PK, bool QK>
static tsk_status t2d_run(const tsk_view &v, const tsk_scalars<T> &s, bool pvec, bool qvec, bool cvec,
                          const tsk_params *params, cudaStream_t stream)
{
    static const bool built = dmma_built(tsm2_dmma_kernel<T, W, PK, QK>);
    if (!built)
        return TSK_DECLINED;
    typedef t2d_shape<T, W> S;
    typedef t2d_stage<T, W, PK, QK> L;
    const size_t smem = (size_t)L::STAGES * L::elems * sizeof(T);
    return tsk_run_row_blocks<tsm2_dmma_kernel<T, W, PK, QK>>(
        v, s, S::THREADS, smem, S::ROWS, L::KCH, params, stream, [&](dim3 grid, T *ws, int64_t kc) {
            tsm2_dmma_kernel<T, W, PK, QK><<<grid, S::THREADS, smem, stream>>>(v, s, ws, kc, pvec, qvec, cvec);
            return cudaGetLastError();
        });
}

/* Reads params->blocks_per_sm (0: the occupancy) as the resident blocks
 * the k split fills; the block size is fixed. */
template <typename T, int W>
static tsk_status tsm2_dmma_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                                   const tsk_params *params)
{
    tsk_view v;
    tsk_scalars<T> s;
    tsk_status done;
    if (!tsk_view_begin<T>(call, ops, TS_CLASS_TSM2, W, INT64_MAX / 2, stream, &v, &s, &done))
        return done;
    const bool pk = v.p_sk == 1, qk = v.q_sk == 1;
    const bool pvec = dmma_vec_ok<T>(v.p, pk ? v.p_si : v.p_sk), qvec = dmma_vec_ok<T>(v.q, qk ? v.q_sj : v.q_sk);
    const bool cvec = dmma_pairs_ok<T>(v.c, ops->ldc);
    if (pk)
        return qk ? t2d_run<T, W, true, true>(v, s, pvec, qvec, cvec, params, stream)
                  : t2d_run<T, W, true, false>(v, s, pvec, qvec, cvec, params, stream);
    return qk ? t2d_run<T, W, false, true>(v, s, pvec, qvec, cvec, params, stream)
              : t2d_run<T, W, false, false>(v, s, pvec, qvec, cvec, params, stream);
}

} /* namespace */

#define TSM2_DMMA_ENTRY(p, P, T, W) \
    TSK_ANY_ROW("tsm2_dmma_" #p "_w" #W, TS_CLASS_TSM2, P, W, (tsm2_dmma_launch<T, W>))

const tsk_instance tsk_tsm2_dmma_instances[] = {
    TSM2_DMMA_ENTRY(s, TS_S, float, 8) TSM2_DMMA_ENTRY(s, TS_S, float, 16)
    TSM2_DMMA_ENTRY(s, TS_S, float, 32) TSM2_DMMA_ENTRY(s, TS_S, float, 64)
    TSM2_DMMA_ENTRY(c, TS_C, float2, 8) TSM2_DMMA_ENTRY(c, TS_C, float2, 16)
    TSM2_DMMA_ENTRY(c, TS_C, float2, 32)
};
const size_t tsk_tsm2_dmma_ninstances = sizeof tsk_tsm2_dmma_instances / sizeof tsk_tsm2_dmma_instances[0];
