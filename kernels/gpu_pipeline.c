/* Failure semantics.  BLAS callers expect C to be either the result or, when
 * the GPU fails, what the CPU BLAS computes from the original C.  Slices of
 * rows or columns of C are independent, so a slice's C is written back to
 * the caller's memory only after its kernel and its download succeeded, in
 * slice order; if slice j then fails, slices 0 .. j-1 are final and the
 * rest of the call (one GEMM on the rest of C, still original) is computed
 * by the CPU BLAS here.  Staging all of C until the end instead would cap
 * the calls the pipeline can take at the staging size, or serialise the
 * download after the last kernel.  A k-sliced call (TSMTTSM) downloads C
 * once after its last kernel, so it either completes or leaves C untouched.
 * Device C is updated in place by each kernel: a failure there is reported
 * by the caller as an error, as for any call on device memory. */
#define _GNU_SOURCE
#include "gpu_pipeline.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cpu_blas.h"
#include "gpu_copy_pool.h"
#include "gpu_gemm.h"
#include "gpu_staging.h"
#include "slicing.h"

enum { BUF_FREE = 0, BUF_UP, BUF_DOWN };

/* A slice whose C is on its way back: in staging buffers first_buf ..
 * first_buf + nbufs - 1 (mod nbuf), or straight into pinned memory. */
typedef struct {
    ts_slice s;
    int first_buf, nbufs;
} pending_store;

typedef struct {
    ts_call *c;
    const ts_config *cfg;
    ts_gpu_context *ctx;
    ts_staging *st;
    ts_slice_plan plan;
    size_t es;
    const void *host[TS_NOP];
    ts_residency res[TS_NOP];
    void *dev[TS_NOP][2];      /* per slot; a resident operand uses slot 0 */
    unsigned char buf_state[TS_STAGING_MAX_BUFS];
    int next_buf;
    pending_store pend[TS_STAGING_PENDING]; /* FIFO; entry i uses event returned[i] */
    int pend_head, pend_count;
    int64_t committed;         /* slices whose C is final in the caller's memory */
    const char *path;
} pipeline;

static const void *one_of(ts_prec p)
{
    static const float one_f[2] = { 1, 0 };
    static const double one_d[2] = { 1, 0 };
    return p == TS_S || p == TS_C ? (const void *)one_f : (const void *)one_d;
}

static int staged(const pipeline *p, int op) { return p->res[op] == TS_MEM_HOST; }

static void *dev_at(const pipeline *p, int op, int slot) { return p->dev[op][p->plan.sliced[op] ? slot : 0]; }

/* Offset of a piece inside its region's compact device copy (ld = rows). */
static size_t piece_offset(const ts_region *piece, const ts_region *r, size_t es)
{
    return (size_t)((piece->row - r->row) + (piece->col - r->col) * r->rows) * es;
}

/* Waits for the oldest pending slice's C, unpacks it into the caller's C
 * and frees its buffers: that slice is final. */
static cudaError_t finish_oldest(pipeline *p)
{
    if (!p->pend_count)
        return cudaErrorInvalidValue; /* the ring is too small for one slice: ruled out before */
    pending_store *ps = &p->pend[p->pend_head];
    cudaError_t err = cudaEventSynchronize(p->st->returned[p->pend_head]);
    if (err)
        return err;
    const ts_region *r = &ps->s.r[TS_OP_C];
    for (int i = 0; i < ps->nbufs; i++) {
        int b = (ps->first_buf + i) % p->st->nbuf;
        ts_region piece = ts_region_piece(r, p->es, p->st->buf_bytes, i);
        ts_copy_2d((void *)ts_region_at(p->host[TS_OP_C], &piece, p->es), (size_t)piece.ld, ts_staging_buf(p->st, b),
                   (size_t)piece.rows, (size_t)piece.rows, (size_t)piece.cols, p->es);
        p->buf_state[b] = BUF_FREE;
    }
    p->committed = ps->s.index + 1;
    p->pend_head = (p->pend_head + 1) % TS_STAGING_PENDING;
    p->pend_count--;
    return cudaSuccess;
}

