#include "cost_model.h"

/* CPU rates are derived from shared/GPU.md's OpenBLAS timings: TSM2 d
 * m=k=20480 n=2 32 ms (105 GB/s), n=64 186 ms (290 GF/s); ISM2 d m=2^24 k=n=16
 * 48 GB/s (OpenBLAS 0.3.26 beside the end-to-end benchmark on the H100 host;
 * GPU.md's 0.3.21 ran 57), k=n=64 200 GF/s (tsshim-calibrate there);
 * TSMTTSM ('T','N') 8.6 GB/s; square 4096 1.2 TF/s.  The staged rates are what
 * whole calls through the pipeline achieved on the H100 host
 * (bench/results/e2e-H100-*: 37-42 GB/s up for TSM2 and TSMTTSM, 23 GB/s
 * each way at once for ISM2), the host copy rate is tsshim-calibrate's. */
const ts_profile ts_profile_defaults = {
    .cpu_gbs = { [TS_CLASS_NONE] = 50, [TS_CLASS_TSM2] = 105, [TS_CLASS_ISM2] = 48,
                 [TS_CLASS_TSMTTSM] = 8.6, [TS_CLASS_RANKK] = 50, [TS_CLASS_REGULAR] = 50 },
    .cpu_gflops = { [TS_CLASS_NONE] = 100, [TS_CLASS_TSM2] = 290, [TS_CLASS_ISM2] = 200,
                    [TS_CLASS_TSMTTSM] = 60, [TS_CLASS_RANKK] = 800, [TS_CLASS_REGULAR] = 1200 },
    .h2d_pinned_gbs = 55.6,
    .d2h_pinned_gbs = 55.4,
    .h2d_staged_gbs = 40,
    .d2h_staged_gbs = 45,
    .host_copy_gbs = 51,
    .gpu_mem_gbs = 3000,
    .gpu_gflops = { 50000, 50000, 50000, 50000 },
    .gpu_overhead_s = 30e-6,
};

double ts_call_flops(const ts_call *c) { return ts_gemm_flops(c->prec, c->m, c->n, c->k); }

static double size_a(const ts_call *c) { return (double)c->m * (double)c->k * (double)ts_elem_size(c->prec); }
static double size_b(const ts_call *c) { return (double)c->k * (double)c->n * (double)ts_elem_size(c->prec); }
static double size_c(const ts_call *c) { return (double)c->m * (double)c->n * (double)ts_elem_size(c->prec); }

double ts_call_bytes(const ts_call *c)
{
    return size_a(c) + size_b(c) + size_c(c) * (c->beta_zero ? 1.0 : 2.0);
}

static double max2(double a, double b) { return a > b ? a : b; }

double ts_predict_cpu_seconds(const ts_call *c, const ts_profile *p)
{
    /* Single precision moves half the bytes per flop and runs twice the rate. */
    double speed = (c->prec == TS_S || c->prec == TS_C) ? 2.0 : 1.0;
    return max2(ts_call_bytes(c) / (p->cpu_gbs[c->cls] * 1e9),
                ts_call_flops(c) / (p->cpu_gflops[c->cls] * 1e9 * speed));
}

/* One direction's copies: `pinned` seconds of DMA straight from pinned or
 * registered memory, `staged` seconds of pageable data through the
 * pipeline, `staged_bytes` the part the packing threads copy. */
typedef struct {
    double pinned, staged, staged_bytes;
} link_time;

static void add_link(link_time *t, ts_residency r, double bytes, double staged_gbs, double pinned_gbs)
{
    if (r == TS_MEM_HOST) {
        t->staged += bytes / (staged_gbs * 1e9);
        t->staged_bytes += bytes;
    } else if (r == TS_MEM_PINNED) {
        t->pinned += bytes / (pinned_gbs * 1e9);
    }
}

double ts_predict_gpu_seconds(const ts_call *c, const ts_profile *p)
{
    link_time in = { 0, 0, 0 }, out = { 0, 0, 0 };
    add_link(&in, c->res_a, size_a(c), p->h2d_staged_gbs, p->h2d_pinned_gbs);
    add_link(&in, c->res_b, size_b(c), p->h2d_staged_gbs, p->h2d_pinned_gbs);
    if (!c->beta_zero)
        add_link(&in, c->res_c, size_c(c), p->h2d_staged_gbs, p->h2d_pinned_gbs);
    add_link(&out, c->res_c, size_c(c), p->d2h_staged_gbs, p->d2h_pinned_gbs);
    double staged = in.staged_bytes + out.staged_bytes;
    double host = staged / (p->host_copy_gbs * 1e9);
    double kernel = max2(ts_call_bytes(c) / (p->gpu_mem_gbs * 1e9), ts_call_flops(c) / (p->gpu_gflops[c->prec] * 1e9));
    /* The kernel overlaps the copies.  DMA from pinned memory runs both
     * directions at once (50.8 GB/s each way on the H100 host); pageable
     * data in both directions shares the packing threads and measured no
     * faster together than one after the other. */
    double link = max2(in.pinned + in.staged, out.pinned + out.staged);
    return max2(max2(link, in.staged + out.staged), max2(host, kernel)) + p->gpu_overhead_s;
}

