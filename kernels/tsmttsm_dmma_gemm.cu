/* TSMTTSM on the FP64 tensor cores (DMMA, see tsk_dmma.cuh), single
 * precision and complex single at the widths where the register-tile
 * kernel (tsmttsm_gemm.cu) is bound by issuing its multiply-adds and
 * shared-memory reads: C = alpha op(A) op(B) + beta C, m, n <= W, k long.
 *
 * Every warp of a resident grid takes chunks of KCH values of k in turn
 * (warp g takes chunks g, g + warps, ...), streams op(A)^T and op(B) of
 * each through a ring of shared-memory tiles private to the warp, filled by
 * cp.async along each operand's unit stride, and accumulates all of C
 * (rows padded to 16, one DMMA's height) in registers.  The block's warps
 * then add their tiles in shared memory in warp order, the block writes one
 * partial C, and tsk_sum_partials adds the partials in block order: results
 * are bitwise reproducible.  Operands are widened to double as they are
 * read from shared memory; each block's partial is rounded once. */
#include <cuda_pipeline_primitives.h>
#include "tsk_dmma.cuh"
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 tsmttsm_dmma_smem[];

template <typename T, int W> struct ttd_shape {
    typedef typename dmma_wide<T>::type D;
    static const int NP = W >= 16 ? W / 16 : 1; /* DMMA row pairs over m */
    static const int NT = W / 8;                 /* 8-column tiles over n */
    static const int KCH = 128 / (int)sizeof(T); /* k per chunk: a 128-byte line of a column */
    static const int KS = KCH / 4, KI = KS < 4 ? KS : 4;
    static const int STAGES = W >= 32 ? 3 : 4; /* 8 warps' rings fit at width 32 */
};

/* An operand's tile of one chunk: DIMS columns (op(A)'s rows, op(B)'s
 * columns) of KCH values of k, stored as the operand lies in memory: rows
 * of k when k is its unit stride (KFAST), rows of its columns otherwise. */
