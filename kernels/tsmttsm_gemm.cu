/* TSMTTSM: C = alpha op(A) op(B) + beta C with m, n <= W (skinny) and k long.
 * After Ernst et al. ("Performance engineering for tall & skinny matrix
 * multiplication kernels on GPUs"): one persistent wave of blocks strides over
 * chunks of KC rows of k; each chunk of op(A)^T and op(B) is staged through
 * shared memory while the next chunks are already in flight (leap frogging),
 * and every thread accumulates a TT x TT register tile of C over a subset of
 * the chunk's rows.  Blocks reduce their tiles in a fixed order and write one
 * partial C each; a second kernel sums the partials in block order and
 * applies alpha and beta.  No float atomics anywhere: the same inputs and grid
 * give bitwise the same C on every run.
 *
 * Two stagings, each an instance of its own, since neither wins everywhere:
 * "regs" loads the next chunk into registers while the block computes on the
 * current one (Ernst et al.'s leap frogging); "ring" keeps STAGES - 1 chunks
 * in flight through a ring of cp.async stages, which costs no registers.
 *
 * Both layouts of the long dimension share the kernel: an operand is either
 * "k-contiguous" (A with 'T'/'C', B with 'N': each of its <= W columns runs
 * along k) or "k-strided" (A with 'N', B with 'T'/'C': <= W contiguous
 * elements per k, strided by ld; a flat stream when ld equals the width). */
#include <atomic>

#include "tsk_complex.cuh"
#include "tsk_registry.h"
#include "tsk_view.cuh"

template <typename T> struct tsmttsm_is_complex { static const bool value = false; };
template <> struct tsmttsm_is_complex<float2> { static const bool value = true; };
template <> struct tsmttsm_is_complex<double2> { static const bool value = true; };

/* Store wavefronts of one warp writing lane (ll = lane / ig, d = lane % ig)
 * to word (ll * wp + d) * es / 4: picks the row padding of the staging tile. */
constexpr int tsmttsm_store_wavefronts(int wp, int ig, int es)
{
    int worst = 0;
    for (int bank = 0; bank < 32; ++bank) {
        int cnt = 0;
        for (int lane = 0; lane < 32; ++lane)
            for (int q = 0; q < es / 4; ++q)
                cnt += (((lane / ig) * wp + lane % ig) * (es / 4) + q) % 32 == bank;
        worst = cnt > worst ? cnt : worst;
    }
    return worst;
}

/* Smallest padded row length (keeping 16-byte aligned rows) whose staging
 * stores conflict least, over both operand layouts. */
constexpr int tsmttsm_padded_row(int w, int ig, int es)
{
    int best = w, best_cost = 1 << 30;
    for (int j = 0; j <= 8; ++j) {
        int wp = w + j * (16 / es);
        int cost = tsmttsm_store_wavefronts(wp, ig, es) + tsmttsm_store_wavefronts(wp, w, es);
        if (cost < best_cost) {
            best_cost = cost;
            best = wp;
        }
    }
    return best;
}

constexpr int tsmttsm_min(int a, int b) { return a < b ? a : b; }
constexpr int tsmttsm_max(int a, int b) { return a > b ? a : b; }

/* Compile-time shape of the instance for element type T, width bound W and
 * staging (RING: cp.async ring, else registers). */
