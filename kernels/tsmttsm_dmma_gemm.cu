/* TSMTTSM on the FP64 tensor cores (DMMA, see tsk_dmma.cuh): single
 * precision and complex single at the widths where the register-tile
 * kernel (tsmttsm_gemm.cu) is bound by issuing its multiply-adds and
 * shared-memory reads, and double at widths 8, 16 and 32 for Gram calls
 * (which run kernels/gram_dmma.cu): C = alpha op(A) op(B) + beta C,
 * m, n <= W, k long.
 *
 * Every team of a resident grid takes chunks of KCH values of k in turn
 * (team g takes chunks g, g + teams, ...), streams op(A)^T and op(B) of
 * each through a ring of shared-memory tiles private to the team, filled by
 * cp.async along each operand's unit stride, and accumulates C (rows padded
 * to 16, one DMMA's height) in registers.  A team is one warp holding all
 * of C up to width 32; at width 64 all of C would take 256 registers a
 * lane, so a team is 2 x 2 warps, each holding a quarter of C.  The block's
 * teams then add their tiles in shared memory in team order, the block
 * writes one partial C, and tsk_sum_partials adds the partials in block
 * order: results are bitwise reproducible.  Operands are widened to double
 * as they are read from shared memory; each block's partial is rounded
 * once.
 *
 * A Gram call (tsk_aliased: op(B) is op(A)^T in memory, as a SYRK or HERK
 * passes it) runs the aliased variant: each chunk is staged once and the B
 * side takes op(A)^T's tile (a one-warp team: the A fragments it holds), so
 * a stage is one tile and more teams' rings fit on an SM.  The
 * register-tile Gram kernel was bound by its work per chunk
 * (docs/performance.md, SYRK and TRSM on device data); here that work is a
 * few DMMAs. */
#include <cuda_pipeline_primitives.h>
#include <type_traits>
#include "tsk_dmma.cuh"
#include "tsk_gram.h"
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 tsmttsm_dmma_smem[];

template <typename T, int W> struct ttd_shape {
    typedef typename dmma_wide<T>::type D;
    static const int NP = W >= 16 ? W / 16 : 1; /* DMMA row pairs over m */
    static const int NT = W / 8;                 /* 8-column tiles over n */
    static const int KCH = 128 / (int)sizeof(T); /* k per chunk: a 128-byte line of a column */
    static const int KS = KCH / 4, KI = KS < 4 ? KS : 4;
    /* 8 warps' rings fit at width 32, 2 teams' at 64 (aliased, a stage is
     * one tile: the ring takes half the space and more blocks fit). */
    static const int STAGES = W == 32 ? 3 : 4;
    static const int WM = W == 64 ? 2 : 1, WN = WM; /* a team's warps over C's rows and columns */
    static const int TEAM = WM * WN, NPW = NP / WM, NTW = NT / WN;
};

/* An operand's tile of one chunk: DIMS columns (op(A)'s rows, op(B)'s
 * columns) of KCH values of k, stored as the operand lies in memory: rows
 * of k when k is its unit stride (KFAST), rows of its columns otherwise. */
template <typename T, int DIMS, bool KFAST> struct ttd_tile {
    static const int KCH = 128 / (int)sizeof(T);
    static const int inner = KFAST ? KCH : DIMS, outer = KFAST ? DIMS : KCH;
    static const int ld = dmma_padded_line(inner, (int)sizeof(T), KFAST, false);
    typedef dmma_line<ld> line;
    static const int elems = outer * ld;
};

/* A team's ring for operands lying AK, BK along k: stages of op(A)^T's and
 * op(B)'s tiles, or, aliased, of op(A)^T's alone.  Aliased, both lie the
 * same way (AK == BK), op(B)'s columns are the first 8 NT <= 16 NP columns
 * of op(A)^T's tile, and the B side reads them through that tile's lines
 * (LB is LA), so the two sides cannot disagree on the layout. */
template <typename T, int W, bool AK, bool BK, bool ALIASED> struct ttd_ring {
    typedef ttd_shape<T, W> S;
    typedef ttd_tile<T, 16 * S::NP, AK> LA;
    typedef ttd_tile<T, ALIASED ? 16 * S::NP : 8 * S::NT, BK> LB;
    static const int STAGE = LA::elems + (ALIASED ? 0 : LB::elems);
    static const size_t TEAM_BYTES = (size_t)S::STAGES * STAGE * sizeof(T);
    static_assert(!ALIASED || AK == BK, "an aliased call's operands lie the same way along k");
    static_assert(8 * S::NT <= 16 * S::NP, "op(B)'s columns fit in op(A)^T's tile");
};

