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
/* How host data flows.  The staging ring is split into an upload part and
 * a download part.  Upload pieces (at most one buffer of one operand of one
 * slice) are numbered in the order the H2D stream sends them; the copy pool
 * packs piece u into upload buffer u mod nup as soon as the DMA of piece
 * u - nup is done, so packing runs up to nup buffers ahead of the DMA,
 * across slices.  The calling thread only issues work: each DMA once its
 * piece is packed, the kernels, and the downloads of C into download
 * buffers.  A slice's C is unpacked by the pool once all of it is back (the
 * failure semantics above), while later slices move in both directions.
 * Between steps the calling thread sleeps on the pool and polls the CUDA
 * events; pool threads never call CUDA. */
#include "pipeline.h"
#include "plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/scalars.h"
#include "common/gpu_plugin.h"
#include "copy_pool.h"
#include "compute.h"
#include "common/cost_model.h"
#include "staging.h"
#include "common/slicing.h"

/* The longest the calling thread sleeps before it polls the CUDA events
 * again when no copy job finishes: a small part of one 16 MB DMA's time
 * (docs/performance.md). */
#define POLL_US 20

/* Unwinds the pipeline once p->stale is set: no CUDA call of it returns
 * this code. */
#define STALE_UNWIND cudaErrorNotPermitted

/* What the calling thread waited for: a free upload buffer (the H2D DMA
 * is behind), a packed piece (packing is behind), room in the download
 * ring (downloads or their unpacking are behind), the end of the call. */
enum { WAIT_H2D, WAIT_PACK, WAIT_RING, WAIT_END, NWAIT };

/* A staging buffer and the piece of a host operand it holds. */
typedef struct {
    ts_copy_job job;       /* its pack or unpack */
    ts_region piece;
    int op;
    int64_t slice;
    size_t dev_off;        /* where the piece goes in the slice's device copy */
} ring_buf;

/* A slice whose C is on its way back: in download pieces first .. first +
 * n - 1 (numbered in download order), or straight into pinned memory (n = 0). */
typedef struct {
    ts_slice s;
    int64_t first;
    int n;
    int unpacking;         /* all of it is back; the pool is unpacking it */
} pending_store;

/* The next upload piece to pack: piece `piece` of operand `op` of slice
 * sl; sl.index == plan.count when there is none. */
typedef struct {
    ts_slice sl;
    int op;
    int64_t piece;
} up_cursor;

typedef struct {
    double setup, wall, wait[NWAIT]; /* seconds of the calling thread */
    double load, compute, store, drain, release; /* seconds of the calling thread in each step, waits included */
    double pack, unpack;             /* thread-seconds of the pool */
    uint64_t packed, unpacked;       /* bytes through staging */
} phase_times;

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
    ring_buf *buf;             /* nup upload buffers, then ndown download buffers */
    int nup, ndown;
    up_cursor cur;
    int64_t up_posted, up_issued, up_done;  /* upload pieces given to the pool, DMA'd, known DMA'd */
    int64_t down_next, down_free;           /* download pieces taken, given back */
    pending_store pend[TS_STAGING_PENDING]; /* FIFO; entry i uses event returned[i] */
    int pend_head, pend_count;
    int64_t committed;         /* slices whose C is final in the caller's memory */
    int stale;                 /* a cached operand proved stale: C must stay as it was */
    const char *path;
    phase_times t;
} pipeline;

static _Thread_local char phase_line[480];

static int staged(const pipeline *p, int op) { return p->res[op] == TS_MEM_HOST; }

static void *dev_at(const pipeline *p, int op, int slot) { return p->dev[op][p->plan.sliced[op] ? slot : 0]; }

static size_t region_bytes(const pipeline *p, const ts_region *r) { return (size_t)ts_region_elems(r) * p->es; }

/* Offset of a piece inside its region's compact device copy (ld = rows). */
static size_t piece_offset(const ts_region *piece, const ts_region *r, size_t es)
{
    return (size_t)((piece->row - r->row) + (piece->col - r->col) * r->rows) * es;
}

