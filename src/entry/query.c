/* The public query functions, exported by libtsshim.so beside the BLAS
 * names (shim/local.mk adds them to shim/exports.sym): what the exit report
 * would say now, and the settings in force, as JSON.  The Python package
 * (python/tsshim) reads them with ctypes.  Like snprintf, each writes at
 * most len bytes, NUL included, and returns the length the whole text
 * needs: a caller whose buffer was too short calls again with more. */
#include <stddef.h>

#include "backend/gpu_backend.h"
#include "cache/operand_cache.h"
#include "common/mpi_launcher.h"
#include "util/configuration.h"
#include "util/json.h"
#include "util/stats.h"

#define TS_PUBLIC __attribute__((visibility("default")))

TS_PUBLIC int tsshim_report_json(char *buf, size_t len);
TS_PUBLIC int tsshim_settings_json(char *buf, size_t len);

int tsshim_report_json(char *buf, size_t len)
{
    const ts_config *cfg = ts_config_get();
    /* The home device only where the GPU already started: a query never starts it. */
    const ts_gpu_ops *g = ts_gpu_started() ? ts_gpu() : NULL;
    ts_json j;
    ts_json_init(&j, buf, len);
    ts_json_add(&j, "{\"counting\": %s, ", cfg->verbose >= 1 || cfg->count ? "true" : "false");
    ts_json_add(&j, "\"gpu_started\": %s, \"counters\": ", g ? "true" : "false");
    ts_stats_json(&j, g ? ts_home_device(cfg->device, g->device_count()) : -1);
    ts_json_add(&j, ", \"cache\": ");
    ts_cache_json(&j);
    ts_json_add(&j, "}");
    return (int)j.used;
}

int tsshim_settings_json(char *buf, size_t len)
{
    ts_json j;
    ts_json_init(&j, buf, len);
    ts_config_json(&j, ts_config_get());
    return (int)j.used;
}
