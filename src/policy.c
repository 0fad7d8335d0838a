#include "policy.h"

static void decide(ts_call *c, ts_decision d, const char *reason)
{
    c->decision = d;
    c->reason = reason;
}

int ts_call_on_device(const ts_call *c)
{
    return c->res_a == TS_MEM_DEVICE || c->res_b == TS_MEM_DEVICE || c->res_c == TS_MEM_DEVICE;
}

void ts_policy_decide(ts_call *c, const ts_config *cfg, const ts_profile *prof)
{
    /* A CPU BLAS would crash on device memory: such calls run on the GPU in every mode. */
    if (ts_call_on_device(c))
        return decide(c, TS_RUN_GPU, "device operands");
    /* C = beta C reads nothing else: never worth a transfer. */
    if (c->alpha_zero || c->k == 0)
        return decide(c, TS_RUN_CPU, "scaling only");
    if (cfg->mode == TS_MODE_CPU)
        return decide(c, TS_RUN_CPU, "mode cpu");
    if (cfg->disabled[c->prec])
        return decide(c, TS_RUN_CPU, "routine disabled");
    if (cfg->mode == TS_MODE_GPU)
        return decide(c, TS_RUN_GPU, "mode gpu");
    if (ts_call_flops(c) < cfg->min_flops)
        return decide(c, TS_RUN_CPU, "below TSSHIM_MIN_FLOPS");
    c->predicted_cpu_s = ts_predict_cpu_seconds(c, prof);
    c->predicted_gpu_s = ts_predict_gpu_seconds(c, prof);
    if (c->predicted_gpu_s * cfg->margin < c->predicted_cpu_s)
        return decide(c, TS_RUN_GPU, "cost model: gpu faster");
    decide(c, TS_RUN_CPU, "cost model: cpu faster");
}
