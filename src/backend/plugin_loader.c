/* Finding and loading the GPU plugin (libtsshim-cuda.so) and binding the
 * core's ops to it. */
#include "backend/gpu_backend.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend_state.h"
#include "common/clock.h"
#include "util/log.h"

void ts_gpu_set_plugin_dir(const char *dir)
{
    snprintf(ts_backend.plugin_dir, sizeof ts_backend.plugin_dir, "%s", dir ? dir : "");
}

/* The plugin sits in the directory this library was loaded from, unless a
 * program that links the core itself named the directory. */
int ts_gpu_plugin_path(char *out, size_t size)
{
    if (ts_backend.plugin_dir[0]) {
        int n = snprintf(out, size, "%s/%s", ts_backend.plugin_dir, TS_GPU_PLUGIN);
        return n > 0 && (size_t)n < size ? 0 : -1;
    }
    Dl_info info;
    if (!dladdr((void *)ts_gpu_plugin_path, &info) || !info.dli_fname)
        return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 1;
    int n = snprintf(out, size, "%.*s/%s", dir, slash ? info.dli_fname : ".", TS_GPU_PLUGIN);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

void ts_gpu_bind_core(const ts_core_ops *ops) { ts_backend.core = ops; }

const char *ts_gpu_why(void) { return ts_backend.why_not; }

/* Loads the CUDA driver and the plugin (with cudart, cuBLAS, cublasLt) on
 * the calling thread and returns the plugin's ops table, or NULL, logged.
 * The driver comes first, and stays loaded, so that its initialisers run
 * here too rather than when cudart loads it during the device start. */
const ts_gpu_ops *ts_backend_load(void)
{
    char path[4096];
    ts_backend.start_t0 = ts_now();
    if (ts_gpu_plugin_path(path, sizeof path)) {
        snprintf(ts_backend.why_not, sizeof ts_backend.why_not, "cannot locate libtsshim.so");
        ts_log(1, "GPU backend not found: cannot locate libtsshim.so; every call runs on the CPU");
        return NULL;
    }
    if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
        snprintf(ts_backend.why_not, sizeof ts_backend.why_not, "%s", dlerror());
        ts_log(1, "no usable GPU (%s); every call runs on the CPU", ts_backend.why_not);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(ts_backend.why_not, sizeof ts_backend.why_not, "%s", dlerror());
        ts_log(1, "GPU backend unavailable (%s); every call runs on the CPU", ts_backend.why_not);
        return NULL;
    }
    const ts_gpu_ops *ops = dlsym(h, TS_GPU_OPS_SYMBOL);
    if (!ops || ops->abi != TS_GPU_ABI) {
        snprintf(ts_backend.why_not, sizeof ts_backend.why_not, "%.400s does not match this libtsshim.so", path);
        ts_log(1, "GPU backend %s does not match this libtsshim.so; every call runs on the CPU", path);
        return NULL;
    }
    ops->bind(ts_backend.core);
    ts_backend.load_s = ts_now() - ts_backend.start_t0;
    return ops;
}
