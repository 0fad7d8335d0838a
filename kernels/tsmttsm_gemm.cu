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
 * elements per k, strided by ld).  Either is copied in 16-byte vectors along
 * its unit stride where its pointer and ld keep them aligned (one element a
 * copy otherwise), and staged in the layout it has in memory: a k-strided
 * operand as rows of k (tile[l WP + d]), a k-contiguous one as columns
 * (tile[d KCP + l], shifted per column so that the lanes of a warp reading
 * different columns hit different banks).  Copying element by element, the
 * S kernels issued more instructions per byte than D and fell short of the
 * bandwidth D reached (docs/kernels.md, 'Measurements behind the code's
 * choices').
 *
 * A Gram call (tsk_aliased: op(B) is op(A)^T, the same view in memory, as
 * a SYRK or HERK passes it) runs the kernel's aliased variant: each chunk
 * is staged once and the B side reads the A side's tile, so the operand is
 * read once.  The tile space and registers that op(B) would take hold the
 * block's next chunk instead, so a block keeps as many bytes on the way
 * from memory as without aliasing (the ring one tile more).  Chunks and
 * rows are multiplied in the same order as without aliasing, so the
 * results are bitwise those of the non-aliased kernel on the same grid. */
#include <cuda_pipeline_primitives.h>

#include "tsk_complex.cuh"
#include "tsk_copy.cuh"
#include "tsk_registry.h"
#include "tsk_view.cuh"

template <typename T> struct tsmttsm_is_complex { static const bool value = false; };
template <> struct tsmttsm_is_complex<float2> { static const bool value = true; };
template <> struct tsmttsm_is_complex<double2> { static const bool value = true; };

/* Wavefronts of one warp storing V elements of ES bytes a lane to a row
 * tile WP elements a row, IG lanes a row: the worst bank's count. */
constexpr int tsmttsm_store_wavefronts(int wp, int ig, int v, int es)
{
    int worst = 0;
    for (int bank = 0; bank < 32; ++bank) {
        int cnt = 0;
        for (int lane = 0; lane < 32; ++lane)
            for (int q = 0; q < v * es / 4; ++q)
                cnt += (((lane / ig) * wp + lane % ig * v) * es / 4 + q) % 32 == bank;
        worst = cnt > worst ? cnt : worst;
    }
    return worst;
}

/* Word of a row tile that lane reads as part q of its VE-element vector
 * of one row (the arithmetic's loads: tiles t of a side VE columns apart,
 * k groups on rows). */
constexpr int tsmttsm_read_word(int lane, int q, int wp, int es, int tiles, int gm, int ve, bool side_b)
{
    int tile = lane % tiles, kg = tiles < 32 ? lane / tiles : 0;
    int t = side_b ? tile / gm : tile % gm;
    return (kg * wp + t * ve) * es / 4 + q;
}

/* Wavefronts of those reads: distinct words per bank (equal addresses are
 * broadcast). */
constexpr int tsmttsm_read_wavefronts(int wp, int es, int tiles, int gm, int ve, bool side_b)
{
    int cnt[32] = {}, worst = 0;
    const int nq = ve * es / 4;
    for (int x = 0; x < 32 * nq; ++x) {
        int word = tsmttsm_read_word(x / nq, x % nq, wp, es, tiles, gm, ve, side_b);
        bool seen = false;
        for (int y = 0; y < x && !seen; ++y)
            seen = tsmttsm_read_word(y / nq, y % nq, wp, es, tiles, gm, ve, side_b) == word;
        if (!seen && ++cnt[word % 32] > worst)
            worst = cnt[word % 32];
    }
    return worst;
}

/* Padded row length (keeping 16-byte aligned rows) that costs the fewest
 * wavefronts per chunk: staging stores by vectors of V elements and by
 * single elements, and the arithmetic's reads of both sides (reads rows
 * of TT elements, VE at a time, by NT threads each taking every KG-th of
 * KC rows). */
constexpr int tsmttsm_padded_row(int w, int v, int es, int kc, int tt, int gm, int ve, int nt)
{
    int best = w, best_cost = 1 << 30;
    int tiles = gm * gm, kg = nt / tiles;
    int stores = kc * w / 32, reads = nt / 32 * (kc / kg) * (tt / ve);
    for (int j = 0; j <= 8; ++j) {
        int wp = w + j * (16 / es);
        int cost = stores / v * tsmttsm_store_wavefronts(wp, w / v, v, es) +
                   stores * tsmttsm_store_wavefronts(wp, w, 1, es) +
                   reads * (tsmttsm_read_wavefronts(wp, es, tiles, gm, ve, false) +
                            tsmttsm_read_wavefronts(wp, es, tiles, gm, ve, true));
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
    static const int VE = tsmttsm_min(16 / ES, TT); /* elements per shared vector load of a row */
    static const int VK = 16 / ES;        /* elements per 16-byte copy along k */
    static const int VD = tsmttsm_min(16 / ES, W); /* ... along a row of a k-strided operand */
    /* 16 KB chunks: with registers, 64 bytes per thread under way; with the
     * ring, 2 or 3 chunks in flight per block. */
    static const int KC = tsmttsm_max(16384 / (2 * W * ES), KG);
    static const int NL = KC * W / NT;    /* elements per thread and operand */
    static const int WP = tsmttsm_padded_row(W, VD, ES, KC, TT, GM, VE, NT);
    /* Column tiles: the lanes of a warp read SPAN 16-byte slots of k in
     * each of up to 8 columns; shifting column d by SPAN slots per VE
     * columns (within a 128-byte pad, KCP = KC + 8 slots) puts the
     * columns in different banks. */
    static const int SPAN = tsmttsm_max(1, (TILES < 32 ? 32 / TILES : 1) / VK);
    static const int KCP = KC + 8 * VK;
    static const int TE = tsmttsm_max(KC * WP, W * KCP); /* elements of one tile */
    static const int STAGE = 2 * TE;      /* elements of one stage: both tiles */
    static const int STAGES = RING ? tsmttsm_min(4, tsmttsm_max(3, 65536 / (2 * KC * WP * ES))) : 1;
    /* Groups whose tiles are summed through shared memory, after the lanes of
     * a warp holding the same tile were summed by shuffles. */
    static const int NG = TILES < 32 ? NT / 32 : KG;
    static const int SMEM = tsmttsm_max(STAGES * STAGE, NG > 1 ? W * W : 0) * ES;
    /* Two blocks per SM (a 128-register cap) for tiles up to 4 x 4, which
     * fit without spills; 8 x 8 tiles: the compiler's choice (0). */
    static const int MINB = TT < 8 ? 2 : 0;
    /* Two rows at once give the ring's 8 x 8 tiles loads to overlap with FMAs. */
    static const int UNROLL = RING && TT >= 8 ? 2 : 1;
    static_assert(W % TT == 0 && TT % VE == 0 && KC % KG == 0, "tile shape");
    static_assert((KC * W) % (NT * VK) == 0 && NL % VD == 0, "whole vectors per thread");
    static_assert((TE * ES) % 16 == 0 && WP % VD == 0 && KCP % VK == 0, "aligned staging tiles");
};

/* One operand as the kernel sees it: dim (m or n) <= W columns of length
 * k, element (l, d) at x[l + d ld] when kcontig, else x[d + l ld]; vec:
 * pointer and ld keep 16-byte copies along the unit stride aligned. */
template <typename T> struct tsmttsm_operand {
    const T *x;
    int64_t ld;
    int dim;
    bool kcontig, vec, conj;
};

template <typename T> struct tsmttsm_args {
    tsmttsm_operand<T> a, b;
    int64_t k, nchunks;
    T *ws; /* gridDim.x partial C, m x n each, packed */
};

/* Copy s of this thread's share of a chunk: V elements along the operand's
 * unit stride starting at row l < KC of the chunk and column d < W, lanes
 * running along the unit stride first. */
template <typename C, int V, bool KCONTIG> __device__ __forceinline__ void tsmttsm_unit(int tid, int s, int &l, int &d)
{
    const int idx = tid + s * C::NT;
    const int per = KCONTIG ? C::KC / V : C::WIDTH / V;
    l = KCONTIG ? idx % per * V : idx / per;
    d = KCONTIG ? idx / per : idx % per * V;
}

/* Elements of that copy inside the operand (the rest is zero). */
template <int V, bool KCONTIG> __device__ __forceinline__ int tsmttsm_valid(int dim, int64_t k, int64_t l, int d)
{
    int64_t n = KCONTIG ? (d < dim ? k - l : 0) : (l < k ? dim - d : 0);
    return n <= 0 ? 0 : (n < V ? (int)n : V);
}

/* Where element (row l of k, column d) of an operand lives. */
template <typename T>
__device__ __forceinline__ const T *tsmttsm_at(const T *x, int64_t ld, bool kcontig, int64_t l, int d)
{
    return kcontig ? x + l + d * ld : x + d + l * ld;
}

/* Where element (row l of the chunk, column d) lives in a staging tile. */
template <typename C, bool KCONTIG> __device__ __forceinline__ int tsmttsm_tile_at(int l, int d)
{
    if (!KCONTIG)
        return l * C::WP + d;
    return d * C::KCP + d / C::VE * C::SPAN % 8 * C::VK + l;
}

/* ---- cp.async ring staging ---- */

/* cp.async of this thread's copies of the chunk at row l0 into tile st. */
template <typename C, int V, bool KCONTIG> struct tsmttsm_issue_as {
    static __device__ __forceinline__ void run(int tid, typename C::elem *st,
                                               const tsmttsm_operand<typename C::elem> &o, int64_t l0, int64_t k)
    {
#pragma unroll
        for (int s = 0; s < C::NL / V; ++s) {
            int l, d;
            tsmttsm_unit<C, V, KCONTIG>(tid, s, l, d);
            int n = tsmttsm_valid<V, KCONTIG>(o.dim, k, l0 + l, d);
            tsk_cp_async<V * C::ES>(st + tsmttsm_tile_at<C, KCONTIG>(l, d),
                                    n ? tsmttsm_at(o.x, o.ld, KCONTIG, l0 + l, d) : o.x, n * C::ES);
        }
    }
};

/* Runs OP<C, V, KCONTIG>::run(tid, args...) in the copy shape of operand
 * o: its layout, and 16-byte vectors where o.vec (the branches are uniform
 * over the grid).  The thread index is an opaque copy, so that addresses
 * are recomputed every chunk rather than hoisted out of the main loop and
 * kept live across the multiply-adds (as in tsm2_gemm.cu). */
template <typename C, template <typename, int, bool> class OP, typename... A>
__device__ __forceinline__ void tsmttsm_in_shape(const tsmttsm_operand<typename C::elem> &o, A &&...args)
{
    int tid = threadIdx.x;
    asm volatile("" : "+r"(tid));
    if (o.kcontig) {
        if (C::VK > 1 && o.vec)
            OP<C, C::VK, true>::run(tid, args...);
        else
            OP<C, 1, true>::run(tid, args...);
    } else {
        if (C::VD > 1 && o.vec)
            OP<C, C::VD, false>::run(tid, args...);
        else
            OP<C, 1, false>::run(tid, args...);
    }
}

/* Slot `st` of the ring gets chunk c (when it exists): both tiles, or,
 * aliased, op(A)^T's alone.  One commit group per call either way, so the
 * group count stays uniform. */
template <typename C, bool ALIAS>
__device__ __forceinline__ void tsmttsm_stage_in(typename C::elem *st, const tsmttsm_args<typename C::elem> &p,
                                                 int64_t c)
{
    if (c < p.nchunks) {
        tsmttsm_in_shape<C, tsmttsm_issue_as>(p.a, st, p.a, c * C::KC, p.k);
        if (!ALIAS)
            tsmttsm_in_shape<C, tsmttsm_issue_as>(p.b, st + C::TE, p.b, c * C::KC, p.k);
    }
    __pipeline_commit();
}

/* ---- register staging ---- */

/* This thread's copies of the chunk at row l0 into registers. */
template <typename C, int V, bool KCONTIG> struct tsmttsm_fetch_as {
    static __device__ __forceinline__ void run(int tid, typename C::elem (&r)[C::NL],
                                               const tsmttsm_operand<typename C::elem> &o, int64_t l0, int64_t k)
    {
        typedef typename C::elem T;
#pragma unroll
        for (int s = 0; s < C::NL / V; ++s) {
            int l, d;
            tsmttsm_unit<C, V, KCONTIG>(tid, s, l, d);
            int n = tsmttsm_valid<V, KCONTIG>(o.dim, k, l0 + l, d);
            const T *src = tsmttsm_at(o.x, o.ld, KCONTIG, l0 + l, d);
            tsk_vec<T, V> x;
            if (n == V) {
                x = *(const tsk_vec<T, V> *)src;
            } else {
#pragma unroll
                for (int e = 0; e < V; ++e)
                    x.e[e] = e < n ? src[e] : tsk_zero<T>();
            }
#pragma unroll
            for (int e = 0; e < V; ++e)
                r[s * V + e] = x.e[e];
        }
    }
};

/* Those registers into tile st, conjugated if asked. */
template <typename C, int V, bool KCONTIG> struct tsmttsm_put_as {
    static __device__ __forceinline__ void run(int tid, const typename C::elem (&r)[C::NL], typename C::elem *st,
                                               bool conj)
    {
        typedef typename C::elem T;
#pragma unroll
        for (int s = 0; s < C::NL / V; ++s) {
            int l, d;
            tsmttsm_unit<C, V, KCONTIG>(tid, s, l, d);
            tsk_vec<T, V> x;
#pragma unroll
            for (int e = 0; e < V; ++e)
                x.e[e] = tsk_conj(r[s * V + e], conj);
            *(tsk_vec<T, V> *)(st + tsmttsm_tile_at<C, KCONTIG>(l, d)) = x;
        }
    }
};

/* ---- arithmetic ---- */

/* Column of element a of a thread's tile side: VE-wide vectors interleaved
 * over the GM tiles, so a warp's tiles read adjacent vectors of a row. */
template <typename C> __device__ __forceinline__ int tsmttsm_row(int t, int a)
{
    return ((a / C::VE) * C::GM + t) * C::VE + a % C::VE;
}

/* Row l of a tile, this thread's TT columns: vectors of a row tile, single
 * elements of a column tile. */
template <typename C, bool KCONTIG>
__device__ __forceinline__ void tsmttsm_load_side(typename C::elem (&out)[C::TT], const typename C::elem *tile,
                                                  int l, int t, bool conj)
{
    typedef typename C::elem T;
    if constexpr (KCONTIG) {
#pragma unroll
        for (int a = 0; a < C::TT; ++a)
            out[a] = tsk_conj(tile[tsmttsm_tile_at<C, true>(l, tsmttsm_row<C>(t, a))], conj);
    } else {
#pragma unroll
        for (int a2 = 0; a2 < C::TT / C::VE; ++a2) {
            tsk_vec<T, C::VE> x =
                *(const tsk_vec<T, C::VE> *)(tile + l * C::WP + tsmttsm_row<C>(t, a2 * C::VE));
#pragma unroll
            for (int v = 0; v < C::VE; ++v)
                out[a2 * C::VE + v] = tsk_conj(x.e[v], conj);
        }
    }
}

template <typename C, bool AKC, bool BKC>
__device__ __forceinline__ void tsmttsm_rows_as(typename C::elem (&acc)[C::TT][C::TT], const typename C::elem *sa,
                                                const typename C::elem *sb, int kg, int tm, int tn, bool conja,
                                                bool conjb)
{
    typedef typename C::elem T;
#pragma unroll(C::UNROLL)
    for (int l = kg; l < C::KC; l += C::KG) {
        T av[C::TT], bv[C::TT];
        tsmttsm_load_side<C, AKC>(av, sa, l, tm, conja);
        tsmttsm_load_side<C, BKC>(bv, sb, l, tn, conjb);
#pragma unroll
        for (int a = 0; a < C::TT; ++a)
#pragma unroll
            for (int b = 0; b < C::TT; ++b)
                acc[a][b] = tsk_fma(av[a], bv[b], acc[a][b]);
    }
}

/* This thread's rows of one staged chunk (tiles sa and sb; aliased, sb is
 * sa) into its tile, one loop per pair of layouts (aliased: both sides lie
 * as op(A)^T does).  The register staging conjugates while storing, the
 * ring (whose copies cannot) here. */
template <typename C, bool ALIAS>
__device__ __forceinline__ void tsmttsm_rows(typename C::elem (&acc)[C::TT][C::TT], const typename C::elem *sa,
                                             const typename C::elem *sb, const tsmttsm_args<typename C::elem> &p,
                                             int kg, int tm, int tn, bool conja, bool conjb)
{
    if (p.a.kcontig) {
        if (ALIAS || p.b.kcontig)
            tsmttsm_rows_as<C, true, true>(acc, sa, sb, kg, tm, tn, conja, conjb);
        else
            tsmttsm_rows_as<C, true, false>(acc, sa, sb, kg, tm, tn, conja, conjb);
    } else {
        if (!ALIAS && p.b.kcontig)
            tsmttsm_rows_as<C, false, true>(acc, sa, sb, kg, tm, tn, conja, conjb);
        else
            tsmttsm_rows_as<C, false, false>(acc, sa, sb, kg, tm, tn, conja, conjb);
    }
}

/* The contents of the block's two register sets at chunk c: op(A)^T and
 * op(B) of chunk c, or, aliased, op(A)^T of chunks c and c + gridDim.x
 * (zeros past the last chunk). */
template <typename C, bool ALIAS>
__device__ __forceinline__ void tsmttsm_fetch_step(typename C::elem (&ra)[C::NL], typename C::elem (&rb)[C::NL],
                                                   const tsmttsm_args<typename C::elem> &p, int64_t c)
{
    const tsmttsm_operand<typename C::elem> &ob = ALIAS ? p.a : p.b;
    tsmttsm_in_shape<C, tsmttsm_fetch_as>(p.a, ra, p.a, c * C::KC, p.k);
    tsmttsm_in_shape<C, tsmttsm_fetch_as>(ob, rb, ob, (ALIAS ? c + gridDim.x : c) * C::KC, p.k);
}

/* The block's chunks, staged through registers: the next step's chunks
 * are loaded while this step's are multiplied.  A step is one chunk, or,
 * aliased, two (c and c + gridDim.x, in the tiles of op(A)^T and op(B)),
 * multiplied in chunk order; the B side reads op(A)^T's tile, conjugated
 * where only one of the two sides is ('C' on one operand, A^H A). */
template <typename C, bool ALIAS>
__device__ __forceinline__ void tsmttsm_sweep_regs(typename C::elem (&acc)[C::TT][C::TT],
                                                   const tsmttsm_args<typename C::elem> &p,
                                                   typename C::elem *sa, int kg, int tm, int tn)
{
    typename C::elem ra[C::NL], rb[C::NL];
    typename C::elem *sb = sa + C::TE;
    const tsmttsm_operand<typename C::elem> &ob = ALIAS ? p.a : p.b;
    const int64_t g = gridDim.x, step = ALIAS ? 2 * g : g;
    int64_t c = blockIdx.x;
    tsmttsm_fetch_step<C, ALIAS>(ra, rb, p, c);
    for (;;) {
        /* Registers to the tiles, and the next step into registers, in
         * each operand's copy shape. */
        tsmttsm_in_shape<C, tsmttsm_put_as>(p.a, ra, sa, p.a.conj);
        tsmttsm_in_shape<C, tsmttsm_put_as>(ob, rb, sb, ob.conj);
        __syncthreads();
        int64_t next = c + step;
        if (next < p.nchunks)
            tsmttsm_fetch_step<C, ALIAS>(ra, rb, p, next);
        if (ALIAS) {
            const bool conjb = p.a.conj != p.b.conj;
            tsmttsm_rows<C, true>(acc, sa, sa, p, kg, tm, tn, false, conjb);
            if (c + g < p.nchunks)
                tsmttsm_rows<C, true>(acc, sb, sb, p, kg, tm, tn, false, conjb);
        } else {
            tsmttsm_rows<C, false>(acc, sa, sb, p, kg, tm, tn, false, false);
        }
        __syncthreads();
        c = next;
        if (c >= p.nchunks)
            break;
    }
}

/* The block's chunks, staged through the cp.async ring: all slots but one
 * in flight while one is multiplied.  A slot is a stage (both tiles of a
 * chunk), or, aliased, one tile: twice the slots, each chunk's op(A)^T
 * read by both sides. */
template <typename C, bool ALIAS>
__device__ __forceinline__ void tsmttsm_sweep_ring(typename C::elem (&acc)[C::TT][C::TT],
                                                   const tsmttsm_args<typename C::elem> &p,
                                                   typename C::elem *ring, int kg, int tm, int tn)
{
    typedef typename C::elem T;
    constexpr int SLOTS = ALIAS ? 2 * C::STAGES : C::STAGES, SLOT = ALIAS ? C::TE : C::STAGE;
    const int64_t g = gridDim.x;
#pragma unroll
    for (int s = 0; s < SLOTS - 1; ++s)
        tsmttsm_stage_in<C, ALIAS>(ring + s * SLOT, p, blockIdx.x + s * g);
    for (int it = 0;; ++it) {
        int64_t c = blockIdx.x + it * g;
        __pipeline_wait_prior(SLOTS - 2);
        /* Chunk c has landed for every thread, and every thread is done with
         * the slot that the next copy overwrites. */
        __syncthreads();
        tsmttsm_stage_in<C, ALIAS>(ring + (it + SLOTS - 1) % SLOTS * SLOT, p, c + (SLOTS - 1) * g);
        const T *st = ring + it % SLOTS * SLOT;
        tsmttsm_rows<C, ALIAS>(acc, st, ALIAS ? st : st + C::TE, p, kg, tm, tn, p.a.conj, p.b.conj);
        if (c + g >= p.nchunks)
            break;
    }
    __pipeline_wait_prior(0);
    __syncthreads();
}

template <typename T, int W, bool RING, bool ALIAS>
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
        tsmttsm_sweep_ring<C, ALIAS>(acc, p, (T *)smem, kg, tm, tn);
    else
        tsmttsm_sweep_regs<C, ALIAS>(acc, p, (T *)smem, kg, tm, tn);

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
    const int m = p.a.dim, n = p.b.dim, mn = m * n;
    T *out = p.ws + (int64_t)blockIdx.x * mn;
    if (C::NG == 1) {
#pragma unroll
        for (int a = 0; a < C::TT; ++a)
#pragma unroll
            for (int b = 0; b < C::TT; ++b) {
                int i = tsmttsm_row<C>(tm, a), j = tsmttsm_row<C>(tn, b);
                if (i < m && j < n)
                    out[i + j * m] = acc[a][b];
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
        int i = e % m, j = e / m;
        out[e] = red[i + j * W];
    }
}

/* Copies go in 16-byte vectors along the unit stride when the pointer and
 * ld keep every vector aligned (a k-contiguous single column needs no ld). */
template <typename T, typename C>
static tsmttsm_operand<T> tsmttsm_operand_of(const T *x, int64_t ld, int dim, bool kcontig, bool conj, int64_t k)
{
    tsmttsm_operand<T> o;
    o.x = x;
    o.ld = ld;
    o.dim = dim;
    o.kcontig = kcontig;
    o.conj = conj;
    const int bytes = (kcontig ? C::VK : C::VD) * C::ES;
    const bool one_line = kcontig ? dim == 1 : k == 1;
    o.vec = (uintptr_t)x % bytes == 0 && (one_line || (ld * C::ES) % bytes == 0);
    return o;
}

/* The partial-sum kernel, aliased or not, on a persistent grid of
 * params->blocks_per_sm blocks per SM (0: as many as fit), and the sum. */
template <typename T, int W, bool RING, bool ALIAS>
static tsk_status tsmttsm_run(const ts_call *call, const tsk_operands *ops, tsmttsm_args<T> &p,
                              const tsk_params *params, cudaStream_t stream)
{
    typedef tsmttsm_cfg<T, W, RING> C;
    int bps = tsk_resident_blocks<tsmttsm_partial_kernel<T, W, RING, ALIAS>>(C::NT, C::SMEM);
    if (bps <= 0)
        return TSK_ERROR;
    bps = tsk_blocks_per_sm_or(params, bps);
    const int64_t grid = tsk_persistent_grid(p.nchunks, 1, bps);
    return tsk_run_parts<T>(grid, false, p.a.dim, p.b.dim, (T *)ops->c, 1, ops->ldc, tsk_scalars_of<T>(call), stream,
                               [&](T *ws) {
                                   p.ws = ws;
                                   tsmttsm_partial_kernel<T, W, RING, ALIAS>
                                       <<<(unsigned)grid, C::NT, C::SMEM, stream>>>(p);
                                   return cudaGetLastError();
                               });
}

/* Reads params->blocks_per_sm; the block size is fixed by the instance, so
 * another params->threads is declined (the tuner's block-size variants are
 * for the DMMA instances).  A Gram call (tsk_aliased) runs the aliased
 * kernel. */
template <int P, int W, bool RING>
static tsk_status tsmttsm_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                                 const tsk_params *params)
{
    typedef typename tsk_elem<P>::type T;
    typedef tsmttsm_cfg<T, W, RING> C;
    if (tsk_threads_or(params, C::NT) != C::NT)
        return TSK_DECLINED;
    tsk_status done;
    if (!tsk_tsmttsm_begin<T>(call, ops, W, stream, &done))
        return done;

    tsmttsm_args<T> p;
    p.a = tsmttsm_operand_of<T, C>((const T *)ops->a, ops->lda, (int)call->m, call->transa != 'N',
                                   call->transa == 'C', call->k);
    p.b = tsmttsm_operand_of<T, C>((const T *)ops->b, ops->ldb, (int)call->n, call->transb == 'N',
                                   call->transb == 'C', call->k);
    p.k = call->k;
    p.nchunks = (call->k + C::KC - 1) / C::KC;
    if (tsk_aliased(call, ops))
        return tsmttsm_run<T, W, RING, true>(call, ops, p, params, stream);
    return tsmttsm_run<T, W, RING, false>(call, ops, p, params, stream);
}

/* The staging that ran faster ('T','N'; docs/kernels.md, 'Measurements
 * behind the code's choices'): the ring for the narrow memory-bound widths,
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
#define TSMTTSM_ENTRY(p, P, w, ta, tb, TA, TB, ring) \
    TSK_ROW(TSMTTSM_NAME(p, w, ta, tb, ring), TS_CLASS_TSMTTSM, P, TA, TB, w, (tsmttsm_launch<P, w, ring>))
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
