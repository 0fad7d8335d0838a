/* The one place that decides what happens to a call: forwarded to the CPU
 * BLAS, nothing (a quick return), C = beta C on the host, or the GPU.  It
 * reads the facts of validate, classify, the residency probe and the cost
 * model, and records its reason on the descriptor. */
#ifndef TS_ROUTE_H
#define TS_ROUTE_H

#include "configuration.h"
#include "cost_model.h"
#include "ts_call.h"

typedef enum {
    TS_ACTION_NONE,          /* a quick return: nothing to compute */
    TS_ACTION_FORWARD,       /* the CPU BLAS, with the arguments as received */
    TS_ACTION_SCALE_ON_HOST, /* C = beta C: alpha = 0 or k = 0 */
    TS_ACTION_GPU
} ts_action;

/* Validates, classifies and places one call (annotating the descriptor). */
ts_action ts_route(ts_call *c, const ts_config *cfg);

/* The placement of a valid, classified call with residency.  Returns 1 when
 * the model prefers the GPU but it is not started (`gpu_ready`): the call
 * stays on the CPU, and the caller decides whether it starts the GPU. */
int ts_route_decide(ts_call *c, const ts_config *cfg, const ts_profile *prof, int gpu_ready);

/* The reason a valid call whose operands are all host memory stays on the
 * CPU whatever the cost model says (scaling only, cpu mode, a disabled
 * routine, below TSSHIM_MIN_FLOPS in auto mode), else NULL.  Needs the scalar
 * flags; not the class. */
const char *ts_route_host_cpu(const ts_call *c, const ts_config *cfg);

/* The reasons of ts_route_host_cpu that need only the routine and the
 * flops (cpu mode, a disabled routine, below TSSHIM_MIN_FLOPS), else NULL. */
const char *ts_route_cpu_reason(const ts_config *cfg, ts_routine r, double flops);

/* The flops below which ts_route_cpu_reason keeps a call of routine r on
 * the CPU: infinite in cpu mode or for a disabled routine, 0 in gpu mode. */
double ts_route_cpu_below(const ts_config *cfg, ts_routine r);

/* Devices named by CUDA_VISIBLE_DEVICES (visible, when set: its entries),
 * else the driver's device nodes (nodes): what the process can see before
 * the backend can say; 0 when none. */
int ts_route_devices_listed(const char *visible, int nodes);

/* ts_route_devices_listed of this process (/dev/nvidia[0-9]*), read once. */
int ts_route_devices_seen(void);

/* Whether the call that earns the GPU's start (forgone savings, in every
 * mode's ledger) begins it on a thread of its own and stays on the CPU
 * (reason "gpu starting"): auto mode, TSSHIM_BACKGROUND_START, and a device
 * visible.  Otherwise that call makes the start and waits for it. */
int ts_route_background_start(const ts_config *cfg, int devices);

/* Whether the start begins as the shim is loaded, so that a program's CPU
 * work before its first call the model sends to the GPU hides it: with
 * TSSHIM_BACKGROUND_START=2 in auto or gpu mode, or in auto mode with the
 * default start where the program's last run found the start worth it
 * (remembered, src/program_memory.h); a device visible.  The caller also
 * asks that the program has a CPU BLAS (ts_cpu_blas_linked). */
int ts_route_start_at_load(const ts_config *cfg, int devices, int remembered);

/* True when some operand is device or managed memory the CPU must not (or
 * should not) touch through a CPU BLAS. */
int ts_call_on_device(const ts_call *c);

#endif
