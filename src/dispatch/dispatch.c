/* A call's one path below the entry adapters: screen it, gather each fact
 * the decision reads once, decide, run, record.  The order is the
 * architecture's (docs/architecture.md): route decides from facts; the
 * backend, the cache and the CPU BLAS are what run. */
#include "dispatch/dispatch.h"

#include <pthread.h>
#include <stdatomic.h>

#include "backend/gpu_backend.h"
#include "cache/operand_cache.h"
#include "common/clock.h"
#include "common/mpi_launcher.h"
#include "cpu/cpu_blas.h"
#include "cpu/host_scale.h"
#include "dispatch/level3_gpu.h"
#include "learn/learned_rates.h"
#include "learn/profile.h"
#include "learn/program_memory.h"
#include "multigpu/split.h"
#include "route/route.h"
#include "util/configuration.h"
#include "util/log.h"
#include "util/reentry.h"
#include "util/stats.h"

/* What the plugin may call back: the CPU BLAS, for the rest of a call the
 * GPU could not finish. */
static const ts_core_ops core_ops = { .cpu_gemm = ts_cpu_gemm_descriptor };
static pthread_once_t bind_once = PTHREAD_ONCE_INIT;
static void bind_core(void) { ts_gpu_bind_core(&core_ops); }

void ts_dispatch_init(void) { pthread_once(&bind_once, bind_core); }

/* Only GEMMs teach the learned rates: their cells are keyed by class and
 * size, and a SYRK or TRSM of a GEMM's shape runs at rates of its own (a
 * TRSM's host data takes no pipeline) that would skew the GEMMs'. */
static int learns(const ts_call *c) { return ts_routine_args(c->routine) == TS_ARGS_GEMM; }

/* A call the cost model placed on the CPU is timed, so the model learns the
 * CPU's real rate (two clock reads, on calls of at least TSSHIM_MIN_FLOPS). */
static void forward_measured(ts_call *c)
{
    double t0 = ts_now();
    ts_forward(c);
    c->cpu_seconds = ts_now() - t0;
}

/* One warning per process at level 1; later ones at level 2. */
static void warn_fallback(const ts_call *c, const char *why)
{
    static atomic_int warned;
    int level = atomic_exchange(&warned, 1) ? 2 : 1;
    ts_log(level, "GPU execution of %s failed (%s); computing on the CPU", ts_routine_symbol(c->routine), why);
}

/* Runs a call the policy sent to the GPU; returns 1 when it fell back. */
static int run_on_gpu(ts_call *c, const ts_config *cfg, const ts_route_facts *f)
{
    char why[256] = "no usable GPU";
    const ts_gpu_ops *g = ts_gpu();
    if (g && ts_routine_args(c->routine) != TS_ARGS_GEMM) {
        if (ts_level3_gpu(g, c, cfg, why, sizeof why) == 0)
            return 0;
    } else if (g) {
        int dev[TS_MAX_DEVICES], parts = ts_split_devices(c, cfg, g, dev);
        if (parts) {
            if (ts_split_gemm(g, c, cfg, dev, parts, why, sizeof why) == 0)
                return 0;
        } else {
            if (ts_cache_gemm(g, c, cfg, why, sizeof why) == 0)
                return 0;
        }
    }
    if (f->on_device) {
        /* No CPU can compute on device memory: say so, leave C as it was. */
        ts_log_error("%s on device memory could not run on the GPU (%s); C was not updated",
                     ts_routine_symbol(c->routine), why);
        return 1;
    }
    c->decision = TS_RUN_CPU;
    if (!g) {
        c->reason = "no usable GPU";
        ts_forward(c);
        return 0;
    }
    warn_fallback(c, why);
    c->reason = "GPU failed";
    ts_forward(c);
    return 1;
}

/* The facts of a call that passed the screen, each asked once: where its
 * operands live (only with CUDA in the process), the GPU's state and the
 * devices. */
static void gather(ts_call *c, ts_route_facts *f)
{
    if (ts_gpu_cuda_loaded())
        ts_gpu_residency(c);
    f->on_device = ts_call_on_device(c);
    f->gpu_ready = ts_gpu_ready();
    f->gpu_starting = !f->gpu_ready && ts_gpu_starting();
    f->devices = ts_gpu_devices_seen();
}

