/* TSM2: C = alpha P Q + beta C with P long x long (nl x nk) and Q nk x nw,
 * nw <= W (see tsk_view.cuh for P, Q and the mirror).  A block covers all
 * nw columns of its rows, so P, the only large operand, is read exactly
 * once.  One kernel, tsm2_ring, serves both layouts of P: a block-wide ring
 * of four shared-memory stages, filled by cp.async three pieces of k ahead
 * with one barrier per piece, carries P and Q (the bytes in flight cost no
 * registers).  The shape, chosen by which stride of P is 1, says how a piece
 * of P is staged and which rows a thread owns:
 *  - rows unit (A 'N'): each thread owns a 16-byte vector of consecutive
 *    rows and all columns, or a share of them at wide widths;
 *  - k unit (A 'T'/'C'): a stage holds 16 KB of P, 256 or 128 bytes of k
 *    (whole L2 lines) of 64 or 128 rows; a thread owns 2 or 4 rows 32 apart
 *    and reads 16-byte vectors of k, and the warps of a block split the
 *    vectors of a piece among themselves, adding their tiles in shared
 *    memory at the end.  Where a row of Q fits in 32 bytes, the
 *    register-prefetch k-unit kernel (tsm2_k_unit) runs instead: its blocks
 *    own only 8-16 rows, so every block re-reads all of Q from L2 (as many
 *    bytes as P at width 16), which costs little only for narrow Q, and
 *    there it is faster (tsm2_regs_fit).
 * When the rows alone would leave the last wave of blocks short, k is split
 * over blocks as well and tsk_sum_partials adds the ranges in order; every
 * sum runs in a fixed order, so results stay deterministic.  Q is read from
 * shared memory in 16-byte vectors: one load feeds R rows times the
 * vector's elements of multiply-adds, so shared-memory issue does not bound
 * the wide cells.  P is copied in 16-byte vectors along its unit stride,
 * which must keep them aligned; other calls are declined (cuBLAS runs). */
#include <limits.h>
#include <cuda_pipeline_primitives.h>
#include "tsk_copy.cuh"
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

/* N consecutive elements at p in shared memory, aligned to their total
 * size, in one load. */
template <typename T, int N> __device__ __forceinline__ void tsm2_ld_shared(T (&x)[N], const T *p)
{
    typedef typename tsm2_raw<N * sizeof(T)>::type raw;
    raw r = *reinterpret_cast<const raw *>(p);
    memcpy(x, &r, sizeof r);
}

/* The same from global memory, streamed (read once). */
template <typename T, int N> __device__ __forceinline__ void tsm2_ld_stream(T (&x)[N], const T *p)
{
    typedef typename tsm2_raw<N * sizeof(T)>::type raw;
    raw r = __ldcs(reinterpret_cast<const raw *>(p));
    memcpy(x, &r, sizeof r);
}

/* The rows, columns and share of k a thread owns (tile of the shape). */
struct tsm2_tile {
    int rl; /* first row, from the block's; rows rl + r RSTEP */
    int j0; /* first of JW columns */
    int kg; /* k group: which vectors of a piece (k unit only) */
};

/* acc[r][j] += a[r] Q(k, j0 + j) for one value of k, qrow = &Q(k, j0) in
 * shared memory, read in vectors of N: each load feeds R N multiply-adds.
 * Q is used as stored: a conj(q) = conj(conj(a) q), so for a conjugated Q
 * the kernel conjugates P instead, and the sums once at the end: the same
 * roundings (up to the sign of a zero), no work per element of Q, and no
 * copy of the loops per conjugation flag. */
template <typename T, int R, int JW>
__device__ __forceinline__ void tsm2_fma_row(T (&acc)[R][JW], const T (&a)[R], const T *qrow)
{
    const int N = tsm2_vec<T, JW>::value;
#pragma unroll
    for (int jj = 0; jj < JW; jj += N) {
        T b[N];
        tsm2_ld_shared<T, N>(b, qrow + jj);
#pragma unroll
        for (int x = 0; x < N; x++)
#pragma unroll
            for (int r = 0; r < R; r++)
                acc[r][jj + x] = tsk_fma(a[r], b[x], acc[r][jj + x]);
    }
}

