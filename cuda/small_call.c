#include "small_call.h"

#include <stdio.h>

#include "common/clock.h"
#include "compute.h"
#include "copy_pool.h"
#include "common/gpu_plugin.h"
#include "common/slicing.h"
#include "small_gemm.h"

/* Bytes moved up to which a call counts as small: packing on the calling
 * thread alone stays short of the pool's hand-off costs (docs/performance.md).
 * Each thread's context keeps a device buffer and a pinned one of this size,
 * so small calls never wait for the staging ring's lock, and a program of
 * small calls only never makes the ring. */
#define SMALL_CALL_BYTES ((int64_t)1 << 20)

/* Operands start on 256-byte boundaries, as cudaMalloc's would. */
static int64_t align_up(int64_t x) { return (x + 255) & ~(int64_t)255; }

static _Thread_local char phase_line[256];

const char *ts_small_phases(void) { return phase_line; }

/* Where a call's time went, at TSSHIM_VERBOSE >= 3 only (clock reads). */
typedef struct {
    int on;
    double t[5];
} phases;

static void mark(phases *ph, int i)
{
    if (!ph->on)
        return;
    ph->t[i] = ts_now();
}

int ts_small_gemm(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                  size_t why_len)
{
    /* The whole call as one slice: the regions each operand uses. */
    ts_slice_plan plan;
    ts_slice sl;
    ts_slice_plan_make(&plan, c, INT64_MAX);
    ts_slice_get(&plan, c, 0, &sl);
    const size_t es = ts_elem_size(c->prec);
    const void *host[TS_NOP] = { c->a, c->b, c->c };
    int64_t off[TS_NOP] = { 0, 0, 0 }, total = 0;
    for (int op = 0; op < TS_NOP; op++)
        if (plan.moves[op]) {
            off[op] = total;
            total = align_up(total + ts_region_elems(&sl.r[op]) * (int64_t)es);
        }
    if (total > SMALL_CALL_BYTES)
        return TS_SMALL_DECLINED;
    if (ts_gpu_mem_refused(cfg, total, why, why_len))
        return -1;

    phases ph = { .on = cfg->verbose >= 3 };
    phase_line[0] = 0;
    mark(&ph, 0);
    cudaError_t err = ts_gpu_fault(cfg, "alloc");
    if (!err && !ctx->small_dev)
        err = cudaMalloc(&ctx->small_dev, (size_t)SMALL_CALL_BYTES);
    if (!err && !ctx->small_host)
        err = cudaHostAlloc(&ctx->small_host, (size_t)SMALL_CALL_BYTES, cudaHostAllocPortable);
    if (err) {
        snprintf(why, why_len, "small calls' buffers: %s", cudaGetErrorString(err));
        return -1;
    }
    unsigned char *dev = ctx->small_dev, *pinned = ctx->small_host;

    /* Moving operands are packed (ld = rows); the others are used in place. */
    const void *ptr[TS_NOP];
    int64_t ld[TS_NOP], upload = 0, sent = 0;
    for (int op = 0; op < TS_NOP && !err; op++) {
        const ts_region *r = &sl.r[op];
        if (!plan.moves[op]) {
            ptr[op] = ts_region_at(host[op], r, es);
            ld[op] = r->ld;
            continue;
        }
        ptr[op] = dev + off[op];
        ld[op] = ts_max1(r->rows);
        if (sl.load[op]) {
            ts_copy_2d(pinned + off[op], (size_t)r->rows, ts_region_at(host[op], r, es), (size_t)r->ld,
                       (size_t)r->rows, (size_t)r->cols, es);
            upload = off[op] + ts_region_elems(r) * (int64_t)es;
            sent += ts_region_elems(r) * (int64_t)es;
        }
    }
    mark(&ph, 1);
    if (!err)
        err = ts_gpu_fault(cfg, "copy");
    if (!err && upload)
        err = cudaMemcpyAsync(dev, pinned, (size_t)upload, cudaMemcpyHostToDevice, ctx->stream);

    const ts_region *rc = &sl.r[TS_OP_C];
    const size_t c_bytes = (size_t)ts_region_elems(rc) * es;
    /* The small kernel writes C where the host unpacks it from. */
    const int direct = tsk_small_gemm_fits(c);
    if (!err) {
        ts_call sub = *c;
        sub.a = ptr[TS_OP_A], sub.lda = ld[TS_OP_A];
        sub.b = ptr[TS_OP_B], sub.ldb = ld[TS_OP_B];
        sub.c = (void *)ptr[TS_OP_C], sub.ldc = ld[TS_OP_C];
        tsk_operands ops = { sub.a, sub.lda, sub.b, sub.ldb, sub.c, sub.ldc };
        if (direct) {
            *path = "small";
            if (sl.store_c)
                ops.c = pinned + off[TS_OP_C];
            err = ts_gpu_fault(cfg, "kernel");
            if (!err)
                err = tsk_small_gemm(&sub, &ops, sub.c, sub.ldc, ctx->stream);
        } else
            err = ts_gpu_compute(&sub, &ops, ctx, cfg, path);
    }
    if (!err)
        err = ts_gpu_fault(cfg, "copy_back");
    if (!err && sl.store_c && !direct)
        err = cudaMemcpyAsync(pinned + off[TS_OP_C], ptr[TS_OP_C], c_bytes, cudaMemcpyDeviceToHost, ctx->stream);
    mark(&ph, 2);
    /* The write tracker's word on cached operands, while the device works. */
    int stale = !err && ts_call_prove(c);
    cudaError_t sync = cudaStreamSynchronize(ctx->stream);
    err = err ? err : sync;
    mark(&ph, 3);
    /* C is written only once all of it is back, from current operands: a
     * failure leaves it as it was. */
    if (!err && !stale && sl.store_c)
        ts_copy_2d((void *)ts_region_at(c->c, rc, es), (size_t)rc->ld, pinned + off[TS_OP_C], (size_t)rc->rows,
                   (size_t)rc->rows, (size_t)rc->cols, es);
    mark(&ph, 4);
    if (ph.on)
        snprintf(phase_line, sizeof phase_line,
                 "small %s bytes=%lld pack=%.1fus issue=%.1fus wait=%.1fus unpack=%.1fus", ts_routine_symbol(c->routine),
                 (long long)total, 1e6 * (ph.t[1] - ph.t[0]), 1e6 * (ph.t[2] - ph.t[1]), 1e6 * (ph.t[3] - ph.t[2]),
                 1e6 * (ph.t[4] - ph.t[3]));
    c->bytes_h2d += (uint64_t)sent; /* the host data, not the alignment gaps between operands */
    c->bytes_d2h += sl.store_c ? c_bytes : 0;
    if (err) {
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
        return -1;
    }
    return stale ? TS_GPU_STALE : 0;
}