template <typename T, int W, bool RING> struct tsmttsm_cfg {
    typedef T elem;
    static const int WIDTH = W;
    static const int NT = 256;            /* threads per block */
    static const int ES = sizeof(T);
    /* Register tile: the whole C up to 4 x 4; 8 x 8 for real widths >= 32,
     * where the arithmetic needs fewer shared loads per FMA. */
    static const int TT = W <= 4 ? W : (!tsmttsm_is_complex<T>::value && W >= 32 ? 8 : 4);
    static const int GM = W / TT;         /* tiles per side */
    static const int TILES = GM * GM;
    static const int KG = NT / TILES;     /* thread groups splitting a chunk's rows */
    static const int VE = tsmttsm_min(16 / ES, TT); /* elements per shared vector load */
    /* 16 KB chunks: with registers, 64 bytes per thread under way; with the
     * ring, 2 or 3 chunks in flight per block. */
    static const int KC = tsmttsm_max(16384 / (2 * W * ES), KG);
    static const int NL = KC * W / NT;    /* elements per thread and operand */
    /* k-contiguous loads: runs of RUN bytes along k, 32 / (RUN / ES) columns
     * per warp (the ring's per-lane copies favour the longer runs). */
    static const int RUN = RING ? 128 : 64;
    static const int IGC = tsmttsm_min(W, tsmttsm_max(1, 32 / (RUN / ES)));
    static const int WP = tsmttsm_padded_row(W, IGC, ES);
    static const int STAGE = 2 * KC * WP; /* elements of one stage: both tiles */
    static const int STAGES = RING ? tsmttsm_min(4, tsmttsm_max(3, 65536 / (STAGE * ES))) : 1;
    /* Groups whose tiles are summed through shared memory, after the lanes of
     * a warp holding the same tile were summed by shuffles. */
    static const int NG = TILES < 32 ? NT / 32 : KG;
    static const int SMEM = tsmttsm_max(STAGES * STAGE, NG > 1 ? W * W : 0) * ES;
    /* Ring: two blocks per SM (a 128-register cap) for tiles up to 4 x 4,
     * which fit without spills.  Registers: the compiler's choice (0). */
    static const int MINB = RING && TT < 8 ? 2 : 0;
    /* Two rows at once give the ring's 8 x 8 tiles loads to overlap with FMAs. */
    static const int UNROLL = RING && TT >= 8 ? 2 : 1;
    static_assert(W % TT == 0 && TT % VE == 0 && KC % KG == 0, "tile shape");
    static_assert((KC * W) % NT == 0, "whole chunk per pass");
    static_assert((KC * WP * ES) % 16 == 0, "aligned staging tiles");
};

template <typename T> struct tsmttsm_args {
    const T *a, *b;
    int64_t lda, ldb, k, nchunks;
    int m, n;
    bool a_kcontig, b_kcontig, conja, conjb;
    T *ws; /* gridDim.x partial C, m x n each, packed */
};

/* Element s of this thread's share of a chunk: row ll < KC of the chunk and
 * column d < W of the operand, lanes running over IG columns first. */
template <typename C, int IG> __device__ __forceinline__ void tsmttsm_slot(int s, int &ll, int &d)
{
    int idx = threadIdx.x + s * C::NT;
    int rest = idx / IG;
    ll = rest % C::KC;
    d = (rest / C::KC) * IG + idx % IG;
}

/* Where element (row l of k, column d) of an operand lives. */
template <typename T>
__device__ __forceinline__ const T *tsmttsm_at(const T *x, int64_t ld, bool kcontig, int64_t l, int d)
{
    return kcontig ? x + l + d * ld : x + d + l * ld;
}

/* ---- register staging ---- */

template <typename C, int IG>
__device__ __forceinline__ void tsmttsm_fetch_as(typename C::elem (&r)[C::NL], const typename C::elem *x,
                                                 int64_t ld, bool kcontig, int dim, int64_t l0, int64_t k)
{
#pragma unroll
    for (int s = 0; s < C::NL; ++s) {
        int ll, d;
        tsmttsm_slot<C, IG>(s, ll, d);
        int64_t l = l0 + ll;
        r[s] = d < dim && l < k ? __ldg(tsmttsm_at(x, ld, kcontig, l, d)) : tsk_zero<typename C::elem>();
    }
}

template <typename C, int IG>
__device__ __forceinline__ void tsmttsm_put_as(const typename C::elem (&r)[C::NL], typename C::elem *st,
                                               bool conj)
{
#pragma unroll
    for (int s = 0; s < C::NL; ++s) {
        int ll, d;
        tsmttsm_slot<C, IG>(s, ll, d);
        st[ll * C::WP + d] = tsk_conj(r[s], conj);
    }
}

/* The layout decides the lane mapping (coalesced runs along whichever
 * dimension is contiguous); the branch is uniform over the grid. */
template <typename C>
__device__ __forceinline__ void tsmttsm_fetch(typename C::elem (&r)[C::NL], const typename C::elem *x,
                                              int64_t ld, bool kcontig, int dim, int64_t l0, int64_t k)
{
    if (kcontig)
        tsmttsm_fetch_as<C, C::IGC>(r, x, ld, true, dim, l0, k);
    else
        tsmttsm_fetch_as<C, C::WIDTH>(r, x, ld, false, dim, l0, k);
}