/* Staging of Q, both shapes: the KU x W piece at kk0 as qs[kl * W + j]
 * (a row of k is one broadcast vector for the warp), by element-sized
 * cp.async, walking Q along its unit stride; zero-filled outside
 * [.., kend) x [.., nw).  A thread's elements keep one coordinate and step
 * the other by a constant, from one pointer. */
template <typename T, int W, int KU, int NT>
__device__ __forceinline__ void tsm2_stage_q(T *qs, const tsk_view &v, int kk0, int kend, int tid)
{
    static_assert(NT % KU == 0 && NT % W == 0 && (KU * W < NT || KU * W % NT == 0), "powers of two");
    if (KU * W < NT && tid >= KU * W)
        return;
    const T *q = (const T *)v.q;
    const bool k_fast = v.q_sk == 1;
    int kl = k_fast ? tid % KU : tid / W;
    int j = k_fast ? tid / KU : tid % W;
    const int dk = k_fast ? 0 : NT / W, dj = k_fast ? NT / KU : 0;
    const T *src = q + (kk0 + kl) * v.q_sk + j * v.q_sj;
    const int64_t step = dk * v.q_sk + dj * v.q_sj;
#pragma unroll
    for (int n = 0; n < (KU * W + NT - 1) / NT; n++) {
        bool in = kk0 + kl < kend && j < v.nw;
        tsk_cp_async<sizeof(T)>(qs + kl * W + j, in ? src : q, in ? (int)sizeof(T) : 0);
        kl += dk;
        j += dj;
        src += step;
    }
}

/* Staging of a piece of P, both shapes: lines of the piece run along P's
 * unit stride (coordinate u), PER 16-byte copies of E elements cover one,
 * and the block's NT / PER threads of a column of copies step across NB
 * lines (coordinate b) from one pointer each, so few registers stay live.
 * The piece starts at (u0, b0) of P, lines are `stride` apart in P and LD
 * in dst.  Elements at u >= u_end and lines at b >= b_end are zero-filled
 * by the copy's source size, the source kept valid (p).  U and B keep each
 * shape's own integer widths (int for k, int64_t for rows): they decide
 * how many registers the addresses take. */
template <typename T, int E, int PER, int NT, int NB, int LD, typename U, typename B>
__device__ __forceinline__ void tsm2_stage_lines(T *dst, const T *p, U u0, B b0, int64_t stride, U u_end, B b_end,
                                                 int tid)
{
    const int G = NT / PER, a = tid % PER * E, b = tid / PER;
    const U left = u_end - (u0 + a);
    const int uv = left <= 0 ? 0 : (left < E ? (int)left : E);
    const T *src = p + (u0 + a) + (b0 + b) * stride;
#pragma unroll
    for (int n = 0; n < NB / G; n++) {
        int valid = b0 + b + n * G < b_end ? uv : 0;
        tsk_cp_async<sizeof(T) * E>(dst + (b + n * G) * LD + a, valid ? src : p, (int)sizeof(T) * valid);
        src += G * stride;
    }
}

/* Rows-unit shape (P unit stride along rows): a thread owns R consecutive
 * rows (one 16-byte vector of shared memory) and JW = W / CS columns; CS
 * warps split the columns of the same rows when R W words would pass a
 * 64-register accumulator budget, so every width keeps its tile in
 * registers and each load of Q feeds R rows.  A stage holds KU values of k:
 * 2 KB of P per warp of distinct rows, as ps[kl * ROWS + i]. */
