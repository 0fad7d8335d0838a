/* What the DMMA kernels share: mma.sync in FP64 on sm_90 (m16n8k8,
 * m16n8k16), 16 x 8 accumulator tiles in double and complex double, the
 * widening of single-precision operands, the padding of shared-memory tiles
 * against bank conflicts, and cp.async tile copies along an operand's unit
 * stride.  The m8n8k4 shape of sm_80 ran much slower than these
 * (docs/kernels.md, 'FP64 tensor cores'). */
#ifndef TSK_DMMA_CUH
#define TSK_DMMA_CUH

#include "tsk_copy.cuh"
#include "tsk_view.cuh"

/* c += a b over a 16 x 8 tile of C and 4 KI values of k (mma.sync
 * m16n8k4, m16n8k8, m16n8k16 in FP64, sm_90): with g = lane / 4 and
 * t = lane % 4, a[2 j + h] = A(g + 8 h, t + 4 j), b[j] = B(t + 4 j, g),
 * c[2 h + e] = C(g + 8 h, 2 t + e). */
template <int KI> __device__ __forceinline__ void dmma(double (&c)[4], const double (&a)[2 * KI], const double (&b)[KI]);
template <> __device__ __forceinline__ void dmma<2>(double (&c)[4], const double (&a)[4], const double (&b)[2])
{
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#endif
}
template <> __device__ __forceinline__ void dmma<4>(double (&c)[4], const double (&a)[8], const double (&b)[4])
{
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
        "{%12, %13, %14, %15}, {%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
          "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

/* A lane's four elements of a 16 x 8 tile of C (dmma's c), real and
 * imaginary parts apart so each part is one DMMA accumulator.  A complex
 * product is four real DMMAs. */
template <typename T> struct dmma_tile;
template <> struct dmma_tile<double> {
    double re[4];
    __device__ __forceinline__ void zero() { re[0] = re[1] = re[2] = re[3] = 0.0; }
    template <int KI> __device__ __forceinline__ void mma(const double (&a)[2 * KI], const double (&b)[KI])
    {
        dmma<KI>(re, a, b);
    }
    __device__ __forceinline__ double at(int i) const { return re[i]; }
};
template <> struct dmma_tile<double2> {
    double re[4], im[4];
    __device__ __forceinline__ void zero() { re[0] = re[1] = re[2] = re[3] = im[0] = im[1] = im[2] = im[3] = 0.0; }
    template <int KI> __device__ __forceinline__ void mma(const double2 (&a)[2 * KI], const double2 (&b)[KI])
    {
        double ar[2 * KI], ai[2 * KI], an[2 * KI], br[KI], bi[KI];
#pragma unroll
        for (int i = 0; i < 2 * KI; i++) {
            ar[i] = a[i].x;
            ai[i] = a[i].y;
            an[i] = -a[i].y;
        }
#pragma unroll
        for (int j = 0; j < KI; j++) {
            br[j] = b[j].x;
            bi[j] = b[j].y;
        }
        dmma<KI>(re, ar, br);
        dmma<KI>(re, an, bi);
        dmma<KI>(im, ar, bi);
        dmma<KI>(im, ai, br);
    }
    __device__ __forceinline__ double2 at(int i) const { return make_double2(re[i], im[i]); }
};

/* The type the DMMAs compute in: double for the real precisions, double2
 * for the complex ones.  Single-precision operands are widened as they are
 * read from shared memory and C is rounded once at the end; every product
 * and sum is then exact or rounded in double, so results stay within
 * single-precision rounding of the exact product (more accurate than
 * sgemm/cgemm in FP32).  They move as many bytes as double's per element
 * with half the arithmetic intensity of its FP32 pipe's reach. */
template <typename T> struct dmma_wide { typedef T type; };
template <> struct dmma_wide<float> { typedef double type; };
template <> struct dmma_wide<float2> { typedef double2 type; };
__device__ __forceinline__ double dmma_widen(float a) { return a; }
__device__ __forceinline__ double dmma_widen(double a) { return a; }
__device__ __forceinline__ double2 dmma_widen(float2 a) { return make_double2(a.x, a.y); }
__device__ __forceinline__ double2 dmma_widen(double2 a) { return a; }
template <typename T> __device__ __forceinline__ T dmma_narrow(typename dmma_wide<T>::type a);
template <> __device__ __forceinline__ float dmma_narrow<float>(double a) { return (float)a; }
template <> __device__ __forceinline__ double dmma_narrow<double>(double a) { return a; }
template <> __device__ __forceinline__ float2 dmma_narrow<float2>(double2 a) { return make_float2((float)a.x, (float)a.y); }
template <> __device__ __forceinline__ double2 dmma_narrow<double2>(double2 a) { return a; }

/* Row, within a group of 16, of half h of a DMMA's rows at g = lane / 4:
 * halves interleaved (pairs: row 2 g + h) or stacked (row g + 8 h). */
__host__ __device__ constexpr int dmma_row(bool pairs, int g, int h)
{
    return pairs ? 2 * g + h : g + 8 * h;
}

/* Element (o, in) of a tile of lines of ld elements: o ld + in, or, with
 * sw > 0, the line's 16-byte vectors (ve elements) permuted by an XOR with
 * o / sw % 8 (ld a multiple of 8 vectors): rows sw apart then start on
 * different banks with no padding. */
__host__ __device__ constexpr int dmma_index(int ld, int sw, int ve, int o, int in)
{
    return o * ld + (sw ? in ^ (int)((unsigned)o / sw % 8 * ve) : in);
}

/* A tile's line: LD elements, swizzled with row step SW (dmma_index) where
 * SW > 0, VE elements a 16-byte vector. */
template <int LD, int SW = 0, int VE = 1> struct dmma_line {
    static_assert(SW == 0 || LD % (8 * VE) == 0, "a swizzled line is whole groups of 8 vectors");
    __device__ static __forceinline__ int at(int o, int in) { return dmma_index(LD, SW, VE, o, in); }
};

/* Words (4 bytes) of the fragment element lane reads at k-step x from a
 * tile of ES bytes per element stored as rows of k (kfast) or as k-columns,
 * lines as dmma_index(ld, sw): the row is dmma_row(pairs, lane / 4, 0), the
 * k 4 x + lane % 4 (an A fragment; a B fragment reads as stacked rows). */
constexpr int dmma_read_word(int lane, int x, int ld, int sw, int es, bool kfast, bool pairs)
{
    const int row = dmma_row(pairs, lane / 4, 0), k = 4 * x + lane % 4, ve = 16 / es;
    return (kfast ? dmma_index(ld, sw, ve, row, k) : dmma_index(ld, sw, ve, k, row)) * es / 4;
}

/* Wavefronts of a fragment read: the worst bank's count of words, at the
 * worst of the first 8 k-steps. */
constexpr int dmma_read_wavefronts(int ld, int sw, int es, bool kfast, bool pairs)
{
    int worst = 0;
    for (int x = 0; x < 8; ++x) {
        int cnt[32] = {};
        for (int lane = 0; lane < 32; ++lane)
            for (int q = 0; q < es / 4; ++q) {
                int bank = (dmma_read_word(lane, x, ld, sw, es, kfast, pairs) + q) % 32;
                worst = ++cnt[bank] > worst ? cnt[bank] : worst;
            }
    }
    return worst;
}

/* The shortest line of at least `inner` elements, a multiple of 16 bytes
 * (vector copies), whose fragment reads take the fewest wavefronts. */
constexpr int dmma_padded_line(int inner, int es, bool kfast, bool pairs)
{
    int best = inner, best_cost = 1 << 30;
    for (int ld = inner; ld < inner + 64; ld += 16 / es) {
        int cost = dmma_read_wavefronts(ld, 0, es, kfast, pairs);
        if (cost < best_cost) {
            best_cost = cost;
            best = ld;
        }
    }
    return best;
}

/* Zeros a lane's accumulators: RP row pairs x NT column tiles. */
template <int RP, int NT, typename D> __device__ __forceinline__ void dmma_zero(dmma_tile<D> (&acc)[RP][NT])
{
#pragma unroll
    for (int pp = 0; pp < RP; pp++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
            acc[pp][nt].zero();
}

/* Element (d, k) of a tile of lines LN (dmma_line) stored as rows of k
 * (KFAST: line d) or as k-columns (line k). */
template <typename LN, bool KFAST, typename T> __device__ __forceinline__ T dmma_at(const T *st, int d, int k)
{
    return KFAST ? st[LN::at(d, k)] : st[LN::at(k, d)];
}

/* dmma's A fragments of RP row pairs from a tile, k-steps x to x + KI - 1:
 * a[pp][2 j + h] is row row0 + 16 pp + dmma_row(PAIRS, g, h), k 4 (x + j)
 * + t (g = lane / 4, t = lane % 4), conjugated where conj, widened. */
template <int RP, int KI, typename LN, bool KFAST, bool PAIRS, typename T>
__device__ __forceinline__ void dmma_load_a(typename dmma_wide<T>::type (&a)[RP][2 * KI], const T *st, int row0, int x,
                                            bool conj)
{
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int pp = 0; pp < RP; pp++)
#pragma unroll
        for (int i = 0; i < 2 * KI; i++)
            a[pp][i] = dmma_widen(
                tsk_conj(dmma_at<LN, KFAST>(st, row0 + 16 * pp + dmma_row(PAIRS, g, i % 2), 4 * (x + i / 2) + t), conj));
}

/* dmma's B fragment of column tile nt from a tile, k-steps x to x + KI -
 * 1: b[j] is column 8 nt + g, k 4 (x + j) + t, conjugated where conj,
 * widened. */
template <int KI, typename LN, bool KFAST, typename T>
__device__ __forceinline__ void dmma_load_b(typename dmma_wide<T>::type (&b)[KI], const T *st, int nt, int x, bool conj)
{
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int j = 0; j < KI; j++)
        b[j] = dmma_widen(tsk_conj(dmma_at<LN, KFAST>(st, 8 * nt + g, 4 * (x + j) + t), conj));
}

