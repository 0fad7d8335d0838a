/* ISM2 / TSMM: C = alpha P Q + beta C with P nl x nk long and skinny
 * (nk <= W), Q nk x nw small (nw <= W); see tsk_view.cuh for the mirror.
 * Q stays in shared memory for the whole run; a persistent grid
 * (blocks_per_sm blocks on each multiprocessor, the tcf of the ISM2 paper)
 * walks the rows.  A row is shared by W / JW threads, each producing JW
 * columns, so the accumulators fit in registers at every width; with the
 * long index on consecutive lanes, every store of C fills whole sectors
 * when C's long side is unit-stride.  beta = 0 never reads C. */
#include "tsk_view.cuh"

namespace {

extern __shared__ double2 ism2_smem[];

/* k values loaded before they are used: loads in flight per thread. */
template <typename T, int W> struct ism2_chunk {
    static const int most = 32 / tsk_words<T>::value < 16 ? 32 / tsk_words<T>::value : 16;
    static const int value = W < most ? W : most;
};

/* Columns per thread: 32 accumulator registers at most. */
template <typename T, int W> struct ism2_cols {
    static const int most = 32 / tsk_words<T>::value;
    static const int value = W < most ? W : most;
};

template <typename T, int W, int JW>
__global__ void __launch_bounds__(256) ism2_kernel(tsk_view v, tsk_scalars<T> s)
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
    const int KC = ism2_chunk<T, W>::value;
    const int64_t nrb = (v.nl + rb - 1) / rb;
    for (int64_t b = blockIdx.x; b < nrb; b += gridDim.x) {
        int64_t i = b * rb + r;
        if (i >= v.nl)
            continue;
        const T *prow = p + i * v.p_si;
        T acc[JW];
#pragma unroll
        for (int jj = 0; jj < JW; jj++)
            acc[jj] = tsk_zero<T>();
#pragma unroll
        for (int k0 = 0; k0 < W; k0 += KC) {
            if (k0 >= v.nk)
                break;
            T a[KC];
#pragma unroll
            for (int u = 0; u < KC; u++)
                a[u] = k0 + u < v.nk ? tsk_conj(prow[(k0 + u) * v.p_sk], v.p_conj) : tsk_zero<T>();
#pragma unroll
            for (int u = 0; u < KC; u++)
#pragma unroll
                for (int jj = 0; jj < JW; jj++)
                    acc[jj] = tsk_fma(a[u], qs[(k0 + u) * W + j0 + jj], acc[jj]);
        }
#pragma unroll
        for (int jj = 0; jj < JW; jj++)
            if (j0 + jj < v.nw)
                tsk_update(c + i * v.c_si + (j0 + jj) * v.c_sj, acc[jj], s);
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
    const int JW = ism2_cols<T, W>::value;
    int threads = params && params->threads ? params->threads : 256;
    int bps = params && params->blocks_per_sm ? params->blocks_per_sm : 4;
    int rb = threads / (W / JW);
    if (threads > 256 || threads % 32 || rb % 32)
        return TSK_DECLINED;
    int64_t blocks = (v.nl + rb - 1) / rb, cap = (int64_t)bps * tsk_sm_count();
    if (blocks > cap)
        blocks = cap;
    size_t smem = (size_t)W * W * sizeof(T);
    cudaError_t e = tsk_allow_smem(ism2_kernel<T, W, JW>, smem);
    if (e == cudaSuccess) {
        ism2_kernel<T, W, JW><<<(unsigned)blocks, threads, smem, stream>>>(v, s);
        e = cudaGetLastError();
    }
    return tsk_status_of(e);
}

} /* namespace */

#define ISM2_ENTRY(p, P, T, W, LO) { "ism2_" #p "_w" #W, TS_CLASS_ISM2, P, '*', '*', LO, W, ism2_launch<T, W> },
#define ISM2_WIDTHS(p, P, T) \
    ISM2_ENTRY(p, P, T, 1, 1) ISM2_ENTRY(p, P, T, 2, 2) ISM2_ENTRY(p, P, T, 4, 3) \
    ISM2_ENTRY(p, P, T, 8, 5) ISM2_ENTRY(p, P, T, 16, 9) ISM2_ENTRY(p, P, T, 32, 17) \
    ISM2_ENTRY(p, P, T, 64, 33)

const tsk_instance tsk_ism2_instances[] = {
    ISM2_WIDTHS(s, TS_S, float)
    ISM2_WIDTHS(d, TS_D, double)
    ISM2_WIDTHS(c, TS_C, float2)
    ISM2_WIDTHS(z, TS_Z, double2)
};
const size_t tsk_ism2_ninstances = sizeof tsk_ism2_instances / sizeof tsk_ism2_instances[0];