template <typename T, int W> struct tsm2_rows_shape {
    typedef T elem;
    static const int width = W;
    static const int NT = 256;
    static const int R = tsm2_vec<T, 64>::value;
    static const int acc = R * W * tsk_words<T>::value;
    static const int CS = acc > 64 ? acc / 64 : 1;
    static const int JW = W / CS;
    static const int KS = 1;
    static const int KU = 64 / (R * (int)sizeof(T)) * CS;
    static const int STAGES = 4;
    static const int ROWS = NT / 32 / CS * 32 * R; /* rows of a block */
    static const int RSTEP = 1;
    static const int PS = ROWS * KU;      /* elements of P in a stage */
    static const int STAGE = PS + KU * W; /* elements of a stage */

    static __device__ __forceinline__ tsm2_tile tile()
    {
        const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
        tsm2_tile t = { warp / CS * 32 * R + lane * R, warp % CS * JW, 0 };
        return t;
    }

    /* P rows [row0, row0 + ROWS) x k [kk0, kk0 + KU) as ps[kl * ROWS + i]:
     * a line is one value of k, each copy R rows. */
    static __device__ __forceinline__ void stage_p(T *ps, const tsk_view &v, int64_t row0, int kk0, int kend,
                                                   int tid)
    {
        const T *p = (const T *)v.p;
        tsm2_stage_lines<T, R, ROWS / R, NT, KU, ROWS>(ps, p, row0, kk0, v.p_sk, v.nl, kend, tid);
    }

    /* One piece: per value of k, one vector load of the thread's R rows,
     * conjugated when a_conj (see tsm2_fma_row). */
    static __device__ __forceinline__ void piece(T (&acc)[R][JW], const T *ps, const T *qs, bool a_conj,
                                                 const tsm2_tile &t)
    {
#pragma unroll
        for (int u = 0; u < KU; u++) {
            T a[R];
            tsm2_ld_shared<T, R>(a, ps + u * ROWS + t.rl);
#pragma unroll
            for (int r = 0; r < R; r++)
                a[r] = tsk_conj(a[r], a_conj);
            tsm2_fma_row<T, R, JW>(acc, a, qs + u * W + t.j0);
        }
    }
};

/* K-unit shape (P unit stride along k): a stage holds 16 KB of P, BK bytes
 * of k (whole L2 lines) of each of ROWS = 16 KB / BK rows, as
 * ps[i * KP + kl]; the pad of one vector makes a row BK / 16 + 1 vectors
 * long, odd, so 16-byte loads of 32 consecutive rows hit distinct banks.
 * The rows of a block share each piece of Q: Q's L2 traffic is W / ROWS of
 * P's.  256 bytes of a row at a time read DRAM better than 128 at widths
 * 1-16 (docs/kernels.md, 'Measurements behind the code's choices'), but the
 * Q tile grows with BK: from width 32 on, 256 would leave one block per
 * SM.  A thread owns R = ROWS / 32 rows, 32 apart (stores of C by
 * consecutive lanes hit consecutive rows), and JW = W / CS columns: as for
 * rows unit, CS warps split the columns when R W words would pass 64
 * registers, so each load of Q feeds R rows at every width (fewer rows per
 * thread and more k groups measured slower at widths 32-64: more loads of
 * Q per multiply-add).  The KS = 8 / CS k groups of warps each take every
 * KS-th vector of k of a piece. */