template <typename C>
__device__ __forceinline__ void tsmttsm_put(const typename C::elem (&r)[C::NL], typename C::elem *st,
                                            bool kcontig, bool conj)
{
    if (kcontig)
        tsmttsm_put_as<C, C::IGC>(r, st, conj);
    else
        tsmttsm_put_as<C, C::WIDTH>(r, st, conj);
}

/* ---- cp.async ring staging ---- */

/* cp.async of one element, zero-filled when `valid` is false (tails of k and
 * columns beyond m or n); 16-byte elements bypass L1. */
template <int ES>
__device__ __forceinline__ void tsmttsm_copy(void *dst, const void *src, bool valid)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    int n = valid ? ES : 0;
    if (ES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(n));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(ES), "r"(n));
}

__device__ __forceinline__ void tsmttsm_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }

template <int N> __device__ __forceinline__ void tsmttsm_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <typename C, int IG>
__device__ __forceinline__ void tsmttsm_issue_as(typename C::elem *st, const typename C::elem *x, int64_t ld,
                                                 bool kcontig, int dim, int64_t l0, int64_t k)
{
#pragma unroll
    for (int s = 0; s < C::NL; ++s) {
        int ll, d;
        tsmttsm_slot<C, IG>(s, ll, d);
        int64_t l = l0 + ll;
        bool valid = d < dim && l < k;
        tsmttsm_copy<C::ES>(st + ll * C::WP + d, valid ? tsmttsm_at(x, ld, kcontig, l, d) : x, valid);
    }
}

/* Stage `st` of the ring gets chunk c (when it exists); one commit group per
 * call either way, so the group count stays uniform. */
template <typename C>
__device__ __forceinline__ void tsmttsm_stage_in(typename C::elem *st, const tsmttsm_args<typename C::elem> &p,
                                                 int64_t c)
{
    typename C::elem *sb = st + C::KC * C::WP;
    if (c < p.nchunks) {
        if (p.a_kcontig)
            tsmttsm_issue_as<C, C::IGC>(st, p.a, p.lda, true, p.m, c * C::KC, p.k);
        else
            tsmttsm_issue_as<C, C::WIDTH>(st, p.a, p.lda, false, p.m, c * C::KC, p.k);
        if (p.b_kcontig)
            tsmttsm_issue_as<C, C::IGC>(sb, p.b, p.ldb, true, p.n, c * C::KC, p.k);
        else
            tsmttsm_issue_as<C, C::WIDTH>(sb, p.b, p.ldb, false, p.n, c * C::KC, p.k);
    }
    tsmttsm_commit();
}

/* ---- arithmetic ---- */

/* Index of element a of a thread's tile side: VE-wide vectors interleaved
 * over the GM tiles, so a warp's tiles read adjacent vectors. */
template <typename C> __device__ __forceinline__ int tsmttsm_row(int t, int a)
{
    return ((a / C::VE) * C::GM + t) * C::VE + a % C::VE;
}

template <typename C>
__device__ __forceinline__ void tsmttsm_load_side(typename C::elem (&out)[C::TT], const typename C::elem *row,
                                                  int t, bool conj)
{
    typedef typename C::elem T;
    struct alignas(C::VE * sizeof(T)) vec {
        T e[C::VE];
    };
#pragma unroll
    for (int a2 = 0; a2 < C::TT / C::VE; ++a2) {
        vec x = *(const vec *)(row + tsmttsm_row<C>(t, a2 * C::VE));
#pragma unroll
        for (int v = 0; v < C::VE; ++v)
            out[a2 * C::VE + v] = tsk_conj(x.e[v], conj);
    }
}

/* This thread's rows of one staged chunk into its tile.  The register
 * staging conjugates while storing, the ring (whose copies cannot) here. */
