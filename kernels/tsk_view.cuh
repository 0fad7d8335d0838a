/* The index view shared by TSM2 and ISM2: both compute, over a long index i,
 * a skinny index j < nw and an inner index kk < nk,
 *     C(i, j) = alpha sum_kk P(i, kk) Q(kk, j) + beta C(i, j),
 * where P is the operand with the long side.  Non-mirrored calls have
 * P = op(A), Q = op(B); mirrored ones (the long side in n) compute
 * C^T = op(B)^T op(A)^T, so P = op(B)^T, Q = op(A)^T.  Transposes and the
 * mirror become strides, so one kernel template serves every layout. */
#ifndef TSK_VIEW_CUH
#define TSK_VIEW_CUH

#include <atomic>

#include "tsk_complex.cuh"
#include "tsk_pool.h"
#include "tsk_registry.h"

struct tsk_view {
    const void *p;
    int64_t p_si, p_sk;
    const void *q;
    int64_t q_sk, q_sj;
    void *c;
    int64_t c_si, c_sj;
    int64_t nl, nk, nw;
    bool p_conj, q_conj;
};

static inline tsk_view tsk_view_of(const ts_call *call, const tsk_operands *ops)
{
    tsk_view v;
    bool a_n = call->transa == 'N', b_n = call->transb == 'N';
    v.nk = call->k;
    if (!call->mirror) {
        v.p = ops->a;
        v.p_si = a_n ? 1 : ops->lda;
        v.p_sk = a_n ? ops->lda : 1;
        v.p_conj = call->transa == 'C';
        v.q = ops->b;
        v.q_sk = b_n ? 1 : ops->ldb;
        v.q_sj = b_n ? ops->ldb : 1;
        v.q_conj = call->transb == 'C';
        v.c_si = 1;
        v.c_sj = ops->ldc;
        v.nl = call->m;
        v.nw = call->n;
    } else {
        v.p = ops->b;
        v.p_si = b_n ? ops->ldb : 1;
        v.p_sk = b_n ? 1 : ops->ldb;
        v.p_conj = call->transb == 'C';
        v.q = ops->a;
        v.q_sk = a_n ? ops->lda : 1;
        v.q_sj = a_n ? 1 : ops->lda;
        v.q_conj = call->transa == 'C';
        v.c_si = ops->ldc;
        v.c_sj = 1;
        v.nl = call->n;
        v.nw = call->m;
    }
    v.c = ops->c;
    return v;
}

/* Vector loads and cp.async need element-aligned pointers; a host array of
 * COMPLEX*16 may be only 8-byte aligned, and then cuBLAS takes the call. */
static inline bool tsk_aligned(const tsk_operands *ops, size_t elem)
{
    return (uintptr_t)ops->a % elem == 0 && (uintptr_t)ops->b % elem == 0 &&
           (uintptr_t)ops->c % elem == 0;
}

/* What every TSM2 and ISM2 launch checks first: the call's class, a width
 * the instance holds (and an inner extent, for instances that keep all of Q
 * at once), element-aligned operands.  alpha = 0 is answered here: C =
 * beta C, A and B never read.  Returns true when the caller goes on to its
 * kernel with v and s; otherwise *done is the call's status. */
template <typename T>
static inline bool tsk_view_begin(const ts_call *call, const tsk_operands *ops, ts_class cls, int64_t max_w,
                                  int64_t max_k, cudaStream_t stream, tsk_view *v, tsk_scalars<T> *s,
                                  tsk_status *done)
{
    *done = TSK_DECLINED;
    if (call->cls != cls)
        return false;
    *v = tsk_view_of(call, ops);
    if (v->nw > max_w || v->nk > max_k || !tsk_aligned(ops, sizeof(T)))
        return false;
    *s = tsk_scalars_of<T>(call);
    if (!s->alpha_zero)
        return true;
    *done = tsk_status_of(tsk_scale_c<T>(call, (T *)ops->c, ops->ldc, stream));
    return false;
}

/* TSMTTSM's start (C is m x n, both <= W; k long): declines what the
 * instance cannot take and finishes the calls that need no product (m or n
 * zero: nothing; k or alpha zero: C = beta C), answering false with *done
 * set; true when the kernel is to run. */
template <typename T>
static inline bool tsk_tsmttsm_begin(const ts_call *call, const tsk_operands *ops, int64_t w, cudaStream_t stream,
                                     tsk_status *done)
{
    *done = TSK_DECLINED;
    if (call->cls != TS_CLASS_TSMTTSM || call->m > w || call->n > w || !tsk_aligned(ops, sizeof(T)))
        return false;
    *done = TSK_RAN;
    if (call->m == 0 || call->n == 0)
        return false;
    if (call->k != 0 && !tsk_scalars_of<T>(call).alpha_zero)
        return true;
    *done = tsk_status_of(tsk_scale_c<T>(call, (T *)ops->c, ops->ldc, stream));
    return false;
}