static ring_buf *up_buf(const pipeline *p, int64_t u) { return &p->buf[u % p->nup]; }
static ring_buf *down_buf(const pipeline *p, int64_t d) { return &p->buf[p->nup + d % p->ndown]; }
static int buf_index(const pipeline *p, const ring_buf *b) { return (int)(b - p->buf); }
static unsigned char *staging_of(const pipeline *p, const ring_buf *b)
{
    return ts_staging_buf(p->st, buf_index(p, b));
}

/* Moves the cursor to the first staged upload piece at or after it. */
static void cursor_settle(pipeline *p)
{
    up_cursor *k = &p->cur;
    while (k->sl.index < p->plan.count) {
        for (; k->op < TS_NOP; k->op++, k->piece = 0)
            if (k->sl.load[k->op] && staged(p, k->op) &&
                k->piece < ts_region_npieces(&k->sl.r[k->op], p->es, p->st->buf_bytes))
                return;
        int64_t next = k->sl.index + 1;
        if (next < p->plan.count)
            ts_slice_get(&p->plan, p->c, next, &k->sl);
        else
            k->sl.index = next;
        k->op = 0;
    }
}

static void cursor_start(pipeline *p)
{
    p->cur.op = 0;
    p->cur.piece = 0;
    p->cur.sl.index = p->plan.count;
    if (!p->nup)
        return;
    ts_slice_get(&p->plan, p->c, 0, &p->cur.sl);
    cursor_settle(p);
}

/* Hands the pool every upload piece that has a free buffer. */
static void post_packs(pipeline *p)
{
    up_cursor *k = &p->cur;
    while (k->sl.index < p->plan.count && p->up_posted - p->up_done < p->nup) {
        ring_buf *b = up_buf(p, p->up_posted);
        const ts_region *r = &k->sl.r[k->op];
        b->piece = ts_region_piece(r, p->es, p->st->buf_bytes, k->piece);
        b->op = k->op;
        b->slice = k->sl.index;
        b->dev_off = piece_offset(&b->piece, r, p->es);
        ts_copy_submit(&b->job, staging_of(p, b), (size_t)b->piece.rows, ts_region_at(p->host[k->op], &b->piece, p->es),
                       (size_t)b->piece.ld, (size_t)b->piece.rows, (size_t)b->piece.cols, p->es);
        p->up_posted++;
        k->piece++;
        cursor_settle(p);
    }
}

/* Upload DMAs complete in stream order. */
static cudaError_t poll_uploads(pipeline *p)
{
    while (p->up_done < p->up_issued) {
        cudaError_t err = cudaEventQuery(p->st->buf_copied[buf_index(p, up_buf(p, p->up_done))]);
        if (err == cudaErrorNotReady)
            return cudaSuccess;
        if (err)
            return err;
        p->up_done++;
    }
    return cudaSuccess;
}

static void unpack(pipeline *p, pending_store *ps)
{
    for (int i = 0; i < ps->n; i++) {
        ring_buf *b = down_buf(p, ps->first + i);
        ts_copy_submit(&b->job, (void *)ts_region_at(p->host[TS_OP_C], &b->piece, p->es), (size_t)b->piece.ld,
                       staging_of(p, b), (size_t)b->piece.rows, (size_t)b->piece.rows, (size_t)b->piece.cols, p->es);
    }
    ps->unpacking = 1;
}

static int unpacked(const pipeline *p, const pending_store *ps)
{
    for (int i = 0; i < ps->n; i++)
        if (!ts_copy_done(&down_buf(p, ps->first + i)->job))
            return 0;
    return 1;
}

/* The oldest pending slice is in the caller's C: it is final. */
static void commit_oldest(pipeline *p)
{
    pending_store *ps = &p->pend[p->pend_head];
    for (int i = 0; i < ps->n; i++) {
        ring_buf *b = down_buf(p, ps->first + i);
        p->t.unpack += ts_copy_busy(&b->job);
        p->t.unpacked += region_bytes(p, &b->piece);
    }
    p->down_free += ps->n;
    p->committed = ps->s.index + 1;
    p->pend_head = (p->pend_head + 1) % TS_STAGING_PENDING;
    p->pend_count--;
}