template <typename T> struct ttd_operand {
    const T *x;
    int64_t ld;
    int dim;
    bool conj, vec;
};

template <typename T> struct ttd_args {
    ttd_operand<T> a, b;
    int64_t k, nchunks;
    T *ws;
};

/* Starts the copies of chunk c of operand o into its tile, shared by a
 * team of THREADS threads. */
template <typename T, int DIMS, bool KFAST, int THREADS>
__device__ __forceinline__ void ttd_copy(T *st, const ttd_operand<T> &o, int64_t k, int64_t c)
{
    typedef ttd_tile<T, DIMS, KFAST> L;
    const int64_t k0 = c * L::KCH;
    const T *x = KFAST ? o.x + k0 : o.x + k0 * o.ld;
    if (KFAST)
        dmma_copy_tile<T, L::outer, L::inner, typename L::line, THREADS>(st, x, o.ld, k - k0, o.dim, o.x, o.vec);
    else
        dmma_copy_tile<T, L::outer, L::inner, typename L::line, THREADS>(st, x, o.ld, o.dim, k - k0, o.x, o.vec);
}

/* Stage st of a team's ring gets chunk c: both tiles, or, aliased,
 * op(A)^T's alone. */
template <typename T, int W, bool AK, bool BK, bool ALIASED, int THREADS>
__device__ __forceinline__ void ttd_stage_in(T *st, const ttd_args<T> &p, int64_t c)
{
    typedef ttd_ring<T, W, AK, BK, ALIASED> R;
    ttd_copy<T, 16 * R::S::NP, AK, THREADS>(st, p.a, p.k, c);
    if (!ALIASED)
        ttd_copy<T, 8 * R::S::NT, BK, THREADS>(st + R::LA::elems, p.b, p.k, c);
}

/* Orders a team's ring: a warp's walk is uniform over it (mma.sync is
 * warp-wide); a larger team waits at its own named barrier (0 is
 * __syncthreads'). */
template <int TEAM> __device__ __forceinline__ void ttd_team_sync(int team)
{
    if (TEAM == 1)
        __syncwarp();
    else
        asm volatile("bar.sync %0, %1;" ::"r"(team + 1), "r"(32 * TEAM) : "memory");
}

