#include "cache_memory.h"

#include <cuda_runtime_api.h>

#include "gemm.h"
#include "launcher.h"
#include "staged_copy.h"

/* Runs on the home device and puts the caller's device back. */
typedef struct {
    int prev;
    cudaError_t err;
} on_home;

static on_home enter(void)
{
    on_home h = { -1, cudaGetDevice(&h.prev) };
    if (!h.err && h.prev != ts_gpu_home)
        h.err = cudaSetDevice(ts_gpu_home);
    return h;
}

static void leave(on_home h)
{
    if (h.prev >= 0 && h.prev != ts_gpu_home)
        cudaSetDevice(h.prev);
    cudaGetLastError();
}

size_t ts_home_free(void)
{
    size_t free_b = 0, total = 0;
    on_home h = enter();
    if (h.err || cudaMemGetInfo(&free_b, &total))
        free_b = 0;
    leave(h);
    return free_b;
}

size_t ts_cache_budget(const ts_config *cfg)
{
    if (cfg->cache_mb > 0)
        return (size_t)cfg->cache_mb << 20;
    int count = 0;
    if (cudaGetDeviceCount(&count))
        return 0;
    return ts_home_free() / 2 / (size_t)ts_launcher_sharers(cfg->device, count);
}

void *ts_cache_alloc(size_t bytes)
{
    void *p = NULL;
    on_home h = enter();
    if (h.err || cudaMalloc(&p, bytes))
        p = NULL;
    leave(h);
    return p;
}

void ts_cache_free(void *dev)
{
    on_home h = enter();
    if (!h.err)
        cudaFree(dev);
    leave(h);
}

int ts_cache_upload(void *dev, const void *host, size_t bytes, const ts_config *cfg)
{
    on_home h = enter();
    const ts_region whole = { 0, 0, (int64_t)bytes, 1, (int64_t)bytes };
    cudaError_t err = h.err ? h.err : ts_staged_upload(dev, host, &whole, 1, cfg);
    leave(h);
    return err ? -1 : 0;
}
