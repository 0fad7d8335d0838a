/* Process-level hooks.  The constructor only reads configuration, notes
 * the objects loaded at startup (ts_gpu_cuda_loaded) and arms the
 * forwarding gate (ts_gate_lane_cpu): CUDA is touched on the
 * first call that could be offloaded, and every entry point initialises what
 * it needs, since other libraries' constructors may call
 * dgemm_ before this one ran.  Only TSSHIM_BACKGROUND_START=2 begins the
 * GPU's start here, in a program that has a CPU BLAS. */
#include <pthread.h>

#include "configuration.h"
#include "cpu_blas.h"
#include "gemm_entry.h"
#include "gpu_backend.h"
#include "log.h"
#include "operand_cache.h"
#include "program_memory.h"
#include "route.h"
#include "stats.h"

static void after_fork_child(void)
{
    ts_gpu_after_fork();
    ts_log_after_fork();
    ts_stats_reset();
    ts_cache_after_fork();
}

__attribute__((constructor)) static void ts_start(void)
{
    ts_config_get();
    ts_gpu_watch_init();
    ts_gate_arm();
    pthread_atfork(NULL, NULL, after_fork_child);
    if (ts_config_rejected())
        ts_log(1, "%d configuration value(s) rejected, defaults used (see README.md)", ts_config_rejected());
    /* The device nodes are looked for (a glob of /dev) only where the
     * settings ask for a start at load or for what the program's last run
     * learned: other programs start as without. */
    const ts_config *cfg = ts_config_get();
    int remembered = cfg->learn_save && ts_program_memory_start(cfg, ts_route_devices_seen());
    if ((cfg->background_start == 2 || remembered) && ts_route_start_at_load(cfg, ts_route_devices_seen(), remembered) &&
        ts_cpu_blas_linked())
        ts_gpu_start_background();
}

__attribute__((destructor)) static void ts_stop(void)
{
    ts_gpu_stop();
    ts_stats_report();
    ts_cache_report();
}