/* The next staging buffer in ring order, once nothing uses it any more. */
static cudaError_t take_buffer(pipeline *p, int *out)
{
    int b = p->next_buf;
    cudaError_t err = cudaSuccess;
    while (!err && p->buf_state[b] == BUF_DOWN)
        err = finish_oldest(p);
    if (!err && p->buf_state[b] == BUF_UP)
        err = cudaEventSynchronize(p->st->buf_copied[b]);
    if (err)
        return err;
    p->buf_state[b] = BUF_FREE;
    p->next_buf = (b + 1) % p->st->nbuf;
    *out = b;
    return cudaSuccess;
}

static cudaError_t load_region(pipeline *p, int op, const ts_region *r, void *dst)
{
    size_t es = p->es;
    cudaStream_t s = p->st->h2d;
    const void *src = ts_region_at(p->host[op], r, es);
    if (!staged(p, op))
        return cudaMemcpy2DAsync(dst, (size_t)r->rows * es, src, (size_t)r->ld * es, (size_t)r->rows * es,
                                 (size_t)r->cols, cudaMemcpyDefault, s);
    int64_t n = ts_region_npieces(r, es, p->st->buf_bytes);
    for (int64_t i = 0; i < n; i++) {
        int b;
        cudaError_t err = take_buffer(p, &b);
        if (err)
            return err;
        ts_region piece = ts_region_piece(r, es, p->st->buf_bytes, i);
        unsigned char *buf = ts_staging_buf(p->st, b);
        ts_copy_2d(buf, (size_t)piece.rows, ts_region_at(p->host[op], &piece, es), (size_t)piece.ld,
                   (size_t)piece.rows, (size_t)piece.cols, es);
        /* Contiguous on both sides: whole columns of a compact region, or part of one column. */
        err = cudaMemcpyAsync((char *)dst + piece_offset(&piece, r, es), buf,
                              (size_t)ts_region_elems(&piece) * es, cudaMemcpyDefault, s);
        if (!err)
            err = cudaEventRecord(p->st->buf_copied[b], s);
        if (err)
            return err;
        p->buf_state[b] = BUF_UP;
    }
    return cudaSuccess;
}

static cudaError_t load(pipeline *p, const ts_slice *sl, int slot)
{
    ts_staging *st = p->st;
    cudaError_t err = cudaSuccess;
    /* The slot's previous slice must be done reading it. */
    if (sl->index >= 2 && (err = cudaStreamWaitEvent(st->h2d, st->computed[slot], 0)))
        return err;
    if (sl->index >= 2 && (err = cudaStreamWaitEvent(st->h2d, st->stored[slot], 0)))
        return err;
    for (int op = 0; op < TS_NOP && !err; op++) {
        if (!sl->load[op])
            continue;
        if ((err = ts_gpu_fault(p->cfg, "copy")))
            return err;
        err = load_region(p, op, &sl->r[op], dev_at(p, op, slot));
        p->c->bytes_h2d += (uint64_t)ts_region_elems(&sl->r[op]) * p->es;
    }
    return err ? err : cudaEventRecord(st->loaded[slot], st->h2d);
}

static cudaError_t compute(pipeline *p, const ts_slice *sl, int slot)
{
    ts_staging *st = p->st;
    cudaStream_t s = p->ctx->stream;
    cudaError_t err = cudaStreamWaitEvent(s, st->loaded[slot], 0);
    if (!err && sl->index >= 2)
        err = cudaStreamWaitEvent(s, st->stored[slot], 0);
    if (!err && sl->index > 0 && sl->index == p->plan.count - 1)
        err = ts_gpu_fault(p->cfg, "late_kernel");
    if (err)
        return err;

    ts_call sub = *p->c;
    sub.m = sl->m;
    sub.n = sl->n;
    sub.k = sl->k;
    if (!sl->first_k) {
        sub.beta = one_of(sub.prec);
        sub.beta_zero = 0;
        sub.beta_one = 1;
    }
    const void *ptr[TS_NOP];
    int64_t ld[TS_NOP];
    for (int op = 0; op < TS_NOP; op++) {
        const ts_region *r = &sl->r[op];
        if (p->plan.moves[op]) {
            ptr[op] = dev_at(p, op, slot);
            ld[op] = r->rows > 0 ? r->rows : 1;
        } else {
            ptr[op] = ts_region_at(p->host[op], r, p->es);
            ld[op] = r->ld;
        }
    }
    sub.a = ptr[TS_OP_A], sub.lda = ld[TS_OP_A];
    sub.b = ptr[TS_OP_B], sub.ldb = ld[TS_OP_B];
    sub.c = (void *)ptr[TS_OP_C], sub.ldc = ld[TS_OP_C];
    tsk_operands ops = { sub.a, sub.lda, sub.b, sub.ldb, sub.c, sub.ldc };
    err = ts_gpu_compute(&sub, &ops, p->ctx, p->cfg, &p->path);
    return err ? err : cudaEventRecord(st->computed[slot], s);
}

