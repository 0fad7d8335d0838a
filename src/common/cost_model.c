#include "common/cost_model.h"

/* Defaults for a machine that was never calibrated: one real host's
 * end-to-end benchmark (host, shapes and figures: docs/performance.md,
 * 'Measurements behind the code's choices').  CPU byte rates are the narrow
 * shapes', flop rates the widest ones'; C takes S's rates and the flop
 * rates not measured in a precision take D's, scaled by 2 for single
 * precision.  The staged rates are what whole calls through the pipeline
 * achieved on that host, the host copy rate is tsshim-calibrate's. */
#define PER_PREC(s, d, c, z) { [TS_S] = s, [TS_D] = d, [TS_C] = c, [TS_Z] = z }
const ts_profile ts_profile_defaults = {
    .cpu_gbs = { [TS_CLASS_NONE] = PER_PREC(50, 50, 50, 50), [TS_CLASS_TSM2] = PER_PREC(34, 58, 34, 44),
                 [TS_CLASS_ISM2] = PER_PREC(29, 48, 29, 34), [TS_CLASS_TSMTTSM] = PER_PREC(6.7, 8, 6.7, 8.7),
                 [TS_CLASS_RANKK] = PER_PREC(49, 49, 49, 49), [TS_CLASS_REGULAR] = PER_PREC(50, 50, 50, 50) },
    .cpu_gflops = { [TS_CLASS_NONE] = PER_PREC(200, 100, 200, 100), [TS_CLASS_TSM2] = PER_PREC(910, 455, 910, 455),
                    [TS_CLASS_ISM2] = PER_PREC(466, 233, 466, 233), [TS_CLASS_TSMTTSM] = PER_PREC(120, 60, 120, 60),
                    [TS_CLASS_RANKK] = PER_PREC(1600, 800, 1600, 800),
                    [TS_CLASS_REGULAR] = PER_PREC(1180, 580, 1180, 560) },
    .h2d_pinned_gbs = 55.6,
    .d2h_pinned_gbs = 55.4,
    .h2d_staged_gbs = 40,
    .d2h_staged_gbs = 45,
    .both_staged_gbs = 46,
    .host_copy_gbs = 51,
    .gpu_mem_gbs = 3000,
    .gpu_gflops = { 50000, 50000, 50000, 50000 },
    .gpu_overhead_s = 30e-6,
    .gpu_start_s = 0.41, /* the lower of two calibration runs (docs/performance.md) */
};

double ts_call_flops(const ts_call *c) { return ts_routine_flops(c->routine, c->m, c->n, c->k); }

/* The descriptors of TRSM, TRMM, SYMM and HEMM (src/entry/level3_entry.c): A
 * is the k x k triangle or symmetric matrix, B the m x n matrix. */
static int trsm(const ts_call *c) { return ts_routine_side_shaped(c->routine); }
static double size_a(const ts_call *c)
{
    return (double)(trsm(c) ? c->k : c->m) * (double)c->k * (double)ts_elem_size(c->prec);
}
static double size_b(const ts_call *c)
{
    return (double)(trsm(c) ? c->m : c->k) * (double)c->n * (double)ts_elem_size(c->prec);
}
static double size_c(const ts_call *c) { return (double)c->m * (double)c->n * (double)ts_elem_size(c->prec); }

double ts_call_bytes(const ts_call *c)
{
    return size_a(c) + size_b(c) + size_c(c) * (c->beta_zero ? 1.0 : 2.0);
}

static double max2(double a, double b) { return a > b ? a : b; }

double ts_predict_cpu_seconds(const ts_call *c, const ts_profile *p)
{
    return max2(ts_call_bytes(c) / (p->cpu_gbs[c->cls][c->prec] * 1e9),
                ts_call_flops(c) / (p->cpu_gflops[c->cls][c->prec] * 1e9));
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

/* Pageable host operands of the level-3 calls that do not stream through
 * the pipeline go up through the pinned ring (cuda/staged_copy.c), and C
 * comes back the same way when it fits the ring, else by the driver's
 * pageable copy, as all of a 4M x 16 TRSM's 1 GB once did at 8.5 GB/s
 * (H200, docs/performance.md): the model takes that rate back. */
#define ROUND_TRIP_GBS 8.5

/* The copies each way of what is not on the device already. */
static void links(const ts_call *c, const ts_profile *p, link_time *in, link_time *out)
{
    *in = *out = (link_time){ 0, 0, 0 };
    const int piped = ts_call_pipelined(c);
    const double up = p->h2d_staged_gbs, down = piped ? p->d2h_staged_gbs : ROUND_TRIP_GBS;
    /* Bytes the operand cache holds already do not cross. */
    add_link(in, c->res_a, size_a(c) - c->resident[TS_OP_A], up, p->h2d_pinned_gbs);
    add_link(in, c->res_b, size_b(c) - c->resident[TS_OP_B], up, p->h2d_pinned_gbs);
    if (!c->beta_zero)
        add_link(in, c->res_c, size_c(c), up, p->h2d_pinned_gbs);
    add_link(out, c->res_c, size_c(c), down, p->d2h_pinned_gbs);
}

double ts_call_staged_bytes(const ts_call *c, const ts_profile *p)
{
    link_time in, out;
    links(c, p, &in, &out);
    return in.staged_bytes + out.staged_bytes;
}

double ts_predict_gpu_seconds(const ts_call *c, const ts_profile *p)
{
    link_time in, out;
    links(c, p, &in, &out);
    double staged = in.staged_bytes + out.staged_bytes;
    double host = staged / (p->host_copy_gbs * 1e9);
    double kernel = max2(ts_call_bytes(c) / (p->gpu_mem_gbs * 1e9), ts_call_flops(c) / (p->gpu_gflops[c->prec] * 1e9));
    /* The kernel overlaps the copies.  DMA from pinned memory runs both
     * directions at once; pageable data in both directions shares the
     * packing threads, and how much the two overlap differs from host to
     * host, so it has its own measured rate (docs/performance.md).  A round
     * trip sends, computes, then returns. */
    double link = ts_call_pipelined(c) ? max2(in.pinned + in.staged, out.pinned + out.staged)
                                       : in.pinned + in.staged + out.pinned + out.staged;
    double both = in.staged > 0 && out.staged > 0 ? staged / (p->both_staged_gbs * 1e9) : 0;
    return max2(max2(link, both), max2(host, kernel)) + p->gpu_overhead_s;
}