/* Starts unpacking the slices whose C is back (downloads complete in
 * stream order) and commits the unpacked ones, in slice order. */
static cudaError_t poll_stores(pipeline *p)
{
    /* The write tracker's word on cached operands, asked once a slice's C
     * is on its way back (the device still at work) and before any C is
     * unpacked into the caller's memory. */
    if (p->pend_count && ts_call_prove(p->c))
        p->stale = 1;
    if (p->stale)
        return STALE_UNWIND;
    for (int i = 0; i < p->pend_count; i++) {
        int pos = (p->pend_head + i) % TS_STAGING_PENDING;
        if (p->pend[pos].unpacking)
            continue;
        cudaError_t err = cudaEventQuery(p->st->returned[pos]);
        if (err == cudaErrorNotReady)
            break;
        if (err)
            return err;
        unpack(p, &p->pend[pos]);
    }
    while (p->pend_count && p->pend[p->pend_head].unpacking && unpacked(p, &p->pend[p->pend_head]))
        commit_oldest(p);
    return cudaSuccess;
}

/* Everything that can move on without the calling thread waiting. */
static cudaError_t service(pipeline *p)
{
    cudaError_t err = poll_uploads(p);
    if (!err)
        post_packs(p);
    return err ? err : poll_stores(p);
}

typedef int (*ready_fn)(const pipeline *p, int64_t arg);

/* Keeps the pipeline moving until ready(p, arg); the time it waited counts
 * as `why`. */
static cudaError_t wait_for(pipeline *p, ready_fn ready, int64_t arg, int why)
{
    double t0 = 0;
    for (;;) {
        unsigned long epoch = ts_copy_epoch();
        cudaError_t err = service(p);
        if (err || ready(p, arg)) {
            if (t0 > 0)
                p->t.wait[why] += ts_now() - t0;
            return err;
        }
        if (t0 == 0)
            t0 = ts_now();
        if (!ts_copy_help())
            ts_copy_wait(&epoch, POLL_US);
    }
}

/* 1: the next upload piece is slice i's and packed; 0: slice i has no
 * piece left to send; -1: not yet known or not packed yet. */
static int up_next(const pipeline *p, int64_t i)
{
    if (p->up_issued < p->up_posted) {
        ring_buf *b = up_buf(p, p->up_issued);
        if (b->slice != i)
            return 0;
        return ts_copy_done(&b->job) ? 1 : -1;
    }
    return p->cur.sl.index > i ? 0 : -1;
}

static int up_offered(const pipeline *p, int64_t i) { return p->up_issued < p->up_posted || p->cur.sl.index > i; }
static int up_known(const pipeline *p, int64_t i) { return up_next(p, i) >= 0; }
static int pend_room(const pipeline *p, int64_t unused) { return (void)unused, p->pend_count < TS_STAGING_PENDING; }
static int down_room(const pipeline *p, int64_t n) { return p->down_next + n - p->down_free <= p->ndown; }
static int none_pending(const pipeline *p, int64_t unused) { return (void)unused, p->pend_count == 0; }

