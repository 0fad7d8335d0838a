/* ISM2 / TSMM on the FP64 tensor cores (DMMA: mma.sync m16n8k8 and
 * m16n8k16, sm_90), double and complex double: C = alpha P Q + beta C
 * with P nl x nk long and skinny (nk <= W) and Q nk x nw small (nw <= W),
 * in the view of tsk_view.cuh.  From width 16 the register-tile kernel
 * (ism2_gemm.cu) is bound by its multiply-adds and its reads of Q; one
 * DMMA does 512 to 2048 of them per warp instruction.
 *
 * Q is staged once per block in shared memory in fragment order, so each
 * lane reads its element of a fragment with one conflict-free load.  Each
 * warp takes RT tiles of 8 rows (a resident grid walks the row groups) and
 * streams them through a ring of shared-memory chunks private to the warp,
 * filled by cp.async along P's unit stride (whole 128-byte lines), read
 * back as fragments.  A lane owns C(row g, columns 2 t and 2 t + 1) of
 * each 8 x 8 tile of C (g = lane / 4, t = lane % 4).  A complex product
 * is four real DMMAs.  Sums run in a fixed order: results are bitwise
 * reproducible.  beta = 0 never reads C; k past nk reads nothing and Q
 * holds zeros there. */
#include <cuda_pipeline_primitives.h>
#include "tsk_dmma.cuh"
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 ism2_dmma_smem[];

/* Tiles of 8 rows per warp, in pairs (one DMMA covers 16 rows): as many
 * as 64 accumulator registers allow, at least a pair, at most 4 tiles; each
 * fragment of Q read feeds RT / 2 DMMAs.  Where the rows are P's unit
 * stride (not KFAST), a warp copies runs of 8 RT elements of each k-column,
 * whole 128-byte lines for single precision at 4 tiles.  The budget is 64,
 * not 32, because width 32 ran faster with 4 tiles; at 128 registers
 * (S width 64, C width 32) 4 tiles ran slower, and so did two warps sharing
 * 4 tiles with half the columns each (docs/kernels.md, 'Measurements behind
 * the code's choices').  P comes in chunks of KC k-steps, 128 bytes of each
 * row, through a ring of STAGES chunks in shared memory private to the
 * warp. */
template <typename T, int W, bool KFAST> struct dmma_shape {
    typedef typename dmma_wide<T>::type D;
    static const int words = (int)sizeof(D) / 8;
    static const int NT = W / 8, KS = W / 4;
    static const int fit = 32 / (NT * 2 * words);
    static const int RT = fit < 2 ? 2 : fit > 4 ? 4 : fit;
    static const int kfit = 32 / (int)sizeof(T);
    static const int KC = kfit > KS ? KS : kfit;
    static const int KI = KC < 4 ? KC : 4; /* k-steps per DMMA */
    static const int STAGES = 4;
    static const bool PAIRS = dmma_pairs<T>::value;
};

/* A chunk in shared memory.  KFAST (P's unit stride along k: A 'T', or
 * the mirror with B 'N') keeps it as rows of k, otherwise as k-columns of
 * rows, so the copies run along P's unit stride. */
template <typename T, int W, bool KFAST> struct dmma_chunk {
    typedef dmma_shape<T, W, KFAST> S;
    static const int rows = 8 * S::RT, ks = 4 * S::KC;
    static const int inner = KFAST ? ks : rows, outer = KFAST ? rows : ks;
    static const int ld = dmma_padded_line(inner, (int)sizeof(T), KFAST, S::PAIRS);
    typedef dmma_line<ld> line;
    static const int elems = outer * ld;
};

/* Starts the copies of chunk kc of row group g into `st` along P's unit
 * stride (in vectors where `vec`); what lies past nl or nk is zero-filled.
 * L2 fetches 256 bytes a miss here, not tsk_cp_async's usual 128: faster
 * in 'T' at D width 32 and Z width 16, where a row of P is 256 bytes; the
 * 'N' cells ran the same either way (docs/kernels.md, 'Measured results'). */