/* dmma_copy_tile with VE elements per copy. */
template <typename T, int OUTER, int INNER, typename LN, int VE, int THREADS, int L2PF>
__device__ __forceinline__ void dmma_copy_tile_by(T *st, const T *x, int64_t so, int64_t inner_left,
                                                  int64_t outer_left, const T *safe)
{
    const int per = INNER / VE, n = OUTER * per;
#pragma unroll
    for (int e = threadIdx.x % THREADS; e < n; e += THREADS) {
        const int o = e / per, in = e % per * VE;
        const int64_t left = inner_left - in;
        const int valid = o < outer_left && left > 0 ? (left < VE ? (int)left : VE) * (int)sizeof(T) : 0;
        tsk_cp_async<VE * sizeof(T), L2PF>(st + LN::at(o, in), valid ? x + o * so + in : safe, valid);
    }
}

/* Starts the copies of an OUTER x INNER tile, x[o * so + in], into line o
 * of st (lines LN, dmma_line), shared by THREADS threads (a warp, or a
 * block): 16 bytes a copy along the unit stride in where `vec` (the pointer
 * and so keep them aligned: dmma_vec_ok; uniform over the grid), one
 * element otherwise.
 * Elements with in >= inner_left or o >= outer_left are zero-filled (and
 * `safe`, a valid address, is the source of copies that read nothing).
 * L2PF: tsk_cp_async's L2 prefetch size. */
