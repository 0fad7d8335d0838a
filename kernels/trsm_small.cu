/* TRSM with a small triangle and a long B: row-parallel substitution.
 *
 * B is a set of independent lines: the rows of B for side R (x op(A) =
 * alpha b), its columns for side L (op(A) x = alpha b).  Both are one
 * triangular system M x = alpha b per line, with M = op(A) (side L) or
 * op(A)^T (side R).  Each block copies M once into shared memory as a lower
 * triangle M' in solve order (an upper M is reversed: M'(i, l) = M(t-1-i,
 * t-1-l), the line's elements taken in reverse order), off-diagonal
 * elements negated so that the substitution is a chain of FMAs, and the
 * diagonal as reciprocals so that each element costs a multiplication, not
 * a division (OpenBLAS's kernels do the same).
 *
 * Each thread solves one line at a time, CH elements per step in registers
 * (unrolled at compile time, so the triangle's offsets are constants and
 * its rows are read as 16-byte shared loads); an order above CH takes
 * several steps, each reading the elements of earlier steps, already back
 * in B, again for their contribution.  The loads of the next step are
 * issued before the current one is solved, so that the memory pipeline
 * stays busy through the arithmetic.  For side R, consecutive threads read
 * consecutive rows: every access is coalesced.  For side L a line is a
 * contiguous column, so a warp reads and writes its 32 lines' elements
 * cooperatively (consecutive lanes on consecutive addresses) and exchanges
 * them through a shared tile.  The grid is persistent: as many blocks as
 * fit on the device at once, each building its triangle once. */
#include "tsk_trsm.h"

#include "tsk_complex.cuh"
#include "tsk_view.cuh"
#include "common/scalars.h"