template <typename T, int DIMS, bool KFAST> struct ttd_tile {
    static const int KCH = 128 / (int)sizeof(T);
    static const int inner = KFAST ? KCH : DIMS, outer = KFAST ? DIMS : KCH;
    static const int ld = dmma_padded_line(inner, (int)sizeof(T), KFAST, false);
    static const int elems = outer * ld;
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

/* Starts the copies of chunk c of operand o into its tile. */
template <typename T, int DIMS, bool KFAST>
__device__ __forceinline__ void ttd_copy(T *st, const ttd_operand<T> &o, int64_t k, int64_t c)
{
    typedef ttd_tile<T, DIMS, KFAST> L;
    const int64_t k0 = c * L::KCH;
    const T *x = KFAST ? o.x + k0 : o.x + k0 * o.ld;
    if (KFAST)
        dmma_copy_tile<T, L::outer, L::inner, L::ld>(st, x, o.ld, k - k0, o.dim, o.x, o.vec);
    else
        dmma_copy_tile<T, L::outer, L::inner, L::ld>(st, x, o.ld, o.dim, k - k0, o.x, o.vec);
}

template <typename T, int W, bool AK, bool BK>
__global__ void __launch_bounds__(256) tsmttsm_dmma_kernel(ttd_args<T> p)
{
    typedef ttd_shape<T, W> S;
    typedef typename S::D D;
    typedef ttd_tile<T, 16 * S::NP, AK> LA;
    typedef ttd_tile<T, 8 * S::NT, BK> LB;
    const int NP = S::NP, NT = S::NT, KS = S::KS, KI = S::KI, STAGES = S::STAGES;
    const int STAGE = LA::elems + LB::elems;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, warp = threadIdx.x / 32;
    const int wpb = blockDim.x / 32;
    const int64_t warps = (int64_t)gridDim.x * wpb, first = (int64_t)blockIdx.x * wpb + warp;
    const int64_t mine = first < p.nchunks ? (p.nchunks - first + warps - 1) / warps : 0;
    T *ring = reinterpret_cast<T *>(tsmttsm_dmma_smem) + warp * STAGES * STAGE;

    /* The walk over chunks is uniform over the warp (mma.sync is
     * warp-wide), so __syncwarp orders its ring. */
#pragma unroll
    for (int n = 0; n < STAGES - 1; n++) {
        if (n < mine) {
            ttd_copy<T, 16 * NP, AK>(ring + n * STAGE, p.a, p.k, first + n * warps);
            ttd_copy<T, 8 * NT, BK>(ring + n * STAGE + LA::elems, p.b, p.k, first + n * warps);
        }
        __pipeline_commit();
    }
    dmma_tile<D> acc[NP][NT];
    dmma_zero(acc);
    for (int64_t n = 0; n < mine; n++) {
        __pipeline_wait_prior(STAGES - 2);
        __syncwarp();
        const int64_t ahead = n + STAGES - 1;
        if (ahead < mine) {
            T *st = ring + ahead % STAGES * STAGE;
            ttd_copy<T, 16 * NP, AK>(st, p.a, p.k, first + ahead * warps);
            ttd_copy<T, 8 * NT, BK>(st + LA::elems, p.b, p.k, first + ahead * warps);
        }
        __pipeline_commit();
        const T *sa = ring + n % STAGES * STAGE, *sb = sa + LA::elems;
#pragma unroll
        for (int x = 0; x < KS; x += KI) {
            /* a[pp][2 j + h]: row 16 pp + g + 8 h of op(A), k-step x + j */
            D a[NP][2 * KI];
            dmma_load_a<NP, KI, LA::ld, AK, false>(a, sa, 0, x, p.a.conj);
#pragma unroll
            for (int nt = 0; nt < NT; nt++) {
                D b[KI];
                dmma_load_b<KI, LB::ld, BK>(b, sb, nt, x, p.b.conj);
#pragma unroll
                for (int pp = 0; pp < NP; pp++)
                    acc[pp][nt].template mma<KI>(a[pp], b);
            }
        }
    }
    __pipeline_wait_prior(0);
    __syncthreads();

    /* The warps add their tiles into shared memory (the rings are done),
     * one after another in warp order. */
    const int M = 16 * NP;
    D *red = reinterpret_cast<D *>(tsmttsm_dmma_smem); /* red[i + j M] */
    for (int turn = 0; turn < wpb; turn++) {
        if (warp == turn) {
#pragma unroll
            for (int pp = 0; pp < NP; pp++)
#pragma unroll
                for (int nt = 0; nt < NT; nt++)
#pragma unroll
                    for (int x = 0; x < 4; x++) {
                        D *r = red + 16 * pp + g + 8 * (x / 2) + (8 * nt + 2 * t + x % 2) * M;
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

template <typename T, int W, bool AK, bool BK>
static tsk_status ttd_run(const ts_call *call, const tsk_operands *ops, ttd_args<T> &p, int threads, int bps,
                          cudaStream_t stream)
{
    static const bool built = dmma_built(tsmttsm_dmma_kernel<T, W, AK, BK>);
    if (!built)
        return TSK_DECLINED;
    typedef ttd_shape<T, W> S;
    /* As many warps as asked for whose rings fit in a block. */
    const size_t per_warp = (size_t)S::STAGES *
                            (ttd_tile<T, 16 * S::NP, AK>::elems + ttd_tile<T, 8 * S::NT, BK>::elems) * sizeof(T);
    int dev = 0, most_smem = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&most_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return TSK_ERROR;
    if (threads / 32 > (int)(most_smem / per_warp))
        threads = (int)(most_smem / per_warp) * 32;
    if (threads < 32)
        return TSK_DECLINED;
    const size_t ring = (size_t)threads / 32 * per_warp;
    const size_t red = (size_t)16 * S::NP * W * sizeof(typename S::D);
    const size_t smem = ring > red ? ring : red;
    const int resident = tsk_resident_blocks<tsmttsm_dmma_kernel<T, W, AK, BK>>(threads, smem);
    if (resident < 1)
        return TSK_ERROR;
    /* The grid stays resident; at least one chunk for every warp. */
    if (bps <= 0 || bps > resident)
        bps = resident;
    int64_t grid = (int64_t)tsk_sm_count() * bps, most = (p.nchunks + threads / 32 - 1) / (threads / 32);
    if (grid > most)
        grid = most;
    return tsk_run_parts<T>(grid, false, p.a.dim, p.b.dim, (T *)ops->c, 1, ops->ldc, tsk_scalars_of<T>(call), stream,
                               [&](T *ws) {
                                   p.ws = ws;
                                   tsmttsm_dmma_kernel<T, W, AK, BK><<<(unsigned)grid, threads, smem, stream>>>(p);
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
 * fit). */
template <typename T, int W>
static tsk_status tsmttsm_dmma_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                                      const tsk_params *params)
{
    tsk_status done;
    if (!tsk_tsmttsm_begin<T>(call, ops, W, stream, &done))
        return done;
    int threads = tsk_threads_or(params, 256);
    if (threads > 256 || threads % 32)
        return TSK_DECLINED;
    const bool ak = call->transa != 'N', bk = call->transb == 'N';
    ttd_args<T> p;
    p.a = ttd_operand_of((const T *)ops->a, ops->lda, (int)call->m, ak, call->transa == 'C', call->k);
    p.b = ttd_operand_of((const T *)ops->b, ops->ldb, (int)call->n, bk, call->transb == 'C', call->k);
    p.k = call->k;
    p.nchunks = (call->k + ttd_shape<T, W>::KCH - 1) / ttd_shape<T, W>::KCH;
    int bps = tsk_blocks_per_sm_or(params, 0);
    if (ak)
        return bk ? ttd_run<T, W, true, true>(call, ops, p, threads, bps, stream)
                  : ttd_run<T, W, true, false>(call, ops, p, threads, bps, stream);
    return bk ? ttd_run<T, W, false, true>(call, ops, p, threads, bps, stream)
              : ttd_run<T, W, false, false>(call, ops, p, threads, bps, stream);
}

} /* namespace */

#define TSMTTSM_DMMA_ENTRY(p, P, T, W) \
    TSK_ANY_ROW("tsmttsm_dmma_" #p "_w" #W, TS_CLASS_TSMTTSM, P, W, (tsmttsm_dmma_launch<T, W>))

const tsk_instance tsk_tsmttsm_dmma_instances[] = {
    TSMTTSM_DMMA_ENTRY(s, TS_S, float, 16) TSMTTSM_DMMA_ENTRY(s, TS_S, float, 32)
    TSMTTSM_DMMA_ENTRY(c, TS_C, float2, 8) TSMTTSM_DMMA_ENTRY(c, TS_C, float2, 16)
    TSMTTSM_DMMA_ENTRY(c, TS_C, float2, 32)
};
const size_t tsk_tsmttsm_dmma_ninstances =
    sizeof tsk_tsmttsm_dmma_instances / sizeof tsk_tsmttsm_dmma_instances[0];