/* Ranks of an MPI job on this node that share this process's GPU call
 * their BLAS in step, so each gets its share of the link and the device:
 * the model's prior, which measured call times then correct; without it
 * every rank would pay for a GPU 16 ranks share as if it were its own.
 * Only the model reads it: asked only for calls the model prices. */
static int sharers(const ts_config *cfg, const ts_route_facts *f)
{
    const ts_gpu_ops *g = f->gpu_ready ? ts_gpu() : NULL;
    return ts_launcher_sharers(cfg->device, g ? g->device_count() : f->devices > 0 ? f->devices : 1);
}

ts_action ts_dispatch_place(ts_call *c, const ts_config *cfg, ts_route_facts *f)
{
    ts_dispatch_init();
    ts_action a = ts_route_screen(c, cfg);
    if (a != TS_ACTION_JUDGE)
        return a;
    gather(c, f);
    if (ts_route_place(c, cfg, f)) {
        /* The model prices what the cache holds: only GEMMs look (TRSM's
         * GPU path keeps no copies, its B is written; SYRK and HERK reach
         * the cache through their Gram GEMM, src/dispatch/level3_gpu.c). */
        if (cfg->mode == TS_MODE_AUTO && ts_routine_args(c->routine) == TS_ARGS_GEMM)
            ts_cache_look(c, cfg, f->gpu_ready ? ts_gpu() : NULL);
        const ts_profile *prof = ts_profile_get();
        f->sharers = sharers(cfg, f);
        if (ts_route_model(c, cfg, prof, f)) {
            ts_start s = ts_route_start(c, cfg, prof, f);
            if (s == TS_START_BACKGROUND)
                ts_route_started(c, ts_gpu_start_background());
        }
    }
    return ts_route_action(c);
}

/* What the call taught: the model's rates, the start's ledger. */
static void learn_from(ts_call *c, const ts_route_facts *f, ts_action a, int fell_back)
{
    /* Calls made while the GPU starts are slowed by it
     * (docs/performance.md): not the CPU's rate. */
    if (a == TS_ACTION_FORWARD && c->model_cpu_s > 0 && learns(c) && !f->gpu_starting)
        ts_learned_record(TS_SIDE_CPU, c, c->model_cpu_s, c->cpu_seconds);
    if (a == TS_ACTION_GPU && !fell_back && c->decision == TS_RUN_GPU && c->model_gpu_s > 0 && learns(c)) {
        /* A call through the staging ring as it starts, or one that pinned
         * the ring, would teach the model a slower link than the grown
         * ring's, and keep later calls on the CPU, where they never grow it. */
        if (!c->gpu_ring_cold)
            ts_learned_record(TS_SIDE_GPU, c, c->model_gpu_s, c->gpu_seconds);
        ts_program_gained(c->predicted_cpu_s - c->gpu_seconds);
    }
}

void ts_dispatch(ts_call *c)
{
    if (ts_reentry_inside()) {
        ts_forward(c);
        return;
    }
    ts_reentry_enter();
    const ts_config *cfg = ts_config_get();
    ts_route_facts f = { 0 };
    int fell_back = 0;
    ts_action a = ts_dispatch_place(c, cfg, &f);
    switch (a) {
    case TS_ACTION_FORWARD:
        if (c->model_cpu_s > 0)
            forward_measured(c);
        else
            ts_forward(c);
        break;
    case TS_ACTION_SCALE_ON_HOST: ts_host_scale(c); break;
    case TS_ACTION_GPU: fell_back = run_on_gpu(c, cfg, &f); break;
    case TS_ACTION_NONE:
    case TS_ACTION_JUDGE: break;
    }
    learn_from(c, &f, a, fell_back);
    ts_cache_finish(c);
    /* Counting costs atomics on every call: only when a report will be
     * written or read (tsshim_report_json, TSSHIM_COUNT). */
    if (cfg->verbose >= 1 || cfg->count)
        ts_stats_record(c, fell_back);
    if (cfg->verbose >= 3) {
        ts_log_trace(c);
        if (c->gpu_phases && c->gpu_phases[0])
            ts_log(3, "%s", c->gpu_phases);
    }
    ts_reentry_leave();
}
