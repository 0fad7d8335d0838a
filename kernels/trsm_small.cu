/* TRSM with a small triangle and a long B: row-parallel substitution.
 *
 * B is a set of independent lines: the rows of B for side R (x op(A) =
 * alpha b), its columns for side L (op(A) x = alpha b).  Both are one
 * triangular system M x = alpha b per line, with M = op(A) (side L) or
 * op(A)^T (side R).  Each block copies M once into shared memory as a
 * packed lower triangle M' (an upper M is reversed: M'(i, l) = M(t-1-i,
 * t-1-l), the line's elements taken in reverse order), off-diagonal
 * elements negated so that the substitution is a chain of FMAs; then each
 * thread solves one line at a time, CHUNK elements per step in registers
 * (unrolled at compile time): the elements of earlier steps, already back in
 * B, are read again for their contribution.  For side R, consecutive
 * threads read consecutive rows: B is read once (and its solved part again
 * from cache) and written once, coalesced. */
#include "tsk_trsm.h"

#include "tsk_complex.cuh"

namespace {

__device__ __forceinline__ float tsk_div(float a, float b) { return a / b; }
__device__ __forceinline__ double tsk_div(double a, double b) { return a / b; }
/* Complex a / b with b scaled first, so that |b|^2 cannot overflow. */
template <typename C, typename R> __device__ __forceinline__ C complex_div(C a, C b)
{
    R s = fmax(fabs(b.x), fabs(b.y));
    R br = b.x / s, bi = b.y / s, d = br * br + bi * bi;
    C q;
    q.x = ((a.x * br + a.y * bi) / d) / s;
    q.y = ((a.y * br - a.x * bi) / d) / s;
    return q;
}
__device__ __forceinline__ float2 tsk_div(float2 a, float2 b) { return complex_div<float2, float>(a, b); }
__device__ __forceinline__ double2 tsk_div(double2 a, double2 b) { return complex_div<double2, double>(a, b); }

__device__ __forceinline__ float tsk_neg(float a) { return -a; }
__device__ __forceinline__ double tsk_neg(double a) { return -a; }
__device__ __forceinline__ float2 tsk_neg(float2 a) { return make_float2(-a.x, -a.y); }
__device__ __forceinline__ double2 tsk_neg(double2 a) { return make_double2(-a.x, -a.y); }

template <typename T> __device__ __forceinline__ T tsk_one();
template <> __device__ __forceinline__ float tsk_one<float>() { return 1.0f; }
template <> __device__ __forceinline__ double tsk_one<double>() { return 1.0; }
template <> __device__ __forceinline__ float2 tsk_one<float2>() { return make_float2(1.0f, 0.0f); }
template <> __device__ __forceinline__ double2 tsk_one<double2>() { return make_double2(1.0, 0.0); }

/* The shape of one call, as the kernel reads it. */
struct trsm_shape {
    int64_t lines, lda, ldb;
    int t;          /* the triangle's order */
    bool left;      /* side L: a line is a column of B */
    bool lower;     /* M is lower triangular: no reversal */
    char trans;     /* 'N', 'T' or 'C' */
    bool unit;      /* diag U: the diagonal is 1 and not read */
};

/* op(A)(i, j) inside op(A)'s triangle, read from A's stored triangle. */
template <typename T> __device__ __forceinline__ T op_a(const T *a, const trsm_shape &s, int i, int j)
{
    if (s.trans == 'N')
        return a[i + (int64_t)j * s.lda];
    return tsk_conj(a[j + (int64_t)i * s.lda], s.trans == 'C');
}

/* M'(i, l), l <= i: M = op(A) or op(A)^T, reversed when upper. */
template <typename T> __device__ __forceinline__ T m_prime(const T *a, const trsm_shape &s, int i, int l)
{
    int r = s.lower ? i : s.t - 1 - i, q = s.lower ? l : s.t - 1 - l;
    return s.left ? op_a(a, s, r, q) : op_a(a, s, q, r);
}

__device__ __forceinline__ int64_t packed(int i, int l) { return (int64_t)i * (i + 1) / 2 + l; }

/* Element i of the solve order within a line: reversed when M is upper. */
__device__ __forceinline__ int elem(const trsm_shape &s, int i) { return s.lower ? i : s.t - 1 - i; }

/* Elements of a line solved per step, in registers. */
#define CHUNK 16

template <typename T>
__global__ void __launch_bounds__(128) trsm_lines(const T *__restrict__ a, T *__restrict__ b, trsm_shape s, T alpha)
{
    extern __shared__ __align__(16) unsigned char shared_raw[];
    T *m = reinterpret_cast<T *>(shared_raw);
    for (int idx = threadIdx.x; idx < s.t * s.t; idx += blockDim.x) {
        int i = idx / s.t, l = idx % s.t;
        if (l < i)
            m[packed(i, l)] = tsk_neg(m_prime(a, s, i, l));
        else if (l == i)
            m[packed(i, i)] = s.unit ? tsk_one<T>() : m_prime(a, s, i, i);
    }
    __syncthreads();
    for (int64_t line = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; line < s.lines;
         line += (int64_t)gridDim.x * blockDim.x) {
        /* Element e of the line: B(e, line) for side L, B(line, e) for side R. */
        T *base = s.left ? b + line * s.ldb : b + line;
        const int64_t step = s.left ? 1 : s.ldb;
        for (int c0 = 0; c0 < s.t; c0 += CHUNK) {
            T x[CHUNK];
#pragma unroll
            for (int i = 0; i < CHUNK; i++)
                if (c0 + i < s.t)
                    x[i] = tsk_mul(alpha, base[elem(s, c0 + i) * step]);
            /* The elements solved in earlier steps, already back in B. */
            for (int l = 0; l < c0; l++) {
                T xl = base[elem(s, l) * step];
#pragma unroll
                for (int i = 0; i < CHUNK; i++)
                    if (c0 + i < s.t)
                        x[i] = tsk_fma(m[packed(c0 + i, l)], xl, x[i]);
            }
#pragma unroll
            for (int i = 0; i < CHUNK; i++) {
                if (c0 + i < s.t) {
#pragma unroll
                    for (int l = 0; l < i; l++)
                        x[i] = tsk_fma(m[packed(c0 + i, c0 + l)], x[l], x[i]);
                    if (!s.unit)
                        x[i] = tsk_div(x[i], m[packed(c0 + i, c0 + i)]);
                }
            }
#pragma unroll
            for (int i = 0; i < CHUNK; i++)
                if (c0 + i < s.t)
                    base[elem(s, c0 + i) * step] = x[i];
        }
    }
}

template <typename T>
cudaError_t launch(const ts_call *call, const void *a, void *b, const trsm_shape &s, cudaStream_t stream)
{
    T alpha;
    memcpy(&alpha, call->alpha, sizeof alpha);
    const int threads = 128;
    int64_t blocks = (s.lines + threads - 1) / threads;
    /* Enough blocks for every SM several times over; each loads the triangle once. */
    if (blocks > 8192)
        blocks = 8192;
    size_t shared = (size_t)s.t * (s.t + 1) / 2 * sizeof(T);
    trsm_lines<T><<<(unsigned)blocks, threads, shared, stream>>>(static_cast<const T *>(a), static_cast<T *>(b), s,
                                                                alpha);
    return cudaGetLastError();
}

} // namespace

extern "C" tsk_status tsk_trsm(const ts_call *call, const void *a, int64_t lda, void *b, int64_t ldb,
                               cudaStream_t stream)
{
    if (call->k > TSK_TRSM_MAX_ORDER || call->k < 1)
        return TSK_DECLINED;
    trsm_shape s;
    s.left = call->side == 'L';
    s.lines = s.left ? call->n : call->m;
    s.lda = lda;
    s.ldb = ldb;
    s.t = (int)call->k;
    s.trans = call->transa;
    s.unit = call->diag == 'U';
    /* op(A) is lower when A is lower and not transposed, or upper and
     * transposed; side R solves with its transpose. */
    bool op_lower = (call->uplo == 'L') == (s.trans == 'N');
    s.lower = s.left ? op_lower : !op_lower;
    cudaError_t err;
    switch (call->prec) {
    case TS_S: err = launch<float>(call, a, b, s, stream); break;
    case TS_D: err = launch<double>(call, a, b, s, stream); break;
    case TS_C: err = launch<float2>(call, a, b, s, stream); break;
    default: err = launch<double2>(call, a, b, s, stream); break;
    }
    return err == cudaSuccess ? TSK_RAN : TSK_ERROR;
}
