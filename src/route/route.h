/* The one place that decides what happens to a call: forwarded to the CPU
 * BLAS, nothing (a quick return), C = beta C on the host, or the GPU.  It
 * reads the facts of validate, classify, the residency probe and the cost
 * model, and records its reason on the descriptor. */
#ifndef TS_ROUTE_H
#define TS_ROUTE_H

#include "util/configuration.h"
#include "common/cost_model.h"
#include "common/call.h"

typedef enum {
    TS_ACTION_NONE,          /* a quick return: nothing to compute */
    TS_ACTION_FORWARD,       /* the CPU BLAS, with the arguments as received */
    TS_ACTION_SCALE_ON_HOST, /* C = beta C: alpha = 0 or k = 0 */
    TS_ACTION_GPU,
    TS_ACTION_JUDGE          /* ts_route_screen: valid, classified, to be placed */
} ts_action;

/* What the decision reads about the process, gathered once per call by the
 * dispatcher (src/dispatch/dispatch.c): route loads and probes nothing. */
typedef struct {
    int on_device;    /* some operand is memory the CPU must not read (ts_call_on_device) */
    int gpu_ready;    /* the GPU is started and usable */
    int gpu_starting; /* a start is under way */
    int devices;      /* devices the process may use (ts_gpu_devices_seen) */
    int sharers;      /* ranks of this node sharing this process's GPU, at least 1 (the model's only) */
} ts_route_facts;

/* Step 1, from the call alone: validates (invalid: TS_ACTION_FORWARD, so
 * that the CPU BLAS's xerbla reports it), sets the scalar flags, takes
 * quick returns (TS_ACTION_NONE) and classifies (TS_ACTION_JUDGE). */
ts_action ts_route_screen(ts_call *c, const ts_config *cfg);

/* Step 2, the placement that needs no cost model: device operands (GPU),
 * the host reasons of ts_route_host_cpu (CPU), gpu mode (GPU).  Returns 1
 * when the cost model must judge (ts_route_model), else 0, decided. */
int ts_route_place(ts_call *c, const ts_config *cfg, const ts_route_facts *f);

/* Step 3, the cost model with the learned corrections; the cache's resident
 * bytes are in the descriptor already.  Returns 1 when the model prefers a
 * GPU that is not started (f->gpu_ready): the call stays on the CPU, and
 * ts_route_start says what to do about the start. */
int ts_route_model(ts_call *c, const ts_config *cfg, const ts_profile *prof, const ts_route_facts *f);

/* A call the model sends to a GPU that is not started.  A start under way
 * (at load, or begun by an earlier call) keeps it on the CPU, unless it
 * saves more than the whole start: then it runs on the GPU, waiting for
 * the start.  Otherwise it adds its forgone savings to the start ledger (a
 * rent-or-buy rule: a short program never pays for a start it cannot earn
 * back), and the call that earns the start begins it: in the background
 * where it can (TS_START_BACKGROUND: the dispatcher begins it and reports
 * with ts_route_started; calls stay on the CPU until it is done), where the
 * ledger's price is an eighth of the start's, since the program keeps
 * running meanwhile; else, or when the call saves more than the whole
 * start, on the call's own thread (TS_START_ON_CALL, decided GPU).  A
 * background start is not free either: it slows the program's concurrent
 * CPU BLAS calls (docs/performance.md). */
typedef enum { TS_START_NONE, TS_START_BACKGROUND, TS_START_ON_CALL } ts_start;
ts_start ts_route_start(ts_call *c, const ts_config *cfg, const ts_profile *prof, const ts_route_facts *f);

/* The decision once the dispatcher tried to begin a background start. */
void ts_route_started(ts_call *c, int background_began);

/* The action the decision in the descriptor asks for. */
ts_action ts_route_action(const ts_call *c);

/* The reason a valid call whose operands are all host memory stays on the
 * CPU whatever the cost model says (scaling only, cpu mode, a disabled
 * routine, below TSSHIM_MIN_FLOPS in auto mode), else NULL.  Needs the
 * scalar flags; not the class. */
const char *ts_route_host_cpu(const ts_call *c, const ts_config *cfg);

/* The reasons of ts_route_host_cpu that need only the routine and the
 * flops (cpu mode, a disabled routine, below TSSHIM_MIN_FLOPS), else NULL. */
const char *ts_route_cpu_reason(const ts_config *cfg, ts_routine r, double flops);

/* The flops below which ts_route_cpu_reason keeps a call of routine r on
 * the CPU: infinite in cpu mode and for a disabled routine, 0 in gpu
 * mode. */
double ts_route_cpu_below(const ts_config *cfg, ts_routine r);

/* Whether the call that earns the GPU's start (forgone savings, in every
 * mode's ledger) begins it on a thread of its own and stays on the CPU
 * (reason "gpu starting"): auto mode, TSSHIM_BACKGROUND_START, and a device
 * visible.  Otherwise that call makes the start and waits for it. */
int ts_route_background_start(const ts_config *cfg, int devices);

/* Whether the start begins as the shim is loaded, so that a program's CPU
 * work before its first call the model sends to the GPU hides it: with
 * TSSHIM_BACKGROUND_START=2 in auto or gpu mode, or in auto mode with the
 * default start where the program's last run found the start worth it
 * (remembered, src/learn/program_memory.h); a device visible.  The caller also
 * asks that the program has a CPU BLAS (ts_cpu_blas_linked). */
int ts_route_start_at_load(const ts_config *cfg, int devices, int remembered);


#endif
