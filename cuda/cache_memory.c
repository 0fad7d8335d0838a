#include "cache_memory.h"

#include <cuda_runtime_api.h>

#include "context.h"
#include "gemm.h"
#include "common/mpi_launcher.h"
#include "staged_copy.h"

size_t ts_home_free(void)
{
    size_t free_b = 0, total = 0;
    ts_device_scope h = ts_device_enter(ts_gpu_home);
    if (h.err || cudaMemGetInfo(&free_b, &total))
        free_b = 0;
    ts_device_leave(h);
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
    ts_device_scope h = ts_device_enter(ts_gpu_home);
    if (h.err || cudaMalloc(&p, bytes + TS_DEVICE_COPY_SLACK))
        p = NULL;
    ts_device_leave(h);
    return p;
}

void ts_cache_free(void *dev)
{
    ts_device_scope h = ts_device_enter(ts_gpu_home);
    if (!h.err)
        cudaFree(dev);
    ts_device_leave(h);
}

int ts_cache_upload(void *dev, const void *host, size_t bytes, const ts_config *cfg)
{
    ts_device_scope h = ts_device_enter(ts_gpu_home);
    const ts_region whole = { 0, 0, (int64_t)bytes, 1, (int64_t)bytes };
    cudaError_t err = h.err ? h.err : ts_staged_upload(dev, whole.ld, host, &whole, 1, cfg);
    ts_device_leave(h);
    return err ? -1 : 0;
}
