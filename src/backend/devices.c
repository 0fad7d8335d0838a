/* The devices this process can see before the plugin can say: the
 * CUDA_VISIBLE_DEVICES list, else the driver's device nodes. */
#include "backend/gpu_backend.h"

#include <glob.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "backend/backend_state.h"

int ts_gpu_devices_listed(const char *visible, int nodes)
{
    if (!visible)
        return nodes;
    int n = *visible ? 1 : 0;
    for (; *visible; visible++)
        n += *visible == ',';
    return n;
}

int ts_gpu_devices_seen(void)
{
    int n = atomic_load_explicit(&ts_backend.devices_known, memory_order_relaxed);
    if (n >= 0)
        return n;
    int nodes = 0;
    glob_t g;
    if (!glob("/dev/nvidia[0-9]*", 0, NULL, &g))
        nodes = (int)g.gl_pathc;
    globfree(&g);
    n = ts_gpu_devices_listed(getenv("CUDA_VISIBLE_DEVICES"), nodes);
    atomic_store_explicit(&ts_backend.devices_known, n, memory_order_relaxed);
    return n;
}