static cudaError_t store(pipeline *p, const ts_slice *sl, int slot)
{
    ts_staging *st = p->st;
    cudaError_t err = cudaSuccess;
    if (p->pend_count == TS_STAGING_PENDING)
        err = finish_oldest(p);
    if (!err)
        err = ts_gpu_fault(p->cfg, "copy_back");
    if (!err)
        err = cudaStreamWaitEvent(st->d2h, st->computed[slot], 0);
    if (err)
        return err;
    int pos = (p->pend_head + p->pend_count) % TS_STAGING_PENDING;
    pending_store *ps = &p->pend[pos];
    const ts_region *r = &sl->r[TS_OP_C];
    const char *src = dev_at(p, TS_OP_C, slot);
    ps->s = *sl;
    ps->nbufs = 0;
    ps->first_buf = p->next_buf;
    if (!staged(p, TS_OP_C)) {
        err = cudaMemcpy2DAsync((void *)ts_region_at(p->host[TS_OP_C], r, p->es), (size_t)r->ld * p->es, src,
                                (size_t)r->rows * p->es, (size_t)r->rows * p->es, (size_t)r->cols,
                                cudaMemcpyDefault, st->d2h);
    } else {
        int64_t n = ts_region_npieces(r, p->es, st->buf_bytes);
        for (int64_t i = 0; i < n && !err; i++) {
            int b;
            if ((err = take_buffer(p, &b)))
                break;
            ts_region piece = ts_region_piece(r, p->es, st->buf_bytes, i);
            p->buf_state[b] = BUF_DOWN;
            err = cudaMemcpyAsync(ts_staging_buf(st, b), src + piece_offset(&piece, r, p->es),
                                  (size_t)ts_region_elems(&piece) * p->es, cudaMemcpyDefault, st->d2h);
        }
        ps->nbufs = (int)n;
    }
    if (!err)
        err = cudaEventRecord(st->returned[pos], st->d2h);
    if (!err)
        err = cudaEventRecord(st->stored[slot], st->d2h);
    if (err)
        return err;
    p->c->bytes_d2h += (uint64_t)ts_region_elems(r) * p->es;
    p->pend_count++;
    return cudaSuccess;
}

/* The CPU BLAS of the process: from inside the shim the global ?gemm_ is
 * the shim's, whose re-entry guard forwards straight to the CPU BLAS. */
static int cpu_rest(const pipeline *p)
{
    static const char *const names[TS_NPREC] = { "sgemm_", "dgemm_", "cgemm_", "zgemm_" };
    const ts_call *c = p->c;
    ts_gemm_fn gemm = (ts_gemm_fn)dlsym(RTLD_DEFAULT, names[c->prec]);
    if (!gemm)
        return -1;
    ts_slice rest;
    ts_slice_rest(&p->plan, c, p->committed, &rest);
    int m = (int)rest.m, n = (int)rest.n, k = (int)rest.k;
    gemm(&c->transa, &c->transb, &m, &n, &k, c->alpha, ts_region_at(c->a, &rest.r[TS_OP_A], p->es), c->f.lda,
         ts_region_at(c->b, &rest.r[TS_OP_B], p->es), c->f.ldb, c->beta,
         (void *)ts_region_at(c->c, &rest.r[TS_OP_C], p->es), c->f.ldc, 1, 1);
    return 0;
}

static cudaError_t run_slices(pipeline *p)
{
    cudaError_t err = cudaSuccess;
    for (int64_t i = 0; i < p->plan.count && !err; i++) {
        ts_slice sl;
        int slot = (int)(i & 1);
        ts_slice_get(&p->plan, p->c, i, &sl);
        err = load(p, &sl, slot);
        if (!err)
            err = compute(p, &sl, slot);
        if (!err && sl.store_c)
            err = store(p, &sl, slot);
    }
    /* After a failure the slices already on their way back still count. */
    while (p->pend_count) {
        cudaError_t e = finish_oldest(p);
        if (e) {
            err = err ? err : e;
            break;
        }
    }
    return err;
}

