#include "policy.h"

#include <math.h>

static void decide(ts_call *c, ts_decision d, const char *reason)
{
    c->decision = d;
    c->reason = reason;
}

int ts_call_on_device(const ts_call *c)
{
    return c->res_a == TS_MEM_DEVICE || c->res_b == TS_MEM_DEVICE || c->res_c == TS_MEM_DEVICE;
}

/* The CPU decisions that depend neither on residency nor on the cost model,
 * in the policy's order. */
double ts_policy_cpu_below(const ts_config *cfg, ts_prec p)
{
    if (cfg->mode == TS_MODE_CPU || cfg->disabled[p])
        return INFINITY;
    return cfg->mode == TS_MODE_AUTO ? cfg->min_flops : 0.0;
}

const char *ts_policy_cpu_reason(const ts_config *cfg, ts_prec p, double flops)
{
    if (!(flops < ts_policy_cpu_below(cfg, p)))
        return NULL;
    return cfg->mode == TS_MODE_CPU ? "mode cpu" : cfg->disabled[p] ? "routine disabled" : "below TSSHIM_MIN_FLOPS";
}

const char *ts_policy_host_cpu(const ts_call *c, const ts_config *cfg)
{
    /* C = beta C reads nothing else: never worth a transfer. */
    if (c->alpha_zero || c->k == 0)
        return "scaling only";
    return ts_policy_cpu_reason(cfg, c->prec, ts_call_flops(c));
}

int ts_policy_start_repaid(ts_start_ledger *ledger, const ts_call *c, const ts_profile *prof)
{
    double saving = c->predicted_cpu_s - c->predicted_gpu_s;
    double before = atomic_load_explicit(&ledger->forgone, memory_order_relaxed);
    while (before < prof->gpu_start_s &&
           !atomic_compare_exchange_weak_explicit(&ledger->forgone, &before, before + saving, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
    return before >= prof->gpu_start_s;
}

void ts_policy_decide(ts_call *c, const ts_config *cfg, const ts_profile *prof, ts_start_ledger *ledger)
{
    /* A CPU BLAS would crash on device memory: such calls run on the GPU in every mode. */
    if (ts_call_on_device(c))
        return decide(c, TS_RUN_GPU, "device operands");
    const char *cpu = ts_policy_host_cpu(c, cfg);
    if (cpu)
        return decide(c, TS_RUN_CPU, cpu);
    if (cfg->mode == TS_MODE_GPU)
        return decide(c, TS_RUN_GPU, "mode gpu");
    c->predicted_cpu_s = ts_predict_cpu_seconds(c, prof);
    c->predicted_gpu_s = ts_predict_gpu_seconds(c, prof);
    if (!(c->predicted_gpu_s * cfg->margin < c->predicted_cpu_s))
        return decide(c, TS_RUN_CPU, "cost model: cpu faster");
    if (ledger && !ts_policy_start_repaid(ledger, c, prof))
        return decide(c, TS_RUN_CPU, "cost model: gpu start not repaid yet");
    decide(c, TS_RUN_GPU, "cost model: gpu faster");
}