static cudaError_t issue_upload(pipeline *p, int slot)
{
    ring_buf *b = up_buf(p, p->up_issued);
    size_t bytes = region_bytes(p, &b->piece);
    p->t.pack += ts_copy_busy(&b->job);
    p->t.packed += bytes;
    cudaError_t err = cudaMemcpyAsync((char *)dev_at(p, b->op, slot) + b->dev_off, staging_of(p, b), bytes,
                                      cudaMemcpyDefault, p->st->h2d);
    if (!err)
        err = cudaEventRecord(p->st->buf_copied[buf_index(p, b)], p->st->h2d);
    if (!err)
        p->up_issued++;
    return err;
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
    for (int op = 0; op < TS_NOP; op++) {
        if (!sl->load[op])
            continue;
        if ((err = ts_gpu_fault(p->cfg, "copy")))
            return err;
        const ts_region *r = &sl->r[op];
        size_t rows = (size_t)r->rows * p->es;
        if (!staged(p, op) && (err = cudaMemcpy2DAsync(dev_at(p, op, slot), rows, ts_region_at(p->host[op], r, p->es),
                                                       (size_t)r->ld * p->es, rows, (size_t)r->cols,
                                                       cudaMemcpyDefault, st->h2d)))
            return err;
        p->c->bytes_h2d += region_bytes(p, r);
    }
    for (;;) {
        if ((err = wait_for(p, up_offered, sl->index, WAIT_H2D)) || (err = wait_for(p, up_known, sl->index, WAIT_PACK)))
            return err;
        if (!up_next(p, sl->index))
            break;
        if ((err = issue_upload(p, slot)))
            return err;
    }
    return cudaEventRecord(st->loaded[slot], st->h2d);
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
        sub.beta = ts_scalar_one(sub.prec);
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

/* Sends slice sl's C back: into download buffers when C is pageable,
 * straight into the caller's pinned C otherwise. */
static cudaError_t store(pipeline *p, const ts_slice *sl, int slot)
{
    ts_staging *st = p->st;
    const ts_region *r = &sl->r[TS_OP_C];
    int64_t n = staged(p, TS_OP_C) ? ts_region_npieces(r, p->es, st->buf_bytes) : 0;
    cudaError_t err = wait_for(p, pend_room, 0, WAIT_RING);
    if (!err)
        err = wait_for(p, down_room, n, WAIT_RING);
    if (!err)
        err = ts_gpu_fault(p->cfg, "copy_back");
    if (!err)
        err = cudaStreamWaitEvent(st->d2h, st->computed[slot], 0);
    if (err)
        return err;
    int pos = (p->pend_head + p->pend_count) % TS_STAGING_PENDING;
    const char *src = dev_at(p, TS_OP_C, slot);
    size_t rows = (size_t)r->rows * p->es;
    /* A pinned C is written by the download itself: the tracker's word
     * comes first (as in poll_stores). */
    if (!staged(p, TS_OP_C) && ts_call_prove(p->c))
        p->stale = 1;
    if (p->stale)
        return STALE_UNWIND;
    if (!staged(p, TS_OP_C))
        err = cudaMemcpy2DAsync((void *)ts_region_at(p->host[TS_OP_C], r, p->es), (size_t)r->ld * p->es, src, rows,
                                rows, (size_t)r->cols, cudaMemcpyDefault, st->d2h);
    for (int64_t i = 0; i < n && !err; i++) {
        ring_buf *b = down_buf(p, p->down_next + i);
        b->piece = ts_region_piece(r, p->es, st->buf_bytes, i);
        err = cudaMemcpyAsync(staging_of(p, b), src + piece_offset(&b->piece, r, p->es), region_bytes(p, &b->piece),
                              cudaMemcpyDefault, st->d2h);
    }
    if (!err)
        err = cudaEventRecord(st->returned[pos], st->d2h);
    if (!err)
        err = cudaEventRecord(st->stored[slot], st->d2h);
    if (err)
        return err;
    p->pend[pos] = (pending_store){ .s = *sl, .first = p->down_next, .n = (int)n };
    p->down_next += n;
    p->c->bytes_d2h += region_bytes(p, r);
    p->pend_count++;
    return cudaSuccess;
}

/* Waits until no copy job of the call runs: they point into the ring. */
static void wait_jobs(pipeline *p)
{
    for (int i = 0; i < p->nup + p->ndown; i++)
        ts_copy_finish(&p->buf[i].job);
}

/* After the last slice or a failure: the slices already on their way back
 * still count, and no copy job may outlive the call. */
static cudaError_t drain(pipeline *p, cudaError_t err)
{
    p->cur.sl.index = p->plan.count; /* nothing more to pack */
    cudaError_t e = wait_for(p, none_pending, 0, WAIT_END);
    wait_jobs(p);
    /* A failed poll can leave slices fully back and unpacked. */
    while (p->pend_count && p->pend[p->pend_head].unpacking)
        commit_oldest(p);
    return err ? err : e;
}

/* The clock for the phase line's steps, read only when it is printed. */
static double stamp(const pipeline *p) { return p->cfg->verbose >= 3 ? ts_now() : 0; }

static cudaError_t run_slices(pipeline *p)
{
    cudaError_t err = cudaSuccess;
    for (int64_t i = 0; i < p->plan.count && !err; i++) {
        ts_slice sl;
        int slot = (int)(i & 1);
        ts_slice_get(&p->plan, p->c, i, &sl);
        double t0 = stamp(p);
        err = load(p, &sl, slot);
        double t1 = stamp(p);
        if (!err)
            err = compute(p, &sl, slot);
        double t2 = stamp(p);
        if (!err && sl.store_c)
            err = store(p, &sl, slot);
        p->t.load += t1 - t0;
        p->t.compute += t2 - t1;
        p->t.store += stamp(p) - t2;
    }
    double t3 = stamp(p);
    err = drain(p, err);
    p->t.drain = stamp(p) - t3;
    return err;
}

/* The level-3 phase line: where the calling thread waited, what the pool
 * copied, and the rate each way over the whole pipeline. */
static void report(const pipeline *p)
{
    const phase_times *t = &p->t;
    double wall = t->wall > 0 ? t->wall : 1e-9;
    snprintf(phase_line, sizeof phase_line,
             "pipeline %s slices=%lld ring=%d+%dx%zuMB threads=%d setup=%.4fs wall=%.4fs up=%.3fGB %.1fGB/s "
             "down=%.3fGB %.1fGB/s pack=%.3fGB/%.3fs unpack=%.3fGB/%.3fs wait_h2d=%.4fs wait_pack=%.4fs "
             "wait_ring=%.4fs wait_end=%.4fs load=%.0fus compute=%.0fus store=%.0fus drain=%.0fus release=%.0fus",
             ts_routine_symbol(p->c->routine), (long long)p->plan.count, p->nup, p->ndown,
             p->st->buf_bytes >> 20, p->nup + p->ndown ? ts_copy_threads() : 0, t->setup, t->wall,
             1e-9 * (double)p->c->bytes_h2d,
             1e-9 * (double)p->c->bytes_h2d / wall, 1e-9 * (double)p->c->bytes_d2h,
             1e-9 * (double)p->c->bytes_d2h / wall, 1e-9 * (double)t->packed, t->pack, 1e-9 * (double)t->unpacked,
             t->unpack, t->wait[WAIT_H2D], t->wait[WAIT_PACK], t->wait[WAIT_RING], t->wait[WAIT_END],
             1e6 * t->load, 1e6 * t->compute, 1e6 * t->store, 1e6 * t->drain, 1e6 * t->release);
}

const char *ts_pipeline_phases(void) { return phase_line; }

/* The rest of the call, from the first slice not committed, by the CPU
 * BLAS the core lends (ts_core_ops). */
static int cpu_rest(const pipeline *p)
{
    const ts_core_ops *core = ts_core();
    if (!core)
        return -1;
    const ts_call *c = p->c;
    ts_slice rest;
    ts_slice_rest(&p->plan, c, p->committed, &rest);
    ts_call sub = *c;
    sub.m = rest.m;
    sub.n = rest.n;
    sub.k = rest.k;
    sub.a = ts_region_at(c->a, &rest.r[TS_OP_A], p->es);
    sub.b = ts_region_at(c->b, &rest.r[TS_OP_B], p->es);
    sub.c = (void *)ts_region_at(c->c, &rest.r[TS_OP_C], p->es);
    core->cpu_gemm(&sub);
    return 0;
}

/* Splits the ring: a slice's C must fit in the download part whole (it is
 * unpacked only once all of it is back), twice that lets the next slice's
 * C come back during the unpacking, and the rest packs ahead.  Returns the
 * buffers one slice of C needs. */
static int64_t split_ring(pipeline *p, int nbuf, size_t buf_bytes)
{
    ts_slice first;
    ts_slice_get(&p->plan, p->c, 0, &first);
    int64_t down = p->plan.moves[TS_OP_C] && staged(p, TS_OP_C) ? ts_region_npieces(&first.r[TS_OP_C], p->es, buf_bytes)
                                                                 : 0;
    int up = 0;
    for (int op = 0; op < TS_NOP; op++)
        up |= p->plan.moves[op] && staged(p, op) && (op != TS_OP_C || p->plan.reads_c);
    p->ndown = !down ? 0 : !up ? nbuf : (int)(2 * down < nbuf / 2 ? 2 * down : nbuf / 2);
    p->nup = up ? nbuf - p->ndown : 0;
    return down;
}

/* A quarter of the ring per slice (uploads pack ahead of it and the last
 * slices' C comes back beside it), and for a call that streams less than
 * the ring, a quarter of what it streams, MIN_SLICE_BYTES at least: its C
 * then comes back and is unpacked while later slices compute.  A k-sliced
 * call returns C once, at the end: more slices would only add kernels. */
#define MIN_SLICE_BYTES ((int64_t)1 << 20)
static int64_t slice_bytes(const ts_call *c, int64_t ring, double streamed)
{
    if (ts_slice_long_dim(c) == TS_SLICE_K)
        return ring / 4;
    int64_t quarter = (int64_t)(streamed / 4);
    int64_t b = quarter > MIN_SLICE_BYTES ? quarter : MIN_SLICE_BYTES;
    return b < ring / 4 ? b : ring / 4;
}

static int fail(char *why, size_t why_len, const char *fmt, long long a, long long b)
{
    snprintf(why, why_len, fmt, a, b);
    return -1;
}

/* Device buffers per operand (two slots when it is sliced), on the compute
 * stream; the copy streams use them once that stream is synchronised. */
static cudaError_t alloc_device(pipeline *p)
{
    cudaError_t err = ts_gpu_fault(p->cfg, "alloc");
    for (int op = 0; op < TS_NOP && !err; op++)
        for (int slot = 0; p->plan.moves[op] && slot < (p->plan.sliced[op] ? 2 : 1) && !err; slot++) {
            size_t bytes = (size_t)p->plan.max_elems[op] * p->es;
            err = cudaMallocFromPoolAsync(&p->dev[op][slot], bytes ? bytes : p->es, p->ctx->pool, p->ctx->stream);
        }
    if (!err && p->nup + p->ndown && !(p->buf = calloc((size_t)(p->nup + p->ndown), sizeof *p->buf)))
        err = cudaErrorMemoryAllocation;
    return err ? err : cudaStreamSynchronize(p->ctx->stream);
}

/* Nothing may be in flight when the buffers and the ring are given back. */
static cudaError_t release(pipeline *p)
{
    cudaStream_t streams[] = { p->st->h2d, p->ctx->stream, p->st->d2h };
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < 3; i++) {
        cudaError_t e = cudaStreamSynchronize(streams[i]);
        err = err ? err : e;
    }
    for (int op = 0; op < TS_NOP; op++)
        for (int slot = 0; slot < 2; slot++)
            if (p->dev[op][slot])
                cudaFreeAsync(p->dev[op][slot], p->ctx->stream);
    cudaError_t e = cudaStreamSynchronize(p->ctx->stream);
    free(p->buf);
    /* Only calls that the starting ring slows count towards its growth. */
    ts_staging_release(p->st, p->c->gpu_ring_cold ? p->t.packed + p->t.unpacked : 0);
    return err ? err : e;
}