template <typename T, int OUTER, int INNER, typename LN, int THREADS = 32, int L2PF = 128>
__device__ __forceinline__ void dmma_copy_tile(T *st, const T *x, int64_t so, int64_t inner_left, int64_t outer_left,
                                               const T *safe, bool vec)
{
    const int VE = 16 / (int)sizeof(T);
    if (VE > 1 && vec)
        dmma_copy_tile_by<T, OUTER, INNER, LN, VE, THREADS, L2PF>(st, x, so, inner_left, outer_left, safe);
    else
        dmma_copy_tile_by<T, OUTER, INNER, LN, 1, THREADS, L2PF>(st, x, so, inner_left, outer_left, safe);
}

/* C = alpha acc + beta C in the view v for a lane's RP row pairs (acc[pp][nt]
 * at(2 h + e): row i0 + 16 pp + dmma_row(h) - r, column 8 nt + 2 t + e,
 * r = lane / 4), rows interleaved for the real types (dmma_pairs).  A
 * pair's elements are all read (beta != 0) before any is written: no read
 * can pass a write to C.  cvec: C and ldc keep pairs of T aligned.  raw:
 * C = acc (a partial sum; C is not read). */
/* Real types: the two 8-row halves of a DMMA's 16 rows interleave (row
 * 2 g + h, not g + 8 h), so a lane owns a 2 x 2 block of C and stores it as
 * pairs along C's unit stride.  Complex elements are paired already, and 8
 * consecutive rows keep their stores whole lines. */