template <typename T, int W, bool AK, bool BK, bool ALIASED>
__global__ void __launch_bounds__(256) tsmttsm_dmma_kernel(ttd_args<T> p)
{
    typedef ttd_ring<T, W, AK, BK, ALIASED> R;
    typedef typename R::S S;
    typedef typename S::D D;
    typedef typename R::LA LA;
    typedef typename R::LB LB;
    const int NPW = S::NPW, NTW = S::NTW, KS = S::KS, KI = S::KI, STAGES = S::STAGES, TEAM = S::TEAM;
    const int STAGE = R::STAGE;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, warp = threadIdx.x / 32;
    const int team = warp / TEAM, tpb = blockDim.x / 32 / TEAM;
    /* This warp's part of C: rows from 16 NPW wr, columns from 8 NTW wc. */
    const int wr = warp % TEAM % S::WM, wc = warp % TEAM / S::WM;
    const int64_t teams = (int64_t)gridDim.x * tpb, first = (int64_t)blockIdx.x * tpb + team;
    const int64_t mine = first < p.nchunks ? (p.nchunks - first + teams - 1) / teams : 0;
    T *ring = reinterpret_cast<T *>(tsmttsm_dmma_smem) + team * STAGES * STAGE;

#pragma unroll
    for (int n = 0; n < STAGES - 1; n++) {
        if (n < mine)
            ttd_stage_in<T, W, AK, BK, ALIASED, 32 * TEAM>(ring + n * STAGE, p, first + n * teams);
        __pipeline_commit();
    }
    dmma_tile<D> acc[NPW][NTW];
    dmma_zero(acc);
    for (int64_t n = 0; n < mine; n++) {
        __pipeline_wait_prior(STAGES - 2);
        ttd_team_sync<TEAM>(team);
        const int64_t ahead = n + STAGES - 1;
        if (ahead < mine)
            ttd_stage_in<T, W, AK, BK, ALIASED, 32 * TEAM>(ring + ahead % STAGES * STAGE, p, first + ahead * teams);
        __pipeline_commit();
        const T *sa = ring + n % STAGES * STAGE, *sb = ALIASED ? sa : sa + LA::elems;
#pragma unroll
        for (int x = 0; x < KS; x += KI) {
            /* a[pp][2 j + h]: row 16 (NPW wr + pp) + g + 8 h of op(A), k-step x + j */
            D a[NPW][2 * KI];
            dmma_load_a<NPW, KI, typename LA::line, AK, false>(a, sa, 16 * NPW * wr, x, p.a.conj);
#pragma unroll
            for (int nt = 0; nt < NTW; nt++) {
                D b[KI];
                /* Aliased, column 8 nt + g of op(B) is row 8 nt + g of
                 * op(A)^T's tile, which a one-warp team holds already as
                 * a[nt / 2][2 j + nt % 2] (conjugated where only one
                 * side is). */
                if (ALIASED && TEAM == 1) {
#pragma unroll
                    for (int j = 0; j < KI; j++)
                        b[j] = tsk_conj(a[nt / 2][2 * j + nt % 2], p.a.conj != p.b.conj);
                } else {
                    dmma_load_b<KI, typename LB::line, BK>(b, sb, NTW * wc + nt, x, p.b.conj);
                }
#pragma unroll
                for (int pp = 0; pp < NPW; pp++)
                    acc[pp][nt].template mma<KI>(a[pp], b);
            }
        }
    }
    __pipeline_wait_prior(0);
    __syncthreads();

    /* The teams add their tiles into shared memory (the rings are done),
     * one after another in team order. */
    const int M = 16 * S::NP;
    D *red = reinterpret_cast<D *>(tsmttsm_dmma_smem); /* red[i + j M] */
    for (int turn = 0; turn < tpb; turn++) {
        if (team == turn) {
#pragma unroll
            for (int pp = 0; pp < NPW; pp++)
#pragma unroll
                for (int nt = 0; nt < NTW; nt++)
#pragma unroll
                    for (int x = 0; x < 4; x++) {
                        const int i = 16 * (NPW * wr + pp) + g + 8 * (x / 2), j = 8 * (NTW * wc + nt) + 2 * t + x % 2;
                        D *r = red + i + j * M;
                        *r = turn == 0 ? acc[pp][nt].at(x) : tsk_add(*r, acc[pp][nt].at(x));
                    }
        }
        __syncthreads();
    }
    const int m = p.a.dim, mn = m * p.b.dim;
    T *out = p.ws + (int64_t)blockIdx.x * mn;
    for (int e = threadIdx.x; e < mn; e += blockDim.x)
        out[e] = dmma_narrow<T>(red[e % m + e / m * M]);
}

template <typename T, int W, bool AK, bool BK, bool ALIASED>
static tsk_status ttd_run(const ts_call *call, const tsk_operands *ops, ttd_args<T> &p, int threads, int bps,
                          cudaStream_t stream)
{
    static const bool built = dmma_built(tsmttsm_dmma_kernel<T, W, AK, BK, ALIASED>);
    if (!built)
        return TSK_DECLINED;
    typedef ttd_shape<T, W> S;
    /* As many teams as asked for whose rings fit in a block. */
    const int team_threads = 32 * S::TEAM;
    const size_t per_team = ttd_ring<T, W, AK, BK, ALIASED>::TEAM_BYTES;
    const int most_smem = tsk_smem_most();
    if (most_smem <= 0)
        return TSK_ERROR;
    if (threads / team_threads > (int)(most_smem / per_team))
        threads = (int)(most_smem / per_team) * team_threads;
    if (threads < team_threads)
        return TSK_DECLINED;
    const size_t ring = (size_t)threads / team_threads * per_team;
    const size_t red = (size_t)16 * S::NP * W * sizeof(typename S::D);
    const size_t smem = ring > red ? ring : red;
    const int resident = tsk_resident_blocks<tsmttsm_dmma_kernel<T, W, AK, BK, ALIASED>>(threads, smem);
    if (resident < 1)
        return TSK_ERROR;
    /* The grid stays resident; at least one chunk for every team. */
    if (bps <= 0 || bps > resident)
        bps = resident;
    const int64_t grid = tsk_persistent_grid(p.nchunks, threads / team_threads, bps);
    return tsk_run_parts<T>(grid, false, p.a.dim, p.b.dim, (T *)ops->c, 1, ops->ldc, tsk_scalars_of<T>(call), stream,
                               [&](T *ws) {
                                   p.ws = ws;
                                   tsmttsm_dmma_kernel<T, W, AK, BK, ALIASED>
                                       <<<(unsigned)grid, threads, smem, stream>>>(p);
                                   return cudaGetLastError();
                               });
}