template <typename C>
__device__ __forceinline__ void tsmttsm_rows(typename C::elem (&acc)[C::TT][C::TT], const typename C::elem *sa,
                                             int kg, int tm, int tn, bool conja, bool conjb)
{
    typedef typename C::elem T;
    const T *sb = sa + C::KC * C::WP;
#pragma unroll(C::UNROLL)
    for (int l = kg; l < C::KC; l += C::KG) {
        T av[C::TT], bv[C::TT];
        tsmttsm_load_side<C>(av, sa + l * C::WP, tm, conja);
        tsmttsm_load_side<C>(bv, sb + l * C::WP, tn, conjb);
#pragma unroll
        for (int a = 0; a < C::TT; ++a)
#pragma unroll
            for (int b = 0; b < C::TT; ++b)
                acc[a][b] = tsk_fma(av[a], bv[b], acc[a][b]);
    }
}

/* The block's chunks, staged through registers: chunk c + gridDim.x is
 * loaded while chunk c is multiplied. */
template <typename C>
__device__ __forceinline__ void tsmttsm_sweep_regs(typename C::elem (&acc)[C::TT][C::TT],
                                                   const tsmttsm_args<typename C::elem> &p,
                                                   typename C::elem *sa, int kg, int tm, int tn)
{
    typename C::elem ra[C::NL], rb[C::NL];
    typename C::elem *sb = sa + C::KC * C::WP;
    int64_t c = blockIdx.x;
    tsmttsm_fetch<C>(ra, p.a, p.lda, p.a_kcontig, p.m, c * C::KC, p.k);
    tsmttsm_fetch<C>(rb, p.b, p.ldb, p.b_kcontig, p.n, c * C::KC, p.k);
    for (;;) {
        tsmttsm_put<C>(ra, sa, p.a_kcontig, p.conja);
        tsmttsm_put<C>(rb, sb, p.b_kcontig, p.conjb);
        __syncthreads();
        int64_t next = c + gridDim.x;
        if (next < p.nchunks) {
            tsmttsm_fetch<C>(ra, p.a, p.lda, p.a_kcontig, p.m, next * C::KC, p.k);
            tsmttsm_fetch<C>(rb, p.b, p.ldb, p.b_kcontig, p.n, next * C::KC, p.k);
        }
        tsmttsm_rows<C>(acc, sa, kg, tm, tn, false, false);
        __syncthreads();
        c = next;
        if (c >= p.nchunks)
            break;
    }
}

/* The block's chunks, staged through the cp.async ring: STAGES - 1 chunks
 * in flight while one is multiplied. */
template <typename C>
__device__ __forceinline__ void tsmttsm_sweep_ring(typename C::elem (&acc)[C::TT][C::TT],
                                                   const tsmttsm_args<typename C::elem> &p,
                                                   typename C::elem *ring, int kg, int tm, int tn)
{
    const int64_t g = gridDim.x;
#pragma unroll
    for (int s = 0; s < C::STAGES - 1; ++s)
        tsmttsm_stage_in<C>(ring + s * C::STAGE, p, blockIdx.x + s * g);
    for (int it = 0;; ++it) {
        int64_t c = blockIdx.x + it * g;
        tsmttsm_wait<C::STAGES - 2>();
        /* Chunk c has landed for every thread, and every thread is done with
         * the stage that the next copy overwrites. */
        __syncthreads();
        tsmttsm_stage_in<C>(ring + (it + C::STAGES - 1) % C::STAGES * C::STAGE, p, c + (C::STAGES - 1) * g);
        tsmttsm_rows<C>(acc, ring + it % C::STAGES * C::STAGE, kg, tm, tn, p.conja, p.conjb);
        if (c + g >= p.nchunks)
            break;
    }
    tsmttsm_wait<0>();
    __syncthreads();
}