template <typename T, int W, bool KFAST>
__device__ __forceinline__ void dmma_copy_chunk(T *st, const tsk_view &v, bool vec, int64_t g, int kc)
{
    typedef dmma_chunk<T, W, KFAST> L;
    const int64_t i0 = g * L::rows, k0 = (int64_t)kc * L::ks;
    const T *p = (const T *)v.p, *x = p + i0 * v.p_si + k0 * v.p_sk;
    if (KFAST)
        dmma_copy_tile<T, L::outer, L::inner, typename L::line, 32, 256>(st, x, v.p_si, v.nk - k0, v.nl - i0, p, vec);
    else
        dmma_copy_tile<T, L::outer, L::inner, typename L::line, 32, 256>(st, x, v.p_sk, v.nl - i0, v.nk - k0, p, vec);
}

/* Starts the copies of the chunk d (< STAGES) chunks after chunk kc of row
 * group g on the warp's walk (the next row group is `warps` on) into `st`.
 * It steps rather than divides by nchunks: a division per chunk had put a
 * chain of about twenty dependent integer operations before each copy. */
template <typename T, int W, bool KFAST>
__device__ __forceinline__ void dmma_copy_after(T *st, const tsk_view &v, bool vec, int64_t g, int kc, int d,
                                                int nchunks, int64_t warps)
{
    for (kc += d; kc >= nchunks; kc -= nchunks)
        g += warps;
    dmma_copy_chunk<T, W, KFAST>(st, v, vec, g, kc);
}

template <typename T, int W, bool KFAST>
__global__ void __launch_bounds__(256) ism2_dmma_kernel(tsk_view v, tsk_scalars<T> s, bool vec, bool cvec)
{
    typedef dmma_shape<T, W, KFAST> S;
    typedef dmma_chunk<T, W, KFAST> L;
    const int NT = S::NT, RT = S::RT, KC = S::KC, KI = S::KI, STAGES = S::STAGES;
    typedef typename S::D D;
    D *qs = reinterpret_cast<D *>(ism2_dmma_smem); /* qs[(ks * NT + nt) * 32 + lane] */
    const T *q = (const T *)v.q;
    for (int e = threadIdx.x; e < W * W; e += blockDim.x) {
        int lane = e % 32, f = e / 32;
        int kk = f / NT * 4 + lane % 4, j = f % NT * 8 + lane / 4;
        qs[e] = dmma_widen(kk < v.nk && j < v.nw ? tsk_conj(q[kk * v.q_sk + j * v.q_sj], v.q_conj) : tsk_zero<T>());
    }
    __syncthreads();

    /* A warp walks chunks n = 0, 1, ... of its row groups g0, g0 + warps,
     * ..., STAGES - 1 chunks ahead; all of it is uniform over the warp
     * (mma.sync is warp-wide), so __syncwarp orders the ring. */
    const int lane = threadIdx.x % 32, r = lane / 4;
    const int nchunks = ((int)v.nk + L::ks - 1) / L::ks;
    const int64_t ngroups = (v.nl + L::rows - 1) / L::rows;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
    const int64_t g0 = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (g0 >= ngroups)
        return;
    const int64_t total = (ngroups - g0 + warps - 1) / warps * nchunks;
    T *ring = reinterpret_cast<T *>(qs + W * W) + threadIdx.x / 32 * STAGES * L::elems;
    const D *qf = qs + lane;
#pragma unroll
    for (int n = 0; n < STAGES - 1; n++) {
        if (n < total)
            dmma_copy_after<T, W, KFAST>(ring + n * L::elems, v, vec, g0, 0, n, nchunks, warps);
        __pipeline_commit();
    }
    const int RP = RT / 2;
    dmma_tile<D> acc[RP][NT];
    dmma_zero(acc);
    int64_t g = g0;
    int kc = 0;
    for (int64_t n = 0; n < total; n++) {
        __pipeline_wait_prior(STAGES - 2);
        __syncwarp();
        const int64_t ahead = n + STAGES - 1;
        if (ahead < total)
            dmma_copy_after<T, W, KFAST>(ring + ahead % STAGES * L::elems, v, vec, g, kc, STAGES - 1, nchunks, warps);
        __pipeline_commit();
        const T *st = ring + n % STAGES * L::elems;
        const D *qk = qf + kc * KC * NT * 32;
#pragma unroll
        for (int x = 0; x < KC; x += KI) {
            /* a[pp][2 j + h]: half h of the rows of pair pp, k-step x + j */
            D a[RP][2 * KI];
            dmma_load_a<RP, KI, typename L::line, KFAST, S::PAIRS>(a, st, 0, x, v.p_conj);
#pragma unroll
            for (int nt = 0; nt < NT; nt++) {
                D b[KI];
#pragma unroll
                for (int j = 0; j < KI; j++)
                    b[j] = qk[((x + j) * NT + nt) * 32];
#pragma unroll
                for (int pp = 0; pp < RP; pp++)
                    acc[pp][nt].template mma<KI>(a[pp], b);
            }
        }
        if (++kc < nchunks)
            continue;
        dmma_store<T, RP, NT>(acc, v, s, cvec, false, g * L::rows + r);
        dmma_zero(acc);
        kc = 0;
        g += warps;
    }
}