namespace {

/* Complex 1 / b with b scaled first, so that |b|^2 cannot overflow. */
template <typename C, typename R> __device__ __forceinline__ C complex_recip(C b)
{
    R s = fmax(fabs(b.x), fabs(b.y));
    R br = b.x / s, bi = b.y / s, d = br * br + bi * bi;
    C q;
    q.x = (br / d) / s;
    q.y = (-bi / d) / s;
    return q;
}
__device__ __forceinline__ float tsk_recip(float b) { return 1.0f / b; }
__device__ __forceinline__ double tsk_recip(double b) { return 1.0 / b; }
__device__ __forceinline__ float2 tsk_recip(float2 b) { return complex_recip<float2, float>(b); }
__device__ __forceinline__ double2 tsk_recip(double2 b) { return complex_recip<double2, double>(b); }

__device__ __forceinline__ float tsk_neg(float a) { return -a; }
__device__ __forceinline__ double tsk_neg(double a) { return -a; }
__device__ __forceinline__ float2 tsk_neg(float2 a) { return make_float2(-a.x, -a.y); }
__device__ __forceinline__ double2 tsk_neg(double2 a) { return make_double2(-a.x, -a.y); }

/* The shape of one call, as the kernel reads it. */
struct trsm_shape {
    int64_t lines, lda, ldb;
    int t;          /* the triangle's order */
    bool lower;     /* M is lower triangular: no reversal */
    char trans;     /* 'N', 'T' or 'C' */
    bool unit;      /* diag U: the diagonal is 1 and not read */
    bool alpha_one; /* alpha = 1 is not applied, as the reference BLAS skips it ((1, 0) x Inf would make a NaN) */
};

/* op(A)(i, j) inside op(A)'s triangle, read from A's stored triangle. */
template <typename T> __device__ __forceinline__ T op_a(const T *a, const trsm_shape &s, int i, int j)
{
    if (s.trans == 'N')
        return a[i + (int64_t)j * s.lda];
    return tsk_conj(a[j + (int64_t)i * s.lda], s.trans == 'C');
}

/* M'(i, l), l <= i: M = op(A) or op(A)^T, reversed when upper. */
template <bool LEFT, typename T> __device__ __forceinline__ T m_prime(const T *a, const trsm_shape &s, int i, int l)
{
    int r = s.lower ? i : s.t - 1 - i, q = s.lower ? l : s.t - 1 - l;
    return LEFT ? op_a(a, s, r, q) : op_a(a, s, q, r);
}

/* Element i of the solve order within a line: reversed when M is upper. */
__device__ __forceinline__ int elem(const trsm_shape &s, int i) { return s.lower ? i : s.t - 1 - i; }

/* Element e of line `line`: B(e, line) for side L, B(line, e) for side R. */
template <bool LEFT> __device__ __forceinline__ int64_t at(const trsm_shape &s, int64_t line, int e)
{
    return LEFT ? line * s.ldb + e : line + (int64_t)e * s.ldb;
}

#define THREADS 128
#define WARPS (THREADS / 32)

__host__ __device__ constexpr int round_up(int n, int v) { return (n + v - 1) / v * v; }

/* Shared memory, in elements, for steps of CH elements and orders up to
 * CH NCH:
 *   inv      the reciprocals of M's diagonal, in solve order;
 *   tri(c)   step c's strict lower triangle, row i (i elements) at row(i);
 *   panel(c) M'(c CH + i, l) for the l < c CH of earlier steps at l CH + i,
 *            a column of the step's rows together;
 *   tile     side L: per warp, 32 lines of CH elements at stride CH + 1
 *            (a lane reading its own line meets no bank conflict).
 * Rows, panels and the reciprocals of a step start on 16 bytes. */
template <typename T, int CH, int NCH> struct layout {
    static constexpr int V = sizeof(T) >= 16 ? 1 : 16 / (int)sizeof(T), P = CH * NCH;
    /* The sum of round_up(r, V) over r < i, in closed form: a loop here,
     * called from unrolled code, costs the compiler minutes. */
    __host__ __device__ static constexpr int row(int i)
    {
        const int q = i / V, r = i % V;
        return V * (V * q * (q - 1) / 2 + (V - 1) * q + r * q + (r > 0 ? r - 1 : 0));
    }
    static constexpr int tri_size = row(CH);
    __host__ __device__ static constexpr int tri(int c) { return round_up(P, V) + c * tri_size; }
    __host__ __device__ static constexpr int panel(int c) { return tri(NCH) + CH * CH * c * (c - 1) / 2; }
    static constexpr int tile = panel(NCH);
    static constexpr int size(bool left) { return tile + (left ? WARPS * 32 * (CH + 1) : 0); }
};

/* v = p[0, N) as 16-byte loads, p on 16 bytes: the compiler cannot tell
 * the alignment of an offset known only at run time. */
template <typename T, int N> __device__ __forceinline__ void load16(T (&v)[N], const T *p)
{
    static_assert(N * sizeof(T) % 16 == 0, "whole 16-byte loads");
#pragma unroll
    for (int k = 0; k < N * (int)sizeof(T) / 16; k++) {
        const uint4 w = reinterpret_cast<const uint4 *>(p)[k];
        memcpy(reinterpret_cast<char *>(v) + 16 * k, &w, 16);
    }
}

/* Side L: a warp's cooperative access to the step's elements of its 32
 * lines from `first`, B's elements [lo, lo + len) of each column either way
 * round: slot q of a lane is element lo + lane % CH of line first + q 32 /
 * CH + lane / CH, consecutive lanes on consecutive addresses. */
template <typename T, int CH> struct warp_slots {
    T *p;        /* slot 0 */
    int64_t gap; /* from a slot to the next */
    int64_t rem; /* lines left from slot 0's line */
    bool on;     /* the lane's element is within the step */
    __device__ __forceinline__ bool has(int q) const { return on && q * (32 / CH) < rem; }
};

template <typename T, int CH>
__device__ __forceinline__ warp_slots<T, CH> slots_of(T *b, const trsm_shape &s, int64_t first, int c, int lane)
{
    const int c0 = c * CH, len = min(CH, s.t - c0), lo = s.lower ? c0 : s.t - c0 - len;
    const int64_t line = first + lane / CH;
    warp_slots<T, CH> w;
    w.p = b + line * s.ldb + lo + lane % CH;
    w.gap = 32 / CH * s.ldb;
    w.rem = s.lines - line;
    w.on = lane % CH < len;
    return w;
}

/* The raw elements of step c of the warp's 32 lines from `first`: side R,
 * element i of the step of the thread's own line; side L, slot q. */
template <bool LEFT, typename T, int CH>
__device__ __forceinline__ void fetch(T (&into)[CH], T *b, const trsm_shape &s, int64_t first, int c, int lane)
{
    if (LEFT) {
        const warp_slots<T, CH> w = slots_of<T, CH>(b, s, first, c, lane);
#pragma unroll
        for (int q = 0; q < CH; q++)
            into[q] = w.has(q) ? w.p[q * w.gap] : tsk_zero<T>();
    } else {
        const int c0 = c * CH, len = min(CH, s.t - c0);
        const int64_t line = first + lane;
        const T *p = b + at<false>(s, line, elem(s, c0));
        const int64_t step = s.lower ? s.ldb : -s.ldb;
#pragma unroll
        for (int i = 0; i < CH; i++)
            into[i] = i < len && line < s.lines ? p[i * step] : tsk_zero<T>();
    }
}

/* Side L: the warp's tile, its slots in fetch's order; `own` is the lane's
 * line, element i of the step's solve order at own[i * dir]. */
template <typename T, int CH> struct warp_tile {
    T *slots, *own;
    int dir; /* +1 lower, -1 upper (backwards from the step's last element) */
    __device__ __forceinline__ T &solved(int i) { return own[i * dir]; }
};

template <typename T, int CH>
__device__ __forceinline__ warp_tile<T, CH> tile_of(T *tile, const trsm_shape &s, int c, int lane)
{
    const int len = min(CH, s.t - c * CH);
    warp_tile<T, CH> w;
    w.slots = tile + lane / CH * (CH + 1) + lane % CH;
    w.own = tile + lane * (CH + 1) + (s.lower ? 0 : len - 1);
    w.dir = s.lower ? 1 : -1;
    return w;
}

template <typename T, int CH, int NCH, bool LEFT>
__global__ void __launch_bounds__(THREADS) trsm_lines(const T *__restrict__ a, T *b, trsm_shape s, T alpha)
{
    static_assert(32 % CH == 0 || !LEFT, "side L's cooperative reads take whole lines per warp");
    typedef layout<T, CH, NCH> L;
    extern __shared__ __align__(16) unsigned char shared_raw[];
    T *sh = reinterpret_cast<T *>(shared_raw);
    const int t = s.t;
    /* Rows past the order are zero: a step's panel reads them. */
    for (int idx = threadIdx.x; idx < L::P * L::P; idx += THREADS) {
        const int i = idx / L::P, l = idx % L::P, c = i / CH, r = i % CH;
        if (l == i)
            sh[i] = i < t && !s.unit ? tsk_recip(m_prime<LEFT>(a, s, i, i)) : tsk_zero<T>();
        else if (l < i) {
            T v = i < t ? tsk_neg(m_prime<LEFT>(a, s, i, l)) : tsk_zero<T>();
            if (l >= c * CH)
                sh[L::tri(c) + L::row(r) + l - c * CH] = v;
            else
                sh[L::panel(c) + l * CH + r] = v;
        }
    }
    __syncthreads();

    const int lane = threadIdx.x % 32;
    T *tile = sh + L::tile + threadIdx.x / 32 * 32 * (CH + 1);
    const int nch = (t + CH - 1) / CH;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    /* The warp's first line and step; the loop is uniform over the warp. */
    int64_t first = blockIdx.x * (int64_t)THREADS + threadIdx.x / 32 * 32;
    int c = 0;
    T next[CH];
    if (first < s.lines)
        fetch<LEFT>(next, b, s, first, c, lane);
    while (first < s.lines) {
        const int c0 = c * CH, len = min(CH, t - c0);
        const int64_t line = first + lane;
        T x[CH];
        if (LEFT) {
            warp_tile<T, CH> w = tile_of<T, CH>(tile, s, c, lane);
#pragma unroll
            for (int q = 0; q < CH; q++)
                w.slots[q * (32 / CH) * (CH + 1)] = next[q];
            __syncwarp();
#pragma unroll
            for (int i = 0; i < CH; i++)
                x[i] = i < len ? w.solved(i) : tsk_zero<T>();
        } else {
#pragma unroll
            for (int i = 0; i < CH; i++)
                x[i] = next[i];
        }
        /* The next step's loads go out before this one's arithmetic. */
        int nc = c + 1;
        int64_t nfirst = first;
        if (nc == nch)
            nc = 0, nfirst += stride;
        if (nfirst < s.lines)
            fetch<LEFT>(next, b, s, nfirst, nc, lane);

        if (!s.alpha_one) {
#pragma unroll
            for (int i = 0; i < CH; i++)
                x[i] = tsk_mul(alpha, x[i]);
        }
        if (NCH > 1 && line < s.lines) {
            /* The elements of earlier steps, already back in B (side L:
             * written by other lanes, ordered by the __syncwarp that ends
             * each step). */
            const T *panel = sh + L::panel(c);
#pragma unroll 4
            for (int l = 0; l < c0; l++) {
                const T xl = b[at<LEFT>(s, line, elem(s, l))];
                T m[CH];
                load16(m, panel + l * CH);
#pragma unroll
                for (int i = 0; i < CH; i++)
                    x[i] = tsk_fma(m[i], xl, x[i]);
            }
        }
        const T *tri = sh + L::tri(c), *inv = sh + c0;
#pragma unroll
        for (int i = 0; i < CH; i++) {
            if (i >= len)
                break;
#pragma unroll
            for (int l = 0; l < i; l++)
                x[i] = tsk_fma(tri[L::row(i) + l], x[l], x[i]);
            if (!s.unit)
                x[i] = tsk_mul(x[i], inv[i]);
        }

        if (LEFT) {
            warp_tile<T, CH> w = tile_of<T, CH>(tile, s, c, lane);
#pragma unroll
            for (int i = 0; i < CH; i++)
                if (i < len)
                    w.solved(i) = x[i];
            __syncwarp();
            const warp_slots<T, CH> out = slots_of<T, CH>(b, s, first, c, lane);
#pragma unroll
            for (int q = 0; q < CH; q++)
                if (out.has(q))
                    out.p[q * out.gap] = w.slots[q * (32 / CH) * (CH + 1)];
            __syncwarp();
        } else if (line < s.lines) {
            T *p = b + at<false>(s, line, elem(s, c0));
            const int64_t step = s.lower ? s.ldb : -s.ldb;
#pragma unroll
            for (int i = 0; i < CH; i++)
                if (i < len)
                    p[i * step] = x[i];
        }
        c = nc;
        first = nfirst;
    }
}

template <typename T, int CH, int NCH, bool LEFT>
tsk_status run(const trsm_shape &s, const void *a, void *b, T alpha, cudaStream_t stream)
{
    const size_t shared = (size_t)layout<T, CH, NCH>::size(LEFT) * sizeof(T);
    const int per_sm = tsk_resident_blocks<trsm_lines<T, CH, NCH, LEFT>>(THREADS, shared);
    if (per_sm == 0)
        return TSK_DECLINED;
    const int64_t blocks = tsk_persistent_grid(s.lines, THREADS, per_sm);
    trsm_lines<T, CH, NCH, LEFT><<<(unsigned)blocks, THREADS, shared, stream>>>(static_cast<const T *>(a),
                                                                                 static_cast<T *>(b), s, alpha);
    return tsk_status_of(cudaGetLastError());
}

/* The smallest step that holds the order, else steps of 16: larger steps
 * take more registers than they save in reads of earlier steps. */
template <typename T, bool LEFT> tsk_status run_order(const ts_call *call, const trsm_shape &s, const void *a, void *b,
                                                      cudaStream_t stream)
{
    T alpha;
    memcpy(&alpha, call->alpha, sizeof alpha);
    if (s.t <= 8)
        return run<T, 8, 1, LEFT>(s, a, b, alpha, stream);
    if (s.t <= 16)
        return run<T, 16, 1, LEFT>(s, a, b, alpha, stream);
    return run<T, 16, 4, LEFT>(s, a, b, alpha, stream);
}

template <typename T>
tsk_status run_side(const ts_call *call, const trsm_shape &s, const void *a, void *b, cudaStream_t stream)
{
    return call->side == 'L' ? run_order<T, true>(call, s, a, b, stream) : run_order<T, false>(call, s, a, b, stream);
}

} // namespace

