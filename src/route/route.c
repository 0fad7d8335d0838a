#include "route/route.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "route/classify.h"
#include "learn/learned_rates.h"
#include "learn/program_memory.h"
#include "route/validate.h"

enum { EXPLORE_SAMPLES = 2 };
#define EXPLORE_LOSS 1.25

static void decide(ts_call *c, ts_decision d, const char *reason)
{
    c->decision = d;
    c->reason = reason;
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

int ts_route_background_start(const ts_config *cfg, int devices)
{
    return cfg->mode == TS_MODE_AUTO && cfg->background_start && devices > 0;
}

int ts_route_start_at_load(const ts_config *cfg, int devices, int remembered)
{
    return devices > 0 && ((cfg->mode != TS_MODE_CPU && cfg->background_start == 2) ||
                           (remembered && cfg->mode == TS_MODE_AUTO && cfg->background_start == 1));
}

int ts_route_place(ts_call *c, const ts_config *cfg, const ts_route_facts *f)
{
    /* A CPU BLAS would crash on device memory: such calls run on the GPU in every mode. */
    if (f->on_device)
        return decide(c, TS_RUN_GPU, "device operands"), 0;
    const char *cpu = ts_route_host_cpu(c, cfg);
    if (cpu)
        return decide(c, TS_RUN_CPU, cpu), 0;
    if (cfg->mode == TS_MODE_GPU)
        return decide(c, TS_RUN_GPU, "mode gpu"), 0;
    return 1;
}

int ts_route_model(ts_call *c, const ts_config *cfg, const ts_profile *prof, const ts_route_facts *f)
{
    const int gpu_ready = f->gpu_ready;
    c->model_cpu_s = ts_predict_cpu_seconds(c, prof);
    c->model_gpu_s = ts_predict_gpu_seconds(c, prof) * f->sharers;
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

/* A start on a thread of its own costs the program what that thread takes
 * of the CPU meanwhile and, only when it ends during the start, its exit's
 * wait: a fraction of a start on the call, so it begins sooner, while the
 * calls still run on the CPU. */
#define BACKGROUND_PRICE_SHARE 0.125

static int start_earned(const ts_call *c, const ts_profile *prof, int background)
{
    const double price = ts_program_start_price(prof) * (background ? BACKGROUND_PRICE_SHARE : 1.0);
    double before = atomic_load_explicit(&forgone, memory_order_relaxed);
    while (before < price &&
           !atomic_compare_exchange_weak_explicit(&forgone, &before, before + c->predicted_cpu_s - c->predicted_gpu_s,
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
    return before + c->predicted_cpu_s - c->predicted_gpu_s >= price;
}

/* A call predicted to save more than the whole start even when it waits for
 * it (one large product after a program's CPU work) runs on the GPU and
 * waits, rather than on the CPU while the start runs beside it. */
static int worth_waiting(const ts_call *c, const ts_profile *prof)
{
    return c->predicted_cpu_s > c->predicted_gpu_s + ts_program_start_price(prof);
}

ts_start ts_route_start(ts_call *c, const ts_config *cfg, const ts_profile *prof, const ts_route_facts *f)
{
    int background = ts_route_background_start(cfg, f->devices), wait = worth_waiting(c, prof);
    if (background && f->gpu_starting) {
        if (wait)
            decide(c, TS_RUN_GPU, "cost model: gpu faster by more than its start");
        else
            decide(c, TS_RUN_CPU, "gpu starting");
        return TS_START_NONE;
    }
    if (!start_earned(c, prof, background))
        return TS_START_NONE;
    if (background && !wait)
        return TS_START_BACKGROUND;
    decide(c, TS_RUN_GPU, "cost model: gpu faster, start repaid");
    return TS_START_ON_CALL;
}

void ts_route_started(ts_call *c, int background_began)
{
    if (background_began)
        decide(c, TS_RUN_CPU, "gpu starting");
    else
        decide(c, TS_RUN_GPU, "cost model: gpu faster, start repaid");
}

ts_action ts_route_screen(ts_call *c, const ts_config *cfg)
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
    return TS_ACTION_JUDGE;
}

ts_action ts_route_action(const ts_call *c)
{
    if (c->decision == TS_RUN_GPU)
        return TS_ACTION_GPU;
    return ts_call_reads_ab(c) ? TS_ACTION_FORWARD : TS_ACTION_SCALE_ON_HOST;
}