template <typename T, int W> struct tsm2_kfast_shape {
    typedef T elem;
    static const int width = W;
    static const int NT = 256;
    static const int VK = tsm2_vec<T, 64>::value; /* elements of a vector */
    static const int BK = W <= 16 ? 256 : 128;
    static const int ROWS = 16384 / BK;
    static const int R = ROWS / 32;
    static const int acc = R * W * tsk_words<T>::value;
    static const int CS = acc > 64 ? acc / 64 : 1;
    static const int JW = W / CS;
    static const int KS = NT / 32 / CS;
    static const int KU = BK / (int)sizeof(T);
    static const int KP = KU + VK;
    static const int STAGES = 4;
    static const int RSTEP = 32;
    static const int PS = ROWS * KP;
    static const int STAGE = PS + KU * W;
    static_assert(CS * KS == NT / 32 && KS <= KU / VK, "warps map onto (column, k) groups");
    static_assert(KP * sizeof(T) / 16 % 2 == 1, "padded rows: conflict-free 16-byte loads");

    /* Warp w: column group w % CS, k group w / CS (k group 0 is the first
     * NT / KS threads: it adds the others' tiles). */
    static __device__ __forceinline__ tsm2_tile tile()
    {
        const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
        tsm2_tile t = { lane, warp % CS * JW, warp / CS };
        return t;
    }

    /* P rows [row0, row0 + ROWS) x k [kk0, kk0 + KU) as ps[i * KP + kl]:
     * a line is one row, KU / VK copies cover its BK bytes (whole L2
     * lines), a partial vector at the k tail zero-filled. */
    static __device__ __forceinline__ void stage_p(T *ps, const tsk_view &v, int64_t row0, int kk0, int kend,
                                                   int tid)
    {
        const T *p = (const T *)v.p;
        tsm2_stage_lines<T, VK, KU / VK, NT, ROWS, KP>(ps, p, kk0, row0, v.p_si, kend, v.nl, tid);
    }

    /* One piece: per vector of k, one load per row, then VK rows of Q. */
    static __device__ __forceinline__ void piece(T (&acc)[R][JW], const T *ps, const T *qs, bool a_conj,
                                                 const tsm2_tile &t)
    {
#pragma unroll
        for (int kv0 = 0; kv0 < KU / VK; kv0 += KS) {
            const int kl = (kv0 + t.kg) * VK;
            T a[R][VK];
#pragma unroll
            for (int r = 0; r < R; r++) {
                tsm2_ld_shared<T, VK>(a[r], ps + (t.rl + r * RSTEP) * KP + kl);
#pragma unroll
                for (int x = 0; x < VK; x++)
                    a[r][x] = tsk_conj(a[r][x], a_conj);
            }
#pragma unroll
            for (int x = 0; x < VK; x++) {
                T ax[R];
#pragma unroll
                for (int r = 0; r < R; r++)
                    ax[r] = a[r][x];
                tsm2_fma_row<T, R, JW>(acc, ax, qs + (kl + x) * W + t.j0);
            }
        }
    }
};

/* Stages piece kk0 of P and Q into ring slot `slot`. */
template <typename SH>
__device__ __forceinline__ void tsm2_stage(typename SH::elem *smem, int slot, const tsk_view &v, int64_t row0,
                                           int kk0, int kend)
{
    typename SH::elem *ps = smem + slot * SH::STAGE;
    /* The addresses are recomputed every piece from an opaque copy of the
     * thread index, rather than hoisted out of the main loop and kept live
     * across the multiply-adds (where they spilled). */
    int tid = threadIdx.x;
    asm volatile("" : "+r"(tid));
    SH::stage_p(ps, v, row0, kk0, kend, tid);
    tsm2_stage_q<typename SH::elem, SH::width, SH::KU, SH::NT>(ps + SH::PS, v, kk0, kend, tid);
}

/* The ring, either shape: the block walks its rows' range of k
 * (blockIdx.y: [y kc, y kc + kc)) through STAGES buffers filled by
 * cp.async, STAGES - 1 pieces ahead, one barrier per piece.  With KS k
 * groups, the tiles are added in shared memory (reusing the ring) in the
 * order kg = 0, 1, ...  With one range the block updates C; with several
 * it writes its partial sums to ws[y] (rows of the view fastest) for
 * tsk_sum_partials. */
