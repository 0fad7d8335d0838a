#include "residency.h"

#include <cuda_runtime_api.h>

static ts_residency probe(const void *p, int *device)
{
    struct cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky-free error: the pointer is plain host memory */
        return TS_MEM_HOST;
    }
    switch (attr.type) {
    case cudaMemoryTypeDevice:
        *device = attr.device;
        return TS_MEM_DEVICE;
    case cudaMemoryTypeManaged:
        *device = attr.device;
        return TS_MEM_MANAGED;
    case cudaMemoryTypeHost:
        return TS_MEM_PINNED;
    default:
        return TS_MEM_HOST;
    }
}

void ts_gpu_residency_probe(ts_call *c)
{
    c->res_a = probe(c->a, &c->device);
    c->res_b = probe(c->b, &c->device);
    c->res_c = probe(c->c, &c->device);
}
