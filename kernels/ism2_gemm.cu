/* ISM2 / TSMM: C = alpha P Q + beta C with P nl x nk long and skinny
 * (nk <= W), Q nk x nw small (nw <= W); see tsk_view.cuh for the mirror.
 * Q stays in shared memory for the whole run; a persistent grid
 * (blocks_per_sm blocks on each multiprocessor, the tcf of the ISM2 paper)
 * walks the rows.  A row is shared by W / JW threads, each producing JW
 * columns, so the accumulators fit in registers at every width.  A thread
 * owns R rows per pass, rb apart: with the long index on consecutive lanes,
 * every load of P and store of C fills whole sectors when that operand's
 * long side is unit-stride.  Narrow rows take several rows per thread so
 * enough loads are in flight; wide ones take two so each read of Q from
 * shared memory feeds two rows.  beta = 0 never reads C. */
#include "tsk_copy.cuh"
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 ism2_smem[];

/* Rows per thread and pass.  All loads of a pass are issued before its
 * first store, and no later load can pass that store (C and P may alias as
 * far as the compiler knows), so narrow rows take 32 bytes of P per thread
 * (one 4-byte row at a time was latency bound).  From width 16 on, where
 * multiply-adds and reads of Q bound the kernel, two rows share each read. */
template <typename T, int W> struct ism2_rows {
    static const int bytes = W * (int)sizeof(T);
    static const int value = bytes < 32 ? 32 / bytes : W >= 16 ? 2 : 1;
};

/* Columns per thread: 32 accumulator registers per row at most. */
template <typename T, int W> struct ism2_cols {
    static const int most = 32 / tsk_words<T>::value;
    static const int value = W < most ? W : most;
};

/* k values of each row loaded before they are used: 32 registers of loads
 * in flight over the R rows, at most 16 k values per row. */
template <typename T, int W, int R> struct ism2_chunk {
    static const int fit = 32 / (R * tsk_words<T>::value);
    static const int most = fit < 1 ? 1 : fit < 16 ? fit : 16;
    static const int value = W < most ? W : most;
};

/* The tile of C read before any of it is written: 16 registers, CJ of a
 * thread's columns (all, where they fit) of CG of its rows. */
template <typename T, int JW, int R> struct ism2_ctile {
    static const int cols = 16 / tsk_words<T>::value < JW ? 16 / tsk_words<T>::value : JW;
    static const int fit = 16 / (JW * tsk_words<T>::value);
    static const int rows = fit < 1 ? 1 : fit < R ? fit : R;
};

/* Elements of Q read at once from shared memory: one 16-byte vector, or a
 * thread's JW columns when narrower.  A warp's threads read the same
 * address (a broadcast), aligned since JW divides W. */
template <typename T, int JW> struct ism2_qvec {
    static const int full = 16 / (int)sizeof(T);
    static const int value = JW < full ? JW : full;
};

/* Blocks of 256 threads per SM the registers must allow (0: no bound).
 * Double from width 16 (64 accumulators, 32 registers of loads) fits 128
 * registers without spills, so two blocks stay resident; unbounded, ptxas
 * took 132-136.  Under that bound float from width 32 and complex spill, and
 * the rest stay below it anyway; bounding narrow instances would only let
 * ptxas spend registers up to the bound. */
template <typename T, int W> struct ism2_blocks {
    static const int value = 0;
};
template <int W> struct ism2_blocks<double, W> {
    static const int value = W >= 16 ? 2 : 0;
};