template <typename SH>
__global__ void __launch_bounds__(256, 2)
    tsm2_ring(tsk_view v, tsk_scalars<typename SH::elem> s, typename SH::elem *ws, int64_t kc)
{
    typedef typename SH::elem T;
    const int R = SH::R, JW = SH::JW, KU = SH::KU, NT = SH::NT, KS = SH::KS;
    static_assert(NT == 256, "__launch_bounds__ above");
    static_assert(KS == 1 || R * JW * NT <= SH::STAGES * SH::STAGE, "the k groups' tiles fit the ring");
    const tsm2_tile th = SH::tile();
    T *smem = reinterpret_cast<T *>(tsm2_smem);
    const int64_t row0 = blockIdx.x * (int64_t)SH::ROWS;
    const int kbeg = blockIdx.y * (int)kc, kend = kbeg + (int)kc < v.nk ? kbeg + (int)kc : (int)v.nk;
    const int npiece = (kend - kbeg + KU - 1) / KU;

    T acc[R][JW];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int j = 0; j < JW; j++)
            acc[r][j] = tsk_zero<T>();

    for (int t = 0; t < SH::STAGES - 1; t++) {
        if (t < npiece)
            tsm2_stage<SH>(smem, t, v, row0, kbeg + t * KU, kend);
        __pipeline_commit();
    }
    for (int t = 0; t < npiece; t++) {
        __pipeline_wait_prior(SH::STAGES - 2);
        /* Piece t has landed for every thread, and every warp is done with
         * the buffer the next copy overwrites (piece t - 1's). */
        __syncthreads();
        const int next = t + SH::STAGES - 1;
        if (next < npiece)
            tsm2_stage<SH>(smem, next % SH::STAGES, v, row0, kbeg + next * KU, kend);
        __pipeline_commit();
        const T *ps = smem + t % SH::STAGES * SH::STAGE;
        SH::piece(acc, ps, ps + SH::PS, v.p_conj != v.q_conj, th);
    }

    if (KS > 1) {
        /* Every warp is done with the ring, and no copy is left to land. */
        __pipeline_wait_prior(0);
        __syncthreads();
        if (th.kg)
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int j = 0; j < JW; j++)
                    smem[(r * JW + j) * NT + threadIdx.x] = acc[r][j];
        __syncthreads();
        if (th.kg)
            return;
#pragma unroll
        for (int g = 1; g < KS; g++)
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int j = 0; j < JW; j++)
                    acc[r][j] = tsk_add(acc[r][j], smem[(r * JW + j) * NT + g * (NT / KS) + threadIdx.x]);
    }

    T *c = (T *)v.c;
#pragma unroll
    for (int j = 0; j < JW; j++)
#pragma unroll
        for (int r = 0; r < R; r++) {
            int64_t i = row0 + th.rl + r * SH::RSTEP;
            if (i >= v.nl || th.j0 + j >= v.nw)
                continue;
            T sum = tsk_conj(acc[r][j], v.q_conj);
            if (ws)
                ws[(blockIdx.y * v.nw + th.j0 + j) * v.nl + i] = sum;
            else
                tsk_update(c + i * v.c_si + (th.j0 + j) * v.c_sj, sum, s);
        }
}

/* The register-prefetch k-unit kernel, for narrow rows of Q (see
 * tsm2_regs_fit): warps own a few rows each, lanes read 16-byte vectors of
 * consecutive k into registers while the previous ones are multiplied (leap
 * frogging), Q streams through double-buffered shared memory, and a warp
 * butterfly sums the lanes at the end. */
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

/* Launches tsm2_ring with shape SH: row blocks, the k split, and the
 * partial sums' workspace when there is one. */
template <typename SH>
static tsk_status tsm2_run(const tsk_view &v, const tsk_scalars<typename SH::elem> &s, cudaStream_t stream,
                           const tsk_params *params)
{
    typedef typename SH::elem T;
    const size_t smem = (size_t)SH::STAGES * SH::STAGE * sizeof(T);
    return tsk_run_row_blocks<tsm2_ring<SH>>(v, s, SH::NT, smem, SH::ROWS, SH::KU, params, stream,
                                             [&](dim3 grid, T *ws, int64_t kc) {
                                                 tsm2_ring<SH><<<grid, SH::NT, smem, stream>>>(v, s, ws, kc);
                                                 return cudaGetLastError();
                                             });
}

