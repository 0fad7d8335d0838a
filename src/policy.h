/* Routing: decides CPU or GPU for a valid, classified call and records the
 * reason on the descriptor. */
#ifndef TS_POLICY_H
#define TS_POLICY_H

#include <stdatomic.h>

#include "configuration.h"
#include "cost_model.h"
#include "ts_call.h"

/* The model's savings that calls sent to the CPU have forgone while the
 * GPU was not started (seconds, summed by several threads at once). */
typedef struct {
    _Atomic double forgone;
} ts_start_ledger;

/* Whether a call the cost model sends to the GPU may start it: the GPU's
 * start costs gpu_start_s once, which a short program never earns back.
 * Calls stay on the CPU, adding their predicted saving to the ledger,
 * until the savings forgone reach the start cost (a rent-or-buy rule: at
 * most twice the better of the two choices in hindsight). */
int ts_policy_start_repaid(ts_start_ledger *ledger, const ts_call *c, const ts_profile *prof);

/* `ledger`: the start ledger while the GPU is not started (see
 * ts_policy_start_repaid), NULL once it is. */
void ts_policy_decide(ts_call *c, const ts_config *cfg, const ts_profile *prof, ts_start_ledger *ledger);

/* The reason a valid call whose operands are all host memory stays on the
 * CPU whatever the cost model says (scaling only, cpu mode, a disabled
 * routine, below TSSHIM_MIN_FLOPS in auto mode), else NULL.  Needs the scalar
 * flags; not the class. */
const char *ts_policy_host_cpu(const ts_call *c, const ts_config *cfg);

/* The reasons of ts_policy_host_cpu that need only the routine and the
 * flops (cpu mode, a disabled routine, below TSSHIM_MIN_FLOPS), else NULL. */
const char *ts_policy_cpu_reason(const ts_config *cfg, ts_prec p, double flops);

/* The flops below which ts_policy_cpu_reason keeps a call of routine p on
 * the CPU: infinite in cpu mode or for a disabled routine, 0 in gpu mode. */
double ts_policy_cpu_below(const ts_config *cfg, ts_prec p);

/* True when some operand is device or managed memory the CPU must not (or
 * should not) touch through a CPU BLAS. */
int ts_call_on_device(const ts_call *c);

#endif