static_assert(TSK_TRSM_MAX_ORDER <= 64, "run_order takes orders up to four steps of 16");

extern "C" tsk_status tsk_trsm(const ts_call *call, const void *a, int64_t lda, void *b, int64_t ldb,
                               cudaStream_t stream)
{
    if (call->k > TSK_TRSM_MAX_ORDER || call->k < 1)
        return TSK_DECLINED;
    trsm_shape s;
    const bool left = call->side == 'L';
    s.lines = left ? call->n : call->m;
    s.lda = lda;
    s.ldb = ldb;
    s.t = (int)call->k;
    s.trans = call->transa;
    s.unit = call->diag == 'U';
    s.alpha_one = ts_scalar_is(call->prec, call->alpha, 1.0);
    /* op(A) is lower when A is lower and not transposed, or upper and
     * transposed; side R solves with its transpose. */
    bool op_lower = (call->uplo == 'L') == (s.trans == 'N');
    s.lower = left ? op_lower : !op_lower;
    switch (call->prec) {
    case TS_S: return run_side<float>(call, s, a, b, stream);
    case TS_D: return run_side<double>(call, s, a, b, stream);
    case TS_C: return run_side<float2>(call, s, a, b, stream);
    default: return run_side<double2>(call, s, a, b, stream);
    }
}