template <typename T, int W, bool RING>
__global__ void __launch_bounds__(256, (tsmttsm_cfg<T, W, RING>::MINB))
    tsmttsm_partial_kernel(tsmttsm_args<T> p)
{
    typedef tsmttsm_cfg<T, W, RING> C;
    extern __shared__ __align__(16) unsigned char smem[];
    const int tile = threadIdx.x % C::TILES, kg = threadIdx.x / C::TILES;
    const int tm = tile % C::GM, tn = tile / C::GM;

    T acc[C::TT][C::TT];
#pragma unroll
    for (int a = 0; a < C::TT; ++a)
#pragma unroll
        for (int b = 0; b < C::TT; ++b)
            acc[a][b] = tsk_zero<T>();
    if constexpr (RING)
        tsmttsm_sweep_ring<C>(acc, p, (T *)smem, kg, tm, tn);
    else
        tsmttsm_sweep_regs<C>(acc, p, (T *)smem, kg, tm, tn);

    /* Lanes of one warp that hold the same tile: butterfly, so every such
     * lane ends with the same bits. */
    if (C::TILES < 32) {
#pragma unroll
        for (int off = C::TILES; off < 32; off <<= 1)
#pragma unroll
            for (int a = 0; a < C::TT; ++a)
#pragma unroll
                for (int b = 0; b < C::TT; ++b)
                    acc[a][b] = tsk_add(acc[a][b], tsk_shfl_xor(acc[a][b], off));
    }
    const int mn = p.m * p.n;
    T *out = p.ws + (int64_t)blockIdx.x * mn;
    if (C::NG == 1) {
#pragma unroll
        for (int a = 0; a < C::TT; ++a)
#pragma unroll
            for (int b = 0; b < C::TT; ++b) {
                int i = tsmttsm_row<C>(tm, a), j = tsmttsm_row<C>(tn, b);
                if (i < p.m && j < p.n)
                    out[i + j * p.m] = acc[a][b];
            }
        return;
    }
    /* Groups add their tiles into shared memory one after another, in
     * group order. */
    const int group = C::TILES < 32 ? threadIdx.x / 32 : kg;
    const bool holds = C::TILES < 32 ? threadIdx.x % 32 < C::TILES : true;
    T *red = (T *)smem;
    for (int turn = 0; turn < C::NG; ++turn) {
        if (group == turn && holds) {
#pragma unroll
            for (int a = 0; a < C::TT; ++a)
#pragma unroll
                for (int b = 0; b < C::TT; ++b) {
                    T *r = red + tsmttsm_row<C>(tm, a) + tsmttsm_row<C>(tn, b) * W;
                    *r = turn == 0 ? acc[a][b] : tsk_add(*r, acc[a][b]);
                }
        }
        __syncthreads();
    }
    for (int e = threadIdx.x; e < mn; e += C::NT) {
        int i = e % p.m, j = e / p.m;
        out[e] = red[i + j * W];
    }
}

/* Blocks per SM when the tuning row leaves it open: what fits at once. */
template <typename T, int W, bool RING> static int tsmttsm_default_blocks_per_sm(void)
{
    typedef tsmttsm_cfg<T, W, RING> C;
    static std::atomic<int> cached(0);
    int v = cached.load(std::memory_order_relaxed);
    if (v == 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, tsmttsm_partial_kernel<T, W, RING>, C::NT,
                                                          C::SMEM) != cudaSuccess ||
            v < 1)
            v = 1;
        cached.store(v, std::memory_order_relaxed);
    }
    return v;
}

/* Reads params->blocks_per_sm (0: as many as fit); the block size is fixed
 * at 256 by the instance.  The workspace of partials comes from
 * cudaMallocAsync on the call's stream and is freed behind the final
 * kernel, so concurrent calls on different streams never share it. */
template <int P, int W, bool RING>
static tsk_status tsmttsm_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                                 const tsk_params *params)
{
    typedef typename tsk_elem<P>::type T;
    typedef tsmttsm_cfg<T, W, RING> C;
    if (call->m > W || call->n > W || !tsk_aligned(ops, sizeof(T)))
        return TSK_DECLINED;
    if (call->m == 0 || call->n == 0)
        return TSK_RAN;
    if (call->k == 0 || tsk_host_is_zero<T>((const T *)call->alpha))
        return tsk_status_of(tsk_scale_c<T>(call, (T *)ops->c, ops->ldc, stream));

    tsmttsm_args<T> p;
    p.a = (const T *)ops->a;
    p.b = (const T *)ops->b;
    p.lda = ops->lda;
    p.ldb = ops->ldb;
    p.k = call->k;
    p.m = (int)call->m;
    p.n = (int)call->n;
    p.a_kcontig = call->transa != 'N';
    p.b_kcontig = call->transb == 'N';
    p.conja = call->transa == 'C';
    p.conjb = call->transb == 'C';
    p.nchunks = (call->k + C::KC - 1) / C::KC;
    if (tsk_allow_smem(tsmttsm_partial_kernel<T, W, RING>, C::SMEM) != cudaSuccess)
        return TSK_ERROR;
    int bps = params && params->blocks_per_sm > 0 ? params->blocks_per_sm
                                                  : tsmttsm_default_blocks_per_sm<T, W, RING>();
    int64_t grid = (int64_t)tsk_sm_count() * bps;
    if (grid > p.nchunks)
        grid = p.nchunks;
    int mn = p.m * p.n;
    if (cudaMallocAsync((void **)&p.ws, (size_t)grid * mn * sizeof(T), stream) != cudaSuccess)
        return TSK_ERROR;
    tsmttsm_partial_kernel<T, W, RING><<<(unsigned)grid, C::NT, C::SMEM, stream>>>(p);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        e = tsk_sum_partials<T>(p.ws, (int)grid, p.m, p.n, (T *)ops->c, 1, ops->ldc, tsk_scalars_of<T>(call),
                                stream);
    }
    cudaError_t f = cudaFreeAsync(p.ws, stream);
    return tsk_status_of(e != cudaSuccess ? e : f);
}