/* The tuning row's block size and blocks per SM, or `dflt` where the row
 * leaves them 0 (or there is no row). */
static inline int tsk_threads_or(const tsk_params *params, int dflt)
{
    return params && params->threads > 0 ? params->threads : dflt;
}
static inline int tsk_blocks_per_sm_or(const tsk_params *params, int dflt)
{
    return params && params->blocks_per_sm > 0 ? params->blocks_per_sm : dflt;
}

/* The answers cached below belong to a device: an opt-in to its context,
 * attributes and occupancy to its model, and a process may launch on
 * several (device operands run where they live).  The first TS_MAX_DEVICES
 * devices keep a slot each; later ones ask the runtime on every call. */
#define TSK_DEVICES TS_MAX_DEVICES

/* ask(dev) for the current device, once per device: known[dev] holds the
 * answer, 0 meaning not known yet (a 0 answer is asked again).  0 when the
 * runtime names no current device. */
template <typename F> static inline int tsk_once_per_device(std::atomic<int> (&known)[TSK_DEVICES], F ask)
{
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0)
        return 0;
    if (dev >= TSK_DEVICES)
        return ask(dev);
    int n = known[dev].load(std::memory_order_relaxed);
    if (n == 0) {
        n = ask(dev);
        known[dev].store(n, std::memory_order_relaxed);
    }
    return n;
}

/* Attribute A of the current device, asked of the runtime once per device;
 * 0 when it cannot say. */
template <cudaDeviceAttr A> static inline int tsk_device_attr(void)
{
    static std::atomic<int> known[TSK_DEVICES];
    return tsk_once_per_device(known, [](int dev) {
        int n = 0;
        return cudaDeviceGetAttribute(&n, A, dev) == cudaSuccess ? n : 0;
    });
}

static inline int tsk_sm_count(void)
{
    const int n = tsk_device_attr<cudaDevAttrMultiProcessorCount>();
    return n > 0 ? n : 1;
}

/* Blocks of a persistent grid over `units` of work, `per_block` a block at
 * a time: one per share, but no more than bps resident on each SM. */
static inline int64_t tsk_persistent_grid(int64_t units, int64_t per_block, int bps)
{
    const int64_t shares = (units + per_block - 1) / per_block, cap = (int64_t)bps * tsk_sm_count();
    return shares < cap ? shares : cap;
}

/* The most dynamic shared memory a block may have with an opt-in. */
static inline int tsk_smem_most(void)
{
    return tsk_device_attr<cudaDevAttrMaxSharedMemoryPerBlockOptin>();
}

/* Launches of kernel K above 48 KB of dynamic shared memory must opt in.
 * The opt-in is the device's most, once per kernel and device, not each
 * launch's need: a kernel launched with several block sizes, or from
 * several threads, would otherwise have its limit lowered by one launch
 * under another's feet (ISM2 DMMA Z width 16 at 256 threads failed after a
 * 128-thread call), and no call pays for it again.  A device's slot holds
 * the bytes it opted in to, so a launch looks the device up once. */
template <auto K> static inline cudaError_t tsk_allow_smem(size_t bytes)
{
    static std::atomic<int> opted[TSK_DEVICES];
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    cudaError_t e = cudaErrorInvalidValue;
    const int most = tsk_once_per_device(opted, [&](int) {
        const int m = tsk_smem_most();
        if (m > 48 * 1024)
            e = cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, m);
        return e == cudaSuccess ? m : 0;
    });
    if (most == 0)
        return e;
    return bytes <= (size_t)most ? cudaSuccess : cudaErrorInvalidValue;
}

static inline tsk_status tsk_status_of(cudaError_t e)
{
    return e == cudaSuccess ? TSK_RAN : TSK_ERROR;
}

/* Opts kernel K in to `smem` bytes of dynamic shared memory
 * (tsk_allow_smem) and answers how many blocks of `threads` fit on an SM
 * at once (0 when the runtime refuses), asked of the runtime once per
 * kernel, block size (smem is a function of the two) and device, not on
 * every call. */
template <auto K> static inline int tsk_resident_blocks(int threads, size_t smem)
{
    static std::atomic<int> cached[1024 / 32 + 1][TSK_DEVICES];
    return tsk_once_per_device(cached[threads / 32 % (1024 / 32 + 1)], [&](int) {
        int n = 0;
        if (tsk_allow_smem<K>(smem) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, K, threads, smem) != cudaSuccess || n < 1)
            return 0;
        return n;
    });
}

/* The current device's pool (tsk_device_pool), or NULL. */
static inline cudaMemPool_t tsk_workspace_pool(void)
{
    int dev = -1;
    return cudaGetDevice(&dev) == cudaSuccess ? tsk_device_pool(dev) : NULL;
}

