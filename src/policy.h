/* Routing: decides CPU or GPU for a valid, classified call and records the
 * reason on the descriptor. */
#ifndef TS_POLICY_H
#define TS_POLICY_H

#include "configuration.h"
#include "cost_model.h"
#include "ts_call.h"

void ts_policy_decide(ts_call *c, const ts_config *cfg, const ts_profile *prof);

/* True when some operand is device or managed memory the CPU must not (or
 * should not) touch through a CPU BLAS. */
int ts_call_on_device(const ts_call *c);

#endif
