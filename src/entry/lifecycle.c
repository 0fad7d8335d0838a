/* Process-level hooks.  The constructor only reads configuration, notes
 * the objects loaded at startup (ts_gpu_cuda_loaded) and arms the
 * forwarding gate (ts_gate_lane_cpu): CUDA is touched on the first call
 * that could be offloaded, and every entry point initialises what it
 * needs, since other libraries' constructors may call dgemm_ before this
 * one ran.  Only TSSHIM_BACKGROUND_START=2, or a program whose last run
 * found the start worth it, begins the GPU's start here, in a program that
 * has a CPU BLAS.  The destructor runs the one exit sequence. */
#include <pthread.h>

#include "backend/gpu_backend.h"
#include "cache/operand_cache.h"
#include "common/mpi_launcher.h"
#include "cpu/cpu_blas.h"
#include "dispatch/dispatch.h"
#include "entry/gemm_entry.h"
#include "learn/learned_store.h"
#include "learn/program_memory.h"
#include "route/route.h"
#include "util/configuration.h"
#include "util/log.h"
#include "util/stats.h"

static void after_fork_child(void)
{
    ts_gpu_after_fork();
    ts_log_after_fork();
    ts_stats_reset();
    ts_cache_after_fork();
}

__attribute__((constructor)) static void ts_process_start(void)
{
    ts_config_get();
    ts_gpu_watch_init();
    ts_gate_arm();
    pthread_atfork(NULL, NULL, after_fork_child);
    if (ts_config_rejected())
        ts_log(1, "%d configuration value(s) rejected, defaults used (see docs/configuration.md)",
               ts_config_rejected());
    /* The device nodes are looked for (a glob of /dev) only where the
     * settings ask for a start at load or for what the program's last run
     * learned: other programs start as without. */
    const ts_config *cfg = ts_config_get();
    if (!cfg->learn_save && cfg->background_start != 2)
        return;
    int devices = ts_gpu_devices_seen();
    int remembered = cfg->learn_save && ts_program_memory_start(cfg, devices);
    if ((cfg->background_start == 2 || remembered) && ts_route_start_at_load(cfg, devices, remembered) &&
        ts_cpu_blas_linked()) {
        ts_dispatch_init();
        ts_gpu_start_background();
    }
}

/* The exit sequence, in this order: the GPU's start settled (a start in
 * flight ends before anything it uses goes away; the backend also waits for
 * it from an atexit handler, which runs before the CUDA libraries' own);
 * the program's verdict on the start and the learned rates saved (both need
 * the start's outcome); the exit report's routine and device lines; the
 * cache's lines. */
__attribute__((destructor)) static void ts_process_stop(void)
{
    ts_gpu_stop();
    ts_program_memory_save(ts_gpu_started());
    ts_learned_store_save();
    const ts_gpu_ops *g = ts_gpu_ready() ? ts_gpu() : NULL;
    ts_stats_report(g ? ts_home_device(ts_config_get()->device, g->device_count()) : -1);
    ts_cache_report();
}