/* Runs launch(ws), a kernel that writes `parts` partial results (rows x
 * cols each, packed, rows fastest) into the workspace ws, then sums the
 * partials in order into C (strides c_si, c_sj; alpha, beta).  With
 * `direct` the kernel updates C itself and ws is NULL.  The workspace comes
 * from the device's pool (tsk_pool.h; its default pool if that cannot be
 * made) on the call's stream and is freed behind the sum, so concurrent
 * calls on different streams never share it. */
template <typename T, typename F>
static inline tsk_status tsk_run_parts(int64_t parts, bool direct, int64_t rows, int64_t cols, T *c, int64_t c_si,
                                       int64_t c_sj, const tsk_scalars<T> &s, cudaStream_t stream, F launch)
{
    T *ws = NULL;
    if (!direct) {
        const size_t bytes = (size_t)(parts * rows * cols) * sizeof(T);
        cudaMemPool_t pool = tsk_workspace_pool();
        if ((pool ? cudaMallocFromPoolAsync((void **)&ws, bytes, pool, stream)
                  : cudaMallocAsync((void **)&ws, bytes, stream)) != cudaSuccess)
            return TSK_ERROR;
    }
    cudaError_t e = launch(ws);
    if (e == cudaSuccess && ws)
        e = tsk_sum_partials<T>(ws, (int)parts, rows, cols, c, c_si, c_sj, s, stream);
    if (ws) {
        cudaError_t f = cudaFreeAsync(ws, stream);
        e = e != cudaSuccess ? e : f;
    }
    return tsk_status_of(e);
}

/* k per range when k is split over blocks as well as the rows: the number
 * of ranges (at most 32, each at least 4 steps) that fills the last wave of
 * `slots` resident blocks best, ties going to fewer ranges (less
 * partial-sum traffic).  A multiple of `step`; all of k when the rows alone
 * fill the device as well. */
static inline int64_t tsk_split_k(int64_t rowblocks, int64_t nk, int64_t step, int64_t slots)
{
    int64_t most = nk / (4 * step), best = 1;
    double best_fill = 0;
    if (most > 32)
        most = 32;
    for (int64_t s = 1; s <= most || s == 1; s++) {
        int64_t blocks = rowblocks * s, waves = (blocks + slots - 1) / slots;
        double fill = (double)blocks / (double)(waves * slots);
        if (fill > best_fill + 1e-9) {
            best_fill = fill;
            best = s;
        }
    }
    if (best <= 1)
        return nk > 0 ? nk : 1;
    return ((nk + best - 1) / best + step - 1) / step * step;
}

/* Runs kernel K over blocks of `rows` rows of the view and, where the rows
 * alone leave the last wave of resident blocks short, over ranges of k as
 * well (tsk_split_k in steps of `step`, the ranges' partial sums added by
 * tsk_run_parts).  launch(grid, ws, kc) starts K: grid.x row blocks,
 * grid.y ranges of kc values of k, ws NULL when it updates C itself.
 * params->blocks_per_sm, when set, replaces the occupancy as the resident
 * blocks the split fills. */
template <auto K, typename T, typename F>
static inline tsk_status tsk_run_row_blocks(const tsk_view &v, const tsk_scalars<T> &s, int threads, size_t smem,
                                            int64_t rows, int64_t step, const tsk_params *params,
                                            cudaStream_t stream, F launch)
{
    int per_sm = tsk_resident_blocks<K>(threads, smem);
    if (per_sm <= 0)
        return TSK_DECLINED;
    per_sm = tsk_blocks_per_sm_or(params, per_sm);
    const int64_t blocks = (v.nl + rows - 1) / rows;
    const int64_t kc = tsk_split_k(blocks, v.nk, step, (int64_t)tsk_sm_count() * per_sm);
    const int64_t splits = v.nk > kc ? (v.nk + kc - 1) / kc : 1;
    return tsk_run_parts<T>(splits, splits == 1, v.nl, v.nw, (T *)v.c, v.c_si, v.c_sj, s, stream, [&](T *ws) {
        return launch(dim3((unsigned)blocks, (unsigned)splits), ws, kc);
    });
}

/* Register tiles are sized so accumulators stay within `budget` 32-bit
 * registers: at most this many rows (or columns) of width W per thread. */
template <typename T, int W, int MAXR> struct tsk_fit {
    static const int raw = 64 / (W * tsk_words<T>::value);
    static const int value = raw < 1 ? 1 : (raw > MAXR ? MAXR : raw);
};

/* Register tiles plus the loads in flight need more than the 128 registers
 * a 512-thread block leaves each thread, except at the narrowest widths:
 * other kernels cap blocks at 256 threads. */
template <typename T, int W> struct tsk_max_threads {
    static const int value = W * tsk_words<T>::value <= 4 ? 512 : 256;
};

#endif