int ts_pipeline_gemm(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                     size_t why_len)
{
    double t_start = ts_now();
    pipeline p;
    memset(&p, 0, sizeof p);
    phase_line[0] = 0;
    p.c = c;
    p.cfg = cfg;
    p.ctx = ctx;
    p.es = ts_elem_size(c->prec);
    p.path = "cublas";
    p.host[TS_OP_A] = c->a, p.res[TS_OP_A] = c->res_a;
    p.host[TS_OP_B] = c->b, p.res[TS_OP_B] = c->res_b;
    p.host[TS_OP_C] = c->c, p.res[TS_OP_C] = c->res_c;

    const int64_t full = cfg->staging_mb << 20;
    /* The bytes the call packs and unpacks: its pageable operands whole
     * (the cache's copies are device memory in this view of the call, and
     * what the route expected to be resident is not, here). */
    ts_call whole = *c;
    memset(whole.resident, 0, sizeof whole.resident);
    const double streamed = ts_call_staged_bytes(&whole, &ts_profile_defaults);
    int64_t total = ts_staging_bytes(ctx->device, full, (uint64_t)streamed), c_pieces;
    int nbuf;
    size_t buf_bytes;
    for (;;) {
        ts_staging_layout(total, (uint64_t)streamed, &nbuf, &buf_bytes);
        ts_slice_plan_make(&p.plan, c, slice_bytes(c, total, streamed));
        c_pieces = split_ring(&p, nbuf, buf_bytes);
        if (c_pieces <= nbuf / 2 || total == full)
            break;
        total = full; /* one slice of C needs more than the ring as it starts */
    }
    /* The packing threads wake while the call sets up, unless its pieces are
     * small enough for this thread to copy them. */
    if ((staged(&p, TS_OP_A) || staged(&p, TS_OP_B) || staged(&p, TS_OP_C)) && ts_copy_pooled(buf_bytes))
        ts_copy_wake();
    int64_t device_bytes = 0;
    for (int op = 0; op < TS_NOP; op++)
        if (p.plan.moves[op])
            device_bytes += (p.plan.sliced[op] ? 2 : 1) * p.plan.max_elems[op] * (int64_t)p.es;
    if (c_pieces > nbuf / 2)
        return fail(why, why_len, "one slice of C needs %lld of the %lld staging buffers; raise TSSHIM_STAGING_MB",
                    (long long)c_pieces, (long long)nbuf);
    if (ts_gpu_mem_refused(cfg, device_bytes, why, why_len))
        return -1;

    cudaError_t err = ts_gpu_fault(cfg, "pin");
    p.st = err ? NULL : ts_staging_acquire(ctx->device, total, (uint64_t)streamed, p.nup + p.ndown > 0, &err);
    if (!p.st) {
        snprintf(why, why_len, "pinned staging: %s", cudaGetErrorString(err));
        return -1;
    }
    /* On the starting ring, a call that streams no more than the ring is
     * laid out as on the full ring (ts_staging_layout, slice_bytes). */
    c->gpu_ring_cold = p.nup + p.ndown > 0 && ((total < full && streamed > (double)total) || p.st->made_now);
    err = alloc_device(&p);
    cursor_start(&p);
    double t_run = ts_now();
    p.t.setup = t_run - t_start;
    if (!err)
        err = run_slices(&p);
    double t_sync = ts_now();
    cudaError_t e = release(&p);
    err = err ? err : e;
    const double t_end = ts_now();
    p.t.release = t_end - t_sync;
    p.t.wait[WAIT_END] += p.t.release;
    p.t.wall = t_end - t_run;
    if (cfg->verbose >= 3)
        report(&p);

    *path = p.path;
    if (p.stale)
        return TS_GPU_STALE;
    if (!err || (p.plan.moves[TS_OP_C] && p.committed == p.plan.count))
        return 0;
    snprintf(why, why_len, "%s", cudaGetErrorString(err));
    /* Part of C is final: the rest must be computed here, not the whole call again. */
    if (p.committed > 0 && p.plan.dim != TS_SLICE_K && !ts_residency_cpu_unreadable(c->res_c) && cpu_rest(&p) == 0) {
        *path = "gpu+cpu";
        return 0;
    }
    return -1;
}
