/* Whether and how a call is split among devices: the decision
 * (ts_split_devices), the plan (ts_split_plan) and its parts
 * (ts_split_part).  split_run.c runs them. */
#include "multigpu/split.h"

#include <stdatomic.h>
#include <stdint.h>

#include "common/scalars.h"
#include "route/classify.h"
#include "common/cost_model.h"
#include "learn/profile.h"
#include "common/mpi_launcher.h"
#include "util/log.h"
#include "cache/operand_cache.h"
#include "multigpu/split_state.h"

/* TSSHIM_SPLIT=-1: on unless a launcher placed this process (each rank owns
 * its device, ts_home_device) or TSSHIM_DEVICE chose one device. */
static int split_on(const ts_config *cfg)
{
    return cfg->split == 1 || (cfg->split == -1 && cfg->device < 0 && !ts_launcher_present());
}

/* Host memory that every device can copy from. */
static int on_host(ts_residency r) { return r == TS_MEM_HOST || r == TS_MEM_PINNED; }

/* The device list, or 0 when it names a device that does not exist (said
 * once: every call would fail on it). */
static int device_list(const ts_config *cfg, const ts_gpu_ops *g, int dev[TS_MAX_DEVICES])
{
    int visible = g->device_count();
    const ts_device_list *named = &cfg->split_devices;
    if (!named->count) {
        int n = visible < TS_MAX_DEVICES ? visible : TS_MAX_DEVICES;
        for (int d = 0; d < n; d++)
            dev[d] = d;
        return n;
    }
    for (int i = 0; i < named->count; i++) {
        if (named->dev[i] >= visible) {
            if (!atomic_exchange(&ts_split.warned_devices, 1))
                ts_log(1, "TSSHIM_SPLIT_DEVICES names device %d, but %d are visible: calls run whole", named->dev[i],
                       visible);
            return 0;
        }
        dev[i] = named->dev[i];
    }
    return named->count;
}

/* A column split (RANKK, REGULAR) whose every part reads all of op(A):
 * where A is host memory and the backend makes device copies, the parts
 * share it.  Part i sends the i-th share of A's columns from the host to
 * its device and takes the other shares from the other parts' devices,
 * peer to peer: the host sends A once, not once per part, and its copies
 * bound pageable splits (docs/performance.md). */
int ts_split_shares_a(const ts_slice_plan *p, const ts_call *c, const ts_gpu_ops *g)
{
    return p->dim == TS_SLICE_N && p->count > 1 && on_host(c->res_a) && g->replica_alloc;
}

/* Calls smaller than this never ask for the device's free memory: the
 * driver call would cost a small call forced to the GPU a good part of its
 * time, and a device without this much room fails the whole call anyway. */
#define ASK_ROOM_BYTES ((double)(64 << 20))

/* Long on one GPU, or larger than its free memory (asked only then). */
static int too_big_for_one(const ts_call *c, const ts_config *cfg, const ts_gpu_ops *g, double whole_s)
{
    if (whole_s * 1e3 >= cfg->split_min_ms)
        return 1;
    double bytes = ts_call_bytes(c);
    if (bytes < ASK_ROOM_BYTES)
        return 0;
    size_t room = g->home_free();
    return room && bytes > (double)room;
}

int ts_split_devices(ts_call *c, const ts_config *cfg, const ts_gpu_ops *g, int dev[TS_MAX_DEVICES])
{
    if (!split_on(cfg) || ts_routine_args(c->routine) != TS_ARGS_GEMM || !ts_call_reads_ab(c) || !on_host(c->res_a) ||
        !on_host(c->res_b) || !on_host(c->res_c))
        return 0;
    int n = device_list(cfg, g, dev);
    if (n < 2)
        return 0;
    /* Auto mode's route has looked already; forced to the GPU, the split
     * must still know what the cache holds or expects to (a reused operand
     * runs whole, and is cached, rather than being sent again in parts). */
    if (cfg->mode == TS_MODE_GPU)
        ts_cache_look(c, cfg, g);
    /* The profile's figures, not the learned corrections: those learn from
     * split calls too, and would move the threshold they are measured by. */
    const ts_profile *prof = ts_profile_get();
    double whole = ts_predict_gpu_seconds(c, prof);
    if (!too_big_for_one(c, cfg, g, whole))
        return 0;
    ts_slice_plan plan;
    ts_split_plan(&plan, c, n);
    if (plan.count < 2)
        return 0;
    /* The parts run at once, but pageable data passes through this one
     * host's packing threads and memory: their copies together bound the
     * split call (a column block of a regular call needs all of A). */
    double longest = 0, staged = 0;
    int share = ts_split_shares_a(&plan, c, g);
    for (int64_t i = 0; i < plan.count; i++) {
        ts_call sub;
        ts_split_part(&plan, c, i, dev[i], NULL, cfg, &sub);
        /* Sharing A, a part's device receives all but its share from the
         * others, over links the host's copies do not use. */
        if (share) {
            double a_bytes = (double)(sub.m * sub.k * (int64_t)ts_elem_size(c->prec));
            sub.resident[TS_OP_A] = a_bytes * (double)(plan.count - 1) / (double)plan.count;
        }
        double t = ts_predict_gpu_seconds(&sub, prof);
        longest = t > longest ? t : longest;
        staged += ts_call_staged_bytes(&sub, prof);
    }
    double host = staged / (prof->host_copy_gbs * 1e9);
    longest = host > longest ? host : longest;
    return longest < whole ? (int)plan.count : 0;
}

void ts_split_plan(ts_slice_plan *p, const ts_call *c, int parts)
{
    ts_slice_plan_parts(p, c, ts_slice_long_dim(c), parts);
}

void ts_split_part(const ts_slice_plan *p, const ts_call *c, int64_t i, int device, void *scratch,
                   const ts_config *cfg, ts_call *sub)
{
    size_t es = ts_elem_size(c->prec);
    ts_slice s;
    ts_slice_get(p, c, i, &s);
    *sub = *c;
    sub->m = s.m;
    sub->n = s.n;
    sub->k = s.k;
    sub->a = ts_region_at(c->a, &s.r[TS_OP_A], es);
    sub->b = ts_region_at(c->b, &s.r[TS_OP_B], es);
    sub->c = (void *)ts_region_at(c->c, &s.r[TS_OP_C], es);
    if (p->dim == TS_SLICE_K) {
        /* A partial product: the host adds them up, then applies alpha and beta. */
        sub->alpha = ts_scalar_one(c->prec);
        sub->beta = ts_scalar_zero(c->prec);
        sub->alpha_zero = sub->beta_one = 0;
        sub->beta_zero = 1;
        sub->c = scratch;
        sub->ldc = c->m;
        sub->res_c = TS_MEM_HOST;
    }
    /* A block is a call of its own shape: a column block of a regular call
     * may be skinny, and the tuned kernels are chosen by class. */
    ts_classify(sub, cfg->min_long, cfg->max_skinny);
    sub->device = device;
    ts_call_no_cache(sub);
    sub->gpu_path = NULL;
    sub->bytes_h2d = sub->bytes_d2h = 0;
    sub->gpu_seconds = 0.0;
    sub->gpu_phases = NULL;
    sub->split = 0;
}
