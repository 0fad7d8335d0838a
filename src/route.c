#include "route.h"

#include <glob.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "classify.h"
#include "gpu_backend.h"
#include "launcher.h"
#include "learned_rates.h"
#include "program_memory.h"
#include "operand_cache.h"
#include "validate.h"

enum { EXPLORE_SAMPLES = 2 };
#define EXPLORE_LOSS 1.25

static void decide(ts_call *c, ts_decision d, const char *reason)
{
    c->decision = d;
    c->reason = reason;
}

int ts_call_on_device(const ts_call *c)
{
    return ts_residency_cpu_unreadable(c->res_a) || ts_residency_cpu_unreadable(c->res_b) ||
           ts_residency_cpu_unreadable(c->res_c);
}

/* The CPU decisions that depend neither on residency nor on the cost model,
 * in the policy's order. */
double ts_route_cpu_below(const ts_config *cfg, ts_routine r)
{
    if (cfg->mode == TS_MODE_CPU || cfg->disabled[r])
        return INFINITY;
    return cfg->mode == TS_MODE_AUTO ? cfg->min_flops : 0.0;
}

const char *ts_route_cpu_reason(const ts_config *cfg, ts_routine r, double flops)
{
    if (!(flops < ts_route_cpu_below(cfg, r)))
        return NULL;
    return cfg->mode == TS_MODE_CPU ? "mode cpu" : cfg->disabled[r] ? "routine disabled" : "below TSSHIM_MIN_FLOPS";
}

const char *ts_route_host_cpu(const ts_call *c, const ts_config *cfg)
{
    /* C = beta C reads nothing else: never worth a transfer. */
    if (!ts_call_reads_ab(c))
        return "scaling only";
    return ts_route_cpu_reason(cfg, c->routine, ts_call_flops(c));
}

int ts_route_devices_listed(const char *visible, int nodes)
{
    if (!visible)
        return nodes;
    int n = *visible ? 1 : 0;
    for (; *visible; visible++)
        n += *visible == ',';
    return n;
}

int ts_route_devices_seen(void)
{
    static atomic_int known = -1;
    int n = atomic_load_explicit(&known, memory_order_relaxed);
    if (n >= 0)
        return n;
    int nodes = 0;
    glob_t g;
    if (!glob("/dev/nvidia[0-9]*", 0, NULL, &g))
        nodes = (int)g.gl_pathc;
    globfree(&g);
    n = ts_route_devices_listed(getenv("CUDA_VISIBLE_DEVICES"), nodes);
    atomic_store_explicit(&known, n, memory_order_relaxed);
    return n;
}

int ts_route_background_start(const ts_config *cfg, int devices)
{
    return cfg->mode == TS_MODE_AUTO && cfg->background_start && devices > 0;
}

int ts_route_start_at_load(const ts_config *cfg, int devices, int remembered)
{
    return devices > 0 && ((cfg->mode != TS_MODE_CPU && cfg->background_start == 2) ||
                           (remembered && cfg->mode == TS_MODE_AUTO && cfg->background_start == 1));
}

/* Ranks of an MPI job on this node that share this process's GPU.  Such
 * programs call their BLAS in step, so each rank gets its share of the
 * link and the device: the model's prior, which measured call times then
 * correct (learned rates); without it every rank would pay for a GPU that
 * 16 ranks share as if it were its own. */
static int gpu_sharers(const ts_config *cfg)
{
    const ts_gpu_ops *g = ts_gpu_ready() ? ts_gpu() : NULL;
    int seen = ts_route_devices_seen();
    return ts_launcher_sharers(cfg->device, g ? g->device_count() : seen > 0 ? seen : 1);
}

int ts_route_decide(ts_call *c, const ts_config *cfg, const ts_profile *prof, int gpu_ready)
{
    /* A CPU BLAS would crash on device memory: such calls run on the GPU in every mode. */
    if (ts_call_on_device(c))
        return decide(c, TS_RUN_GPU, "device operands"), 0;
    const char *cpu = ts_route_host_cpu(c, cfg);
    if (cpu)
        return decide(c, TS_RUN_CPU, cpu), 0;
    if (cfg->mode == TS_MODE_GPU)
        return decide(c, TS_RUN_GPU, "mode gpu"), 0;
    c->model_cpu_s = ts_predict_cpu_seconds(c, prof);
    c->model_gpu_s = ts_predict_gpu_seconds(c, prof) * gpu_sharers(cfg);
    c->predicted_cpu_s = c->model_cpu_s * ts_learned_factor(TS_SIDE_CPU, c);
    c->predicted_gpu_s = c->model_gpu_s * ts_learned_factor(TS_SIDE_GPU, c);
    /* The side the model did not choose is tried while it has fewer than
     * EXPLORE_SAMPLES measurements for such calls and is predicted at most
     * EXPLORE_LOSS times slower: a bounded loss, so that a wrong profile
     * cannot keep the faster side unmeasured for ever.  Only once the
     * chosen side has run such a call: what is learned serves later calls,
     * so a call seen once (a short program's one product) is not an
     * experiment, and a side's first call on the GPU pays for making that
     * thread's stream, handle and buffers, far more than the bound. */
    int cpu_seen = ts_learned_samples(TS_SIDE_CPU, c), gpu_seen = ts_learned_samples(TS_SIDE_GPU, c);
    if (!(c->predicted_gpu_s * cfg->margin < c->predicted_cpu_s)) {
        if (gpu_ready && cpu_seen && gpu_seen < EXPLORE_SAMPLES && c->predicted_gpu_s < EXPLORE_LOSS * c->predicted_cpu_s)
            return decide(c, TS_RUN_GPU, "cost model: exploring the gpu"), 0;
        return decide(c, TS_RUN_CPU, "cost model: cpu faster"), 0;
    }
    if (!gpu_ready)
        return decide(c, TS_RUN_CPU, "cost model: gpu faster, gpu start not repaid yet"), 1;
    if (gpu_seen && cpu_seen < EXPLORE_SAMPLES && c->predicted_cpu_s < EXPLORE_LOSS * c->predicted_gpu_s)
        return decide(c, TS_RUN_CPU, "cost model: exploring the cpu"), 0;
    decide(c, TS_RUN_GPU, "cost model: gpu faster");
    return 0;
}

