/* The background start, without a GPU: the route and the start's state
 * as they run on a machine with a device visible.  CUDA_VISIBLE_DEVICES=0
 * makes a device "visible"; the call that begins the start then finds no
 * plugin beside this program (nor, on a host without one, the CUDA driver)
 * and ends the start with no GPU.  The starter thread and exit during the
 * start are tested under the shim (background_start.sh). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/configuration.h"
#include "backend/gpu_backend.h"
#include "dispatch/dispatch.h"
#include "route/route.h"
#include "tap.h"
#include "route/validate.h"

static const char *no_env(const char *name)
{
    (void)name;
    return NULL;
}

/* A square D GEMM of 4096 on host memory: the default profile sends it to
 * the GPU (test_route).  Routing never reads the operands. */
/* The whole placement of one call, facts gathered by the dispatcher. */
static ts_action place(ts_call *c, const ts_config *cfg)
{
    ts_route_facts f;
    return ts_dispatch_place(c, cfg, &f);
}

static ts_call square(void)
{
    static const double one = 1.0, zero = 0.0;
    static double scratch[1];
    ts_call c;
    ts_call_shape(&c, TS_D, 'N', 'N', 4096, 4096, 4096);
    c.alpha = &one;
    c.beta = &zero;
    c.a = c.b = c.c = scratch;
    return c;
}

/* Waits up to 10 s for the start to end. */
static int wait_ready(void)
{
    for (int i = 0; i < 10000 && !ts_gpu_ready(); i++)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    return ts_gpu_ready();
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    setenv("TSSHIM_PROFILE", "/nonexistent/tsshim-profile", 1);
    ts_config cfg;
    ts_config_load(&cfg, no_env, NULL);
    cfg.cache = 0;
    tap_ok(cfg.background_start == 1 && ts_route_background_start(&cfg, ts_gpu_devices_seen()),
           "TSSHIM_BACKGROUND_START defaults to 1, and a device is visible here");

    ts_config at_load = cfg, at_load_cpu = cfg;
    at_load.background_start = at_load_cpu.background_start = 2;
    at_load_cpu.mode = TS_MODE_CPU;
    ts_config at_load_gpu = at_load;
    at_load_gpu.mode = TS_MODE_GPU;
    tap_ok(!ts_route_start_at_load(&cfg, 1, 0) && ts_route_start_at_load(&at_load, 1, 0) &&
               ts_route_start_at_load(&at_load_gpu, 1, 0) && !ts_route_start_at_load(&at_load_cpu, 1, 0) &&
               !ts_route_start_at_load(&at_load, 0, 0),
           "the start begins at load with TSSHIM_BACKGROUND_START=2, in auto or gpu mode, a device visible");
    ts_config gpu_mode = cfg, blocking = cfg;
    gpu_mode.mode = TS_MODE_GPU;
    blocking.background_start = 0;
    tap_ok(ts_route_start_at_load(&cfg, 1, 1) && !ts_route_start_at_load(&cfg, 0, 1) &&
               !ts_route_start_at_load(&gpu_mode, 1, 1) && !ts_route_start_at_load(&blocking, 1, 1),
           "a start the program's last run found worth it begins at load in auto mode with the default start, "
           "a device visible");

    tap_ok(ts_gpu_driver_part("/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1") &&
               ts_gpu_driver_part("libnvidia-gpucomp.so.580.159.04") &&
               !ts_gpu_driver_part("/usr/lib/libcudart.so.12") &&
               !ts_gpu_driver_part("/opt/libnvidia-x/lib/libfoo.so") &&
               !ts_gpu_driver_part("libnvidia.so") && !ts_gpu_driver_part("") && !ts_gpu_driver_part(NULL),
           "during the start, objects named libnvidia-* count as the driver's parts, nothing else does");

    ts_config off = cfg;
    off.background_start = 0;
    ts_call c = square();
    ts_action a = place(&c, &off);
    tap_ok(a == TS_ACTION_FORWARD && !strcmp(c.reason, "cost model: gpu faster, gpu start not repaid yet") &&
               !ts_gpu_ready(),
           "TSSHIM_BACKGROUND_START=0: the start ledger keeps the call on the CPU, nothing starts (%s)", c.reason);

    ts_config cpu = cfg;
    cpu.mode = TS_MODE_CPU;
    c = square();
    a = place(&c, &cpu);
    tap_ok(a == TS_ACTION_FORWARD && !strcmp(c.reason, "mode cpu") && !ts_gpu_ready(),
           "cpu mode: nothing starts (%s)", c.reason);

    c = square();
    a = place(&c, &cfg);
    tap_ok(a == TS_ACTION_FORWARD && !strcmp(c.reason, "gpu starting"),
           "auto: the first call the model sends to the GPU begins the start and stays on the CPU (%s)", c.reason);
    tap_ok(wait_ready(), "the background start ends");
    tap_ok(ts_gpu() == NULL, "no plugin beside this program: no GPU, and ts_gpu() does not wait");

    c = square();
    a = place(&c, &cfg);
    tap_ok(a == TS_ACTION_GPU && !strcmp(c.reason, "cost model: gpu faster"),
           "once started, the same call goes to the GPU with no start to repay (%s)", c.reason);
    tap_ok(ts_gpu_start_background() == 1, "a second start is not begun: the first one is done");

    /* A child after fork never starts the GPU (the fork handler marks it). */
    pid_t pid = fork();
    if (pid == 0) {
        ts_gpu_after_fork();
        _exit(ts_gpu() == NULL && ts_gpu_ready() ? 0 : 1);
    }
    int status = 0;
    tap_ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "a forked child has no GPU and does not wait for one");
    return tap_done();
}