static int fail(char *why, size_t why_len, const char *fmt, long long a, long long b)
{
    snprintf(why, why_len, fmt, a, b);
    return -1;
}

int ts_pipeline_gemm(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                     size_t why_len)
{
    pipeline p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.cfg = cfg;
    p.ctx = ctx;
    p.es = ts_elem_size(c->prec);
    p.path = "cublas";
    p.host[TS_OP_A] = c->a, p.res[TS_OP_A] = c->res_a;
    p.host[TS_OP_B] = c->b, p.res[TS_OP_B] = c->res_b;
    p.host[TS_OP_C] = c->c, p.res[TS_OP_C] = c->res_c;

    int64_t total = cfg->staging_mb << 20;
    int nbuf;
    size_t buf_bytes;
    ts_staging_layout(total, &nbuf, &buf_bytes);
    /* A quarter of the ring per slice: the next slice's upload and the last
     * slices' downloads fit beside it. */
    ts_slice_plan_make(&p.plan, c, (int64_t)((size_t)nbuf * buf_bytes / 4));

    int need_staging = 0;
    int64_t device_bytes = 0;
    for (int op = 0; op < TS_NOP; op++) {
        if (!p.plan.moves[op])
            continue;
        need_staging |= staged(&p, op);
        device_bytes += (p.plan.sliced[op] ? 2 : 1) * p.plan.max_elems[op] * (int64_t)p.es;
    }
    if (p.plan.moves[TS_OP_C] && staged(&p, TS_OP_C)) {
        ts_slice first;
        ts_slice_get(&p.plan, c, 0, &first);
        int64_t pieces = ts_region_npieces(&first.r[TS_OP_C], p.es, buf_bytes);
        if (pieces > nbuf / 2)
            return fail(why, why_len, "one slice of C needs %lld of the %lld staging buffers; raise TSSHIM_STAGING_MB",
                        (long long)pieces, (long long)nbuf);
    }
    if (cfg->gpu_mem_limit_mb && device_bytes > (cfg->gpu_mem_limit_mb << 20))
        return fail(why, why_len, "needs %lld MB, above TSSHIM_GPU_MEM_LIMIT=%lld", (long long)(device_bytes >> 20),
                    (long long)cfg->gpu_mem_limit_mb);

    cudaError_t err;
    p.st = ts_staging_acquire(ctx->device, total, need_staging, &err);
    if (!p.st) {
        snprintf(why, why_len, "pinned staging: %s", cudaGetErrorString(err));
        return -1;
    }

    err = ts_gpu_fault(cfg, "alloc");
    for (int op = 0; op < TS_NOP && !err; op++)
        for (int slot = 0; p.plan.moves[op] && slot < (p.plan.sliced[op] ? 2 : 1) && !err; slot++) {
            size_t bytes = (size_t)p.plan.max_elems[op] * p.es;
            err = cudaMallocFromPoolAsync(&p.dev[op][slot], bytes ? bytes : p.es, ctx->pool, ctx->stream);
        }
    /* The buffers are made on the compute stream and used on the copy streams too. */
    if (!err)
        err = cudaStreamSynchronize(ctx->stream);
    if (!err)
        err = run_slices(&p);

    /* Nothing may be in flight when the buffers and the ring are given back. */
    cudaStream_t streams[] = { p.st->h2d, ctx->stream, p.st->d2h };
    for (int i = 0; i < 3; i++) {
        cudaError_t e = cudaStreamSynchronize(streams[i]);
        err = err ? err : e;
    }
    for (int op = 0; op < TS_NOP; op++)
        for (int slot = 0; slot < 2; slot++)
            if (p.dev[op][slot])
                cudaFreeAsync(p.dev[op][slot], ctx->stream);
    cudaError_t e = cudaStreamSynchronize(ctx->stream);
    err = err ? err : e;
    ts_staging_release(p.st);

    *path = p.path;
    if (!err || (p.plan.moves[TS_OP_C] && p.committed == p.plan.count))
        return 0;
    snprintf(why, why_len, "%s", cudaGetErrorString(err));
    /* Part of C is final: the rest must be computed here, not the whole call again. */
    if (p.committed > 0 && p.plan.dim != TS_SLICE_K && c->res_c != TS_MEM_DEVICE && cpu_rest(&p) == 0) {
        *path = "gpu+cpu";
        return 0;
    }
    return -1;
}