/* Launches the kernel of P's layout with the ring it needs. */
template <typename T, int W, bool KFAST>
static tsk_status ism2_dmma_run(const tsk_view &v, const tsk_scalars<T> &s, bool vec, bool cvec, int threads,
                                int bps, cudaStream_t stream)
{
    static const bool built = dmma_built(ism2_dmma_kernel<T, W, KFAST>);
    if (!built)
        return TSK_DECLINED;
    typedef dmma_chunk<T, W, KFAST> L;
    size_t smem = (size_t)W * W * sizeof(typename dmma_wide<T>::type) +
                  (size_t)threads / 32 * dmma_shape<T, W, KFAST>::STAGES * L::elems * sizeof(T);
    /* The grid stays resident: a block beyond it would start only when a
     * whole resident one ends, a tail as long as the rest. */
    int resident = tsk_resident_blocks<ism2_dmma_kernel<T, W, KFAST>>(threads, smem);
    if (resident < 1)
        return TSK_ERROR;
    if (bps > resident)
        bps = resident;
    const int64_t blocks = tsk_persistent_grid(v.nl, (int64_t)threads / 32 * L::rows, bps);
    ism2_dmma_kernel<T, W, KFAST><<<(unsigned)blocks, threads, smem, stream>>>(v, s, vec, cvec);
    return tsk_status_of(cudaGetLastError());
}

template <typename T, int W>
static tsk_status ism2_dmma_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                                   const tsk_params *params)
{
    tsk_view v;
    tsk_scalars<T> s;
    tsk_status done;
    if (!tsk_view_begin<T>(call, ops, TS_CLASS_ISM2, W, W, stream, &v, &s, &done))
        return done;
    int threads = tsk_threads_or(params, 256), bps = tsk_blocks_per_sm_or(params, 4);
    if (threads > 256 || threads % 32)
        return TSK_DECLINED;
    /* P's unit stride is along k or along the rows. */
    const bool kfast = v.p_sk == 1, vec = dmma_vec_ok<T>(v.p, kfast ? v.p_si : v.p_sk);
    const bool cvec = dmma_pairs_ok<T>(v.c, ops->ldc);
    return kfast ? ism2_dmma_run<T, W, true>(v, s, vec, cvec, threads, bps, stream)
                 : ism2_dmma_run<T, W, false>(v, s, vec, cvec, threads, bps, stream);
}

} /* namespace */

#define ISM2_DMMA_ENTRY(p, P, T, W) \
    TSK_ANY_ROW("ism2_dmma_" #p "_w" #W, TS_CLASS_ISM2, P, W, (ism2_dmma_launch<T, W>))
#define ISM2_DMMA_WIDTHS(p, P, T) \
    ISM2_DMMA_ENTRY(p, P, T, 8) ISM2_DMMA_ENTRY(p, P, T, 16) ISM2_DMMA_ENTRY(p, P, T, 32) ISM2_DMMA_ENTRY(p, P, T, 64)

const tsk_instance tsk_ism2_dmma_instances[] = {
    ISM2_DMMA_WIDTHS(s, TS_S, float)
    ISM2_DMMA_WIDTHS(d, TS_D, double)
    ISM2_DMMA_WIDTHS(c, TS_C, float2)
    ISM2_DMMA_WIDTHS(z, TS_Z, double2)
};
const size_t tsk_ism2_dmma_ninstances = sizeof tsk_ism2_dmma_instances / sizeof tsk_ism2_dmma_instances[0];