/* The staging that measured faster on an H100 (bench/tsmttsm_probe,
 * 2026-11-21, ('T','N') first): the ring for the narrow memory-bound widths,
 * registers where more tile arithmetic per byte or 16-byte elements with
 * k-contiguous columns made the ring slower. */
constexpr bool tsmttsm_ring_first(int prec, int w)
{
    return prec == TS_D ? w >= 4 : prec == TS_Z ? w == 1 || w >= 16 : w >= 2 && w <= 8;
}

/* The registry: every width bound for every precision and transpose pair,
 * in both stagings, the one measured faster first; each bound serves the
 * widths above the previous one. */
#define TSMTTSM_NAME(p, w, ta, tb, ring) \
    ((ring) ? "tsmttsm_" #p "_" #ta #tb "_w" #w "_ring" : "tsmttsm_" #p "_" #ta #tb "_w" #w "_regs")
#define TSMTTSM_ENTRY(p, P, w, ta, tb, TA, TB, ring)                              \
    { TSMTTSM_NAME(p, w, ta, tb, ring), TS_CLASS_TSMTTSM, P, TA, TB, w / 2 + 1, w, \
      tsmttsm_launch<P, w, ring> },
#define TSMTTSM_ONE(p, P, w, ta, tb, TA, TB)                               \
    TSMTTSM_ENTRY(p, P, w, ta, tb, TA, TB, tsmttsm_ring_first(P, w))       \
    TSMTTSM_ENTRY(p, P, w, ta, tb, TA, TB, !tsmttsm_ring_first(P, w))
#define TSMTTSM_REAL(p, P, w)                 \
    TSMTTSM_ONE(p, P, w, n, n, 'N', 'N')      \
    TSMTTSM_ONE(p, P, w, n, t, 'N', 'T')      \
    TSMTTSM_ONE(p, P, w, t, n, 'T', 'N')      \
    TSMTTSM_ONE(p, P, w, t, t, 'T', 'T')
#define TSMTTSM_COMPLEX(p, P, w)              \
    TSMTTSM_REAL(p, P, w)                     \
    TSMTTSM_ONE(p, P, w, n, c, 'N', 'C')      \
    TSMTTSM_ONE(p, P, w, t, c, 'T', 'C')      \
    TSMTTSM_ONE(p, P, w, c, n, 'C', 'N')      \
    TSMTTSM_ONE(p, P, w, c, t, 'C', 'T')      \
    TSMTTSM_ONE(p, P, w, c, c, 'C', 'C')
#define TSMTTSM_WIDTHS(X, p, P) \
    X(p, P, 1) X(p, P, 2) X(p, P, 4) X(p, P, 8) X(p, P, 16) X(p, P, 32) X(p, P, 64)

extern "C" {
const tsk_instance tsk_tsmttsm_instances[] = {
    TSMTTSM_WIDTHS(TSMTTSM_REAL, s, TS_S)
    TSMTTSM_WIDTHS(TSMTTSM_REAL, d, TS_D)
    TSMTTSM_WIDTHS(TSMTTSM_COMPLEX, c, TS_C)
    TSMTTSM_WIDTHS(TSMTTSM_COMPLEX, z, TS_Z)
};
const size_t tsk_tsmttsm_ninstances = sizeof tsk_tsmttsm_instances / sizeof tsk_tsmttsm_instances[0];
}