template <typename T, int W, int JW, int R>
__global__ void __launch_bounds__(256, ism2_blocks<T, W>::value) ism2_kernel(tsk_view v, tsk_scalars<T> s)
{
    T *qs = reinterpret_cast<T *>(ism2_smem); /* qs[kk * W + j] */
    const T *q = (const T *)v.q, *p = (const T *)v.p;
    T *c = (T *)v.c;
    for (int e = threadIdx.x; e < W * W; e += blockDim.x) {
        int kk = e / W, j = e % W;
        qs[e] = kk < v.nk && j < v.nw ? tsk_conj(q[kk * v.q_sk + j * v.q_sj], v.q_conj) : tsk_zero<T>();
    }
    __syncthreads();

    const int tpr = W / JW, rb = blockDim.x / tpr;
    const int r = threadIdx.x % rb, j0 = threadIdx.x / rb * JW;
    const int KC = ism2_chunk<T, W, R>::value, N = ism2_qvec<T, JW>::value;
    const int CG = ism2_ctile<T, JW, R>::rows, CJ = ism2_ctile<T, JW, R>::cols;
    /* k values and columns of this thread that exist, as 32-bit counts;
     * a thread's rows step by rb: pstep elements in P, cstep in C. */
    const int nk = (int)v.nk, nj = (int)(v.nw - j0);
    const int64_t pstep = rb * v.p_si, cstep = rb * v.c_si;
    const int64_t rows = (int64_t)rb * R, nrb = (v.nl + rows - 1) / rows;
    for (int64_t b = blockIdx.x; b < nrb; b += gridDim.x) {
        /* Rows past nl read and write nothing; a thread whose first row is
         * past it has none (this also keeps Q's reads in the loop: hoisted
         * out of it, they took up to 128 registers at width 8). */
        const int64_t i0 = b * rows + r;
        if (i0 >= v.nl)
            continue;
        const int nin = v.nl - i0 < rows ? (int)(v.nl - i0) : (int)rows;
        const T *pk[R];
        bool in[R];
#pragma unroll
        for (int u = 0; u < R; u++) {
            pk[u] = u ? pk[u - 1] + pstep : p + i0 * v.p_si;
            in[u] = u * rb < nin;
        }
        T acc[R][JW];
#pragma unroll
        for (int u = 0; u < R; u++)
#pragma unroll
            for (int jj = 0; jj < JW; jj++)
                acc[u][jj] = tsk_zero<T>();
#pragma unroll
        for (int k0 = 0; k0 < W; k0 += KC) {
            if (k0 >= nk)
                break;
            /* The chunk of every row is loaded before any is used; k past
             * nk reads nothing and counts as zero. */
            T a[R][KC];
#pragma unroll
            for (int x = 0; x < KC; x++)
#pragma unroll
                for (int u = 0; u < R; u++) {
                    a[u][x] = in[u] && k0 + x < nk ? tsk_conj(*pk[u], v.p_conj) : tsk_zero<T>();
                    pk[u] += v.p_sk;
                }
#pragma unroll
            for (int x = 0; x < KC; x++)
#pragma unroll
                for (int jj = 0; jj < JW; jj += N) {
                    tsk_vec<T, N> qv = *reinterpret_cast<const tsk_vec<T, N> *>(qs + (k0 + x) * W + j0 + jj);
#pragma unroll
                    for (int n = 0; n < N; n++)
#pragma unroll
                        for (int u = 0; u < R; u++)
                            acc[u][jj + n] = tsk_fma(a[u][x], qv.e[n], acc[u][jj + n]);
                }
        }
        /* C is read (beta != 0) a CG x CJ tile at a time before any of it
         * is written: no read can pass a write to C, so one element's round
         * trip would otherwise wait on the one before. */
        T *cu = c + i0 * v.c_si + j0 * v.c_sj;
#pragma unroll
        for (int u0 = 0; u0 < R; u0 += CG, cu += CG * cstep)
#pragma unroll
            for (int j1 = 0; j1 < JW; j1 += CJ) {
                T cv[CG][CJ];
                T *cr = cu + j1 * v.c_sj;
#pragma unroll
                for (int g = 0; g < CG; g++, cr += cstep) {
                    T *cj = cr;
#pragma unroll
                    for (int jj = 0; jj < CJ; jj++, cj += v.c_sj)
                        cv[g][jj] = !s.beta_zero && in[u0 + g] && j1 + jj < nj ? *cj : tsk_zero<T>();
                }
                cr = cu + j1 * v.c_sj;
#pragma unroll
                for (int g = 0; g < CG; g++, cr += cstep) {
                    T *cj = cr;
#pragma unroll
                    for (int jj = 0; jj < CJ; jj++, cj += v.c_sj)
                        if (in[u0 + g] && j1 + jj < nj) {
                            tsk_update(&cv[g][jj], acc[u0 + g][j1 + jj], s);
                            *cj = cv[g][jj];
                        }
                }
            }
    }
}

template <typename T, int W>
static tsk_status ism2_launch(const ts_call *call, const tsk_operands *ops, cudaStream_t stream,
                              const tsk_params *params)
{
    tsk_view v;
    tsk_scalars<T> s;
    tsk_status done;
    if (!tsk_view_begin<T>(call, ops, TS_CLASS_ISM2, W, W, stream, &v, &s, &done))
        return done;
    const int JW = ism2_cols<T, W>::value, R = ism2_rows<T, W>::value;
    int threads = tsk_threads_or(params, 256), bps = tsk_blocks_per_sm_or(params, 4);
    int rb = threads / (W / JW);
    if (threads > 256 || threads % 32 || rb % 32)
        return TSK_DECLINED;
    const int64_t blocks = tsk_persistent_grid(v.nl, (int64_t)rb * R, bps);
    size_t smem = (size_t)W * W * sizeof(T);
    cudaError_t e = tsk_allow_smem<ism2_kernel<T, W, JW, R>>(smem);
    if (e == cudaSuccess) {
        ism2_kernel<T, W, JW, R><<<(unsigned)blocks, threads, smem, stream>>>(v, s);
        e = cudaGetLastError();
    }
    return tsk_status_of(e);
}

} /* namespace */

#define ISM2_ENTRY(p, P, T, W) TSK_ANY_ROW("ism2_" #p "_w" #W, TS_CLASS_ISM2, P, W, (ism2_launch<T, W>))
#define ISM2_WIDTHS(p, P, T) \
    ISM2_ENTRY(p, P, T, 1) ISM2_ENTRY(p, P, T, 2) ISM2_ENTRY(p, P, T, 4) ISM2_ENTRY(p, P, T, 8) \
    ISM2_ENTRY(p, P, T, 16) ISM2_ENTRY(p, P, T, 32) ISM2_ENTRY(p, P, T, 64)

const tsk_instance tsk_ism2_instances[] = {
    ISM2_WIDTHS(s, TS_S, float)
    ISM2_WIDTHS(d, TS_D, double)
    ISM2_WIDTHS(c, TS_C, float2)
    ISM2_WIDTHS(z, TS_Z, double2)
};
const size_t tsk_ism2_ninstances = sizeof tsk_ism2_instances / sizeof tsk_ism2_instances[0];