/* Which k-unit kernel a width gets: the register-prefetch one where a row
 * of Q fits in 32 bytes (S up to width 8, D and C up to 4, Z up to 2).
 * There Q's re-reads from L2 cost little, and its 1 KB runs along each row
 * of P with no k split beat the ring's 256-byte pieces; from there on the
 * ring wins (docs/kernels.md, 'Measurements behind the code's choices'). */
template <typename T, int W> struct tsm2_regs_fit {
    static const bool value = W * sizeof(T) <= 32;
};

/* Launches the register-prefetch k-unit kernel; blocks of `threads`. */
template <typename T, int W>
static tsk_status tsm2_run_regs(const tsk_view &v, const tsk_scalars<T> &s, cudaStream_t stream,
                                const tsk_params *params)
{
    int threads = tsk_threads_or(params, 256);
    if (threads % 32 || threads > tsk_max_threads<T, W>::value)
        return TSK_DECLINED;
    const int nwarp = threads / 32, VK = tsm2_vec<T, 64>::value;
    const int R = tsk_fit<T, W, 2>::value, KU = tsm2_depth<T, R * VK, 1, 2, 64 / W>::value;
    size_t smem = 2 * (size_t)32 * KU * VK * W * sizeof(T);
    int64_t blocks = (v.nl + nwarp * R - 1) / (nwarp * R);
    cudaError_t e = tsk_allow_smem<tsm2_k_unit<T, W, R, KU>>(smem);
    if (e == cudaSuccess) {
        tsm2_k_unit<T, W, R, KU><<<(unsigned)blocks, threads, smem, stream>>>(v, s);
        e = cudaGetLastError();
    }
    return tsk_status_of(e);
}

template <typename T, int W>
static tsk_status tsm2_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                              const tsk_params *params)
{
    tsk_view v;
    tsk_scalars<T> s;
    tsk_status done;
    /* k below 2^30: the kernel counts k in int (kbeg + kc stays below 2^31),
     * a few registers fewer in the main loop. */
    if (!tsk_view_begin<T>(call, ops, TS_CLASS_TSM2, W, INT_MAX / 2, stream, &v, &s, &done))
        return done;
    /* Both shapes copy P in 16-byte vectors along its unit stride: the
     * other stride and the base must keep them aligned. */
    const int64_t lead = v.p_si == 1 ? v.p_sk : v.p_si;
    if ((v.p_si != 1 && v.p_sk != 1) || (uintptr_t)v.p % 16 || lead % tsm2_vec<T, 64>::value)
        return TSK_DECLINED;
    if (v.p_si == 1)
        return tsm2_run<tsm2_rows_shape<T, W>>(v, s, stream, params);
    if constexpr (tsm2_regs_fit<T, W>::value)
        return tsm2_run_regs<T, W>(v, s, stream, params);
    else
        return tsm2_run<tsm2_kfast_shape<T, W>>(v, s, stream, params);
}

} /* namespace */

#define TSM2_ENTRY(p, P, T, W) TSK_ANY_ROW("tsm2_" #p "_w" #W, TS_CLASS_TSM2, P, W, (tsm2_launch<T, W>))
#define TSM2_UPTO32(p, P, T) \
    TSM2_ENTRY(p, P, T, 1) TSM2_ENTRY(p, P, T, 2) TSM2_ENTRY(p, P, T, 4) TSM2_ENTRY(p, P, T, 8) \
    TSM2_ENTRY(p, P, T, 16) TSM2_ENTRY(p, P, T, 32)

/* Width 64 in complex double would need 256 accumulator registers: cuBLAS. */
const tsk_instance tsk_tsm2_instances[] = {
    TSM2_UPTO32(s, TS_S, float) TSM2_ENTRY(s, TS_S, float, 64)
    TSM2_UPTO32(d, TS_D, double) TSM2_ENTRY(d, TS_D, double, 64)
    TSM2_UPTO32(c, TS_C, float2) TSM2_ENTRY(c, TS_C, float2, 64)
    TSM2_UPTO32(z, TS_Z, double2)
};
const size_t tsk_tsm2_ninstances = sizeof tsk_tsm2_instances / sizeof tsk_tsm2_instances[0];