/* 16-byte copies along the unit stride where the pointer and ld keep them
 * aligned (a single line along k needs no ld). */
template <typename T>
static ttd_operand<T> ttd_operand_of(const T *x, int64_t ld, int dim, bool kfast, bool conj, int64_t k)
{
    const bool one_line = kfast ? dim == 1 : k == 1;
    ttd_operand<T> o = { x, ld, dim, conj, dmma_vec_ok<T>(x, one_line ? 0 : ld) };
    return o;
}

/* Reads params->threads (0: 256) and params->blocks_per_sm (0: as many as
 * fit).  A Gram call (tsk_aliased) runs the aliased kernel, in double the
 * direct one (kernels/gram_dmma.cu). */
template <typename T, int W>
static tsk_status tsmttsm_dmma_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                                      const tsk_params *params)
{
    tsk_status done;
    if (!tsk_tsmttsm_begin<T>(call, ops, W, stream, &done))
        return done;
    const bool aliased = tsk_aliased(call, ops);
    if constexpr (std::is_same<T, double>::value) {
        if (aliased)
            return tsk_gram_dmma<W>(call, ops, stream, params);
    }
    int threads = tsk_threads_or(params, 256);
    if (threads > 256 || threads % (32 * ttd_shape<T, W>::TEAM))
        return TSK_DECLINED;
    const bool ak = call->transa != 'N', bk = call->transb == 'N';
    ttd_args<T> p;
    p.a = ttd_operand_of((const T *)ops->a, ops->lda, (int)call->m, ak, call->transa == 'C', call->k);
    p.b = ttd_operand_of((const T *)ops->b, ops->ldb, (int)call->n, bk, call->transb == 'C', call->k);
    p.k = call->k;
    p.nchunks = (call->k + ttd_shape<T, W>::KCH - 1) / ttd_shape<T, W>::KCH;
    int bps = tsk_blocks_per_sm_or(params, 0);
    if constexpr (!std::is_same<T, double>::value) {
        if (aliased) /* ak == bk */
            return ak ? ttd_run<T, W, true, true, true>(call, ops, p, threads, bps, stream)
                      : ttd_run<T, W, false, false, true>(call, ops, p, threads, bps, stream);
    }
    if (ak)
        return bk ? ttd_run<T, W, true, true, false>(call, ops, p, threads, bps, stream)
                  : ttd_run<T, W, true, false, false>(call, ops, p, threads, bps, stream);
    return bk ? ttd_run<T, W, false, true, false>(call, ops, p, threads, bps, stream)
              : ttd_run<T, W, false, false, false>(call, ops, p, threads, bps, stream);
}

} /* namespace */

#define TSMTTSM_DMMA_ENTRY(p, P, T, W) \
    TSK_ANY_ROW("tsmttsm_dmma_" #p "_w" #W, TS_CLASS_TSMTTSM, P, W, (tsmttsm_dmma_launch<T, W>))

const tsk_instance tsk_tsmttsm_dmma_instances[] = {
    TSMTTSM_DMMA_ENTRY(s, TS_S, float, 16) TSMTTSM_DMMA_ENTRY(s, TS_S, float, 32)
    TSMTTSM_DMMA_ENTRY(s, TS_S, float, 64)
    /* Gram calls in double (tsk_gram_instance, cuda/kernel_dispatch.c),
     * which run kernels/gram_dmma.cu. */
    TSMTTSM_DMMA_ENTRY(d, TS_D, double, 8) TSMTTSM_DMMA_ENTRY(d, TS_D, double, 16)
    TSMTTSM_DMMA_ENTRY(d, TS_D, double, 32)
    TSMTTSM_DMMA_ENTRY(c, TS_C, float2, 8) TSMTTSM_DMMA_ENTRY(c, TS_C, float2, 16)
    TSMTTSM_DMMA_ENTRY(c, TS_C, float2, 32)
};
const size_t tsk_tsmttsm_dmma_ninstances =
    sizeof tsk_tsmttsm_dmma_instances / sizeof tsk_tsmttsm_dmma_instances[0];