/* Predicted savings that calls forwent while the GPU was not started.  The
 * GPU starts once they reach its cost, on the call that earns it: a short
 * program never pays for a start it cannot earn back (a rent-or-buy rule:
 * at most about twice the better choice in hindsight). */
static _Atomic double forgone;

static int start_earned(const ts_call *c, const ts_profile *prof)
{
    const double price = ts_program_start_price(prof);
    double before = atomic_load_explicit(&forgone, memory_order_relaxed);
    while (before < price &&
           !atomic_compare_exchange_weak_explicit(&forgone, &before, before + c->predicted_cpu_s - c->predicted_gpu_s,
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
    return before + c->predicted_cpu_s - c->predicted_gpu_s >= price;
}

/* A call the model sends to a GPU that is not started.  A start under way
 * (at load, or begun by an earlier call) keeps it on the CPU.  Otherwise it
 * adds its forgone savings to the ledger, and the call that earns the start
 * begins it: in the background where it can (that call loads the CUDA
 * libraries; a thread of the shim's makes the device context and the
 * staging ring, and every call stays on the CPU until that is done), else
 * on its own thread, waiting for it.  A background start is not free
 * either: it slows the program's concurrent CPU BLAS calls
 * (docs/performance.md), which a program that offloads a few calls saving
 * milliseconds each never earns back. */
static void start_gpu(ts_call *c, const ts_config *cfg, const ts_profile *prof)
{
    int background = ts_route_background_start(cfg, ts_route_devices_seen());
    if (background && ts_gpu_starting())
        decide(c, TS_RUN_CPU, "gpu starting");
    else if (!start_earned(c, prof))
        return;
    else if (background && ts_gpu_start_background())
        decide(c, TS_RUN_CPU, "gpu starting");
    else
        decide(c, TS_RUN_GPU, "cost model: gpu faster, start repaid");
}

ts_action ts_route(ts_call *c, const ts_config *cfg)
{
    if (ts_validate(c)) {
        /* The CPU BLAS's own xerbla reports it, exactly as without the shim. */
        c->reason = "invalid arguments";
        return TS_ACTION_FORWARD;
    }
    ts_scalar_flags(c);
    if (ts_quick_return(c)) {
        /* Nothing to do, as in the reference BLAS; not forwarded, since
         * some CPU BLAS builds still read A and B then. */
        c->reason = "quick return";
        return TS_ACTION_NONE;
    }
    ts_classify(c, cfg->min_long, cfg->max_skinny);
    /* Without the CUDA driver in the process every operand is host memory,
     * and most calls stay on the CPU for reasons known before any cost is
     * modelled: they skip the residency probe and the cost model (the
     * descriptor already says host memory and the CPU). */
    const char *cpu = ts_gpu_cuda_loaded() ? NULL : ts_route_host_cpu(c, cfg);
    if (cpu) {
        c->reason = cpu;
    } else {
        ts_gpu_residency(c);
        int ready = ts_gpu_ready();
        /* Only GEMMs look: TRSM's GPU path keeps no copies (its B is
         * written), and SYRK and HERK reach the cache through their Gram
         * GEMM (src/level3_gpu.c). */
        if (cfg->mode == TS_MODE_AUTO && !ts_call_on_device(c) && !ts_route_host_cpu(c, cfg) &&
            ts_routine_args(c->routine) == TS_ARGS_GEMM)
            ts_cache_look(c, cfg, ready ? ts_gpu() : NULL);
        const ts_profile *prof = ts_profile_get();
        if (ts_route_decide(c, cfg, prof, ready))
            start_gpu(c, cfg, prof);
    }
    if (c->decision == TS_RUN_GPU)
        return TS_ACTION_GPU;
    return ts_call_reads_ab(c) ? TS_ACTION_FORWARD : TS_ACTION_SCALE_ON_HOST;
}