template <typename T> struct dmma_pairs {
    static const bool value = sizeof(typename dmma_wide<T>::type) == 8;
};
template <typename T, int RP, int NT>
__device__ __forceinline__ void dmma_store(const dmma_tile<typename dmma_wide<T>::type> (&acc)[RP][NT],
                                           const tsk_view &v, const tsk_scalars<T> &s, bool cvec, bool raw,
                                           int64_t i0)
{
    const bool PAIRS = dmma_pairs<T>::value;
    const int r = threadIdx.x % 32 / 4, j0 = threadIdx.x % 4 * 2;
    const int64_t hstep = dmma_row(PAIRS, r, 1) - dmma_row(PAIRS, r, 0);
#pragma unroll
    for (int pp = 0; pp < RP; pp++) {
        const int64_t i = i0 + 16 * pp + dmma_row(PAIRS, r, 0) - r;
        if (i >= v.nl)
            break;
        const bool in1 = i + hstep < v.nl;
        T *ci = (T *)v.c + i * v.c_si;
        T cv[NT][4];
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int x = 0; x < 4; x++) {
                const int64_t j = nt * 8 + j0 + x % 2;
                const bool in = j < v.nw && (x < 2 || in1);
                cv[nt][x] = !s.beta_zero && !raw && in ? ci[x / 2 * hstep * v.c_si + j * v.c_sj] : tsk_zero<T>();
                if (raw)
                    cv[nt][x] = dmma_narrow<T>(acc[pp][nt].at(x));
                else if (in)
                    tsk_update(&cv[nt][x], dmma_narrow<T>(acc[pp][nt].at(x)), s);
            }
        /* Pairs along i (C's rows unit-stride) or along j (the mirror). */
        const bool pair_i = PAIRS && cvec && v.c_si == 1 && in1, pair_j = PAIRS && cvec && v.c_sj == 1;
#pragma unroll
        for (int nt = 0; nt < NT; nt++) {
            const int64_t j = nt * 8 + j0;
            if (pair_i) {
#pragma unroll
                for (int e = 0; e < 2; e++)
                    if (j + e < v.nw)
                        *reinterpret_cast<tsk_vec<T, 2> *>(ci + (j + e) * v.c_sj) =
                            tsk_vec<T, 2>{ { cv[nt][e], cv[nt][2 + e] } };
            } else if (pair_j && j + 1 < v.nw) {
#pragma unroll
                for (int h = 0; h < 2; h++)
                    if (h == 0 || in1)
                        *reinterpret_cast<tsk_vec<T, 2> *>(ci + h * hstep * v.c_si + j) =
                            tsk_vec<T, 2>{ { cv[nt][2 * h], cv[nt][2 * h + 1] } };
            } else {
#pragma unroll
                for (int x = 0; x < 4; x++)
                    if (j + x % 2 < v.nw && (x < 2 || in1))
                        ci[x / 2 * hstep * v.c_si + (j + x % 2) * v.c_sj] = cv[nt][x];
            }
        }
    }
}

/* 16-byte copies along an operand's unit stride need its pointer 16-byte
 * aligned and its other stride a multiple of their elements. */
template <typename T> static inline bool dmma_vec_ok(const void *x, int64_t other_stride)
{
    return (uintptr_t)x % 16 == 0 && other_stride % (16 / (int64_t)sizeof(T)) == 0;
}

/* Pairs of C's elements stored at once (dmma_store's cvec) need C aligned
 * to a pair and an even ldc. */
template <typename T> static inline bool dmma_pairs_ok(const void *c, int64_t ldc)
{
    return (uintptr_t)c % (2 * sizeof(T)) == 0 && ldc % 2 == 0;
}

/* Whether the kernel was compiled for an architecture with DMMA. */
template <typename K> static inline bool dmma_built(K kernel)
{
    cudaFuncAttributes fa;
    return cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.binaryVersion >= 90;
}

#endif
