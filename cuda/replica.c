#include "replica.h"

#include <cuda_runtime_api.h>

#include "compute.h"
#include "context.h"
#include "staged_copy.h"

void *ts_replica_alloc(int device, size_t bytes)
{
    void *p = NULL;
    size_t free_b = 0, total = 0;
    ts_device_scope s = ts_device_enter(device);
    /* At most half of what is free: the part's own pipeline (its slices of
     * B and C, the staging ring's device side) needs the rest. */
    if (s.err || cudaMemGetInfo(&free_b, &total) || bytes > free_b / 2 || cudaMalloc(&p, bytes + TS_DEVICE_COPY_SLACK))
        p = NULL;
    ts_device_leave(s);
    return p;
}

void ts_replica_free(int device, void *dev)
{
    ts_device_scope s = ts_device_enter(device);
    if (!s.err)
        cudaFree(dev);
    ts_device_leave(s);
}

int ts_replica_upload(int device, void *dev, const void *host, const ts_region *r, size_t elem, ts_residency res,
                      const ts_config *cfg)
{
    ts_device_scope s = ts_device_enter(device);
    cudaError_t err = s.err;
    if (!err && res == TS_MEM_PINNED) {
        ts_gpu_context *ctx = ts_gpu_context_get(device, &err);
        size_t ld = (size_t)r->ld * elem;
        if (ctx && !(err = ts_gpu_fault(cfg, "copy")) &&
            !(err = cudaMemcpy2DAsync((void *)ts_region_at(dev, r, elem), ld, ts_region_at(host, r, elem), ld,
                                      (size_t)r->rows * elem, (size_t)r->cols, cudaMemcpyHostToDevice, ctx->stream)))
            err = cudaStreamSynchronize(ctx->stream);
    } else if (!err) {
        err = ts_staged_upload(dev, r->ld, host, r, elem, cfg);
    }
    ts_device_leave(s);
    return err ? -1 : 0;
}

int ts_replica_pull(int device, void *dst, int src_device, const void *src, size_t bytes)
{
    ts_device_scope s = ts_device_enter(device);
    cudaError_t err = s.err;
    ts_gpu_context *ctx = err ? NULL : ts_gpu_context_get(device, &err);
    if (ctx && !(err = cudaMemcpyPeerAsync(dst, device, src, src_device, bytes, ctx->stream)))
        err = cudaStreamSynchronize(ctx->stream);
    ts_device_leave(s);
    return err ? -1 : 0;
}

/* Turned on and off only while no copy runs: a copy between two devices may
 * use either one's access to the other (turning access off under a running
 * copy made it fault). */
int ts_peer_on(int device, int peer)
{
    int can = 0, on = 0;
    ts_device_scope s = ts_device_enter(device);
    if (!s.err && device != peer && !cudaDeviceCanAccessPeer(&can, device, peer) && can)
        on = cudaDeviceEnablePeerAccess(peer, 0) == cudaSuccess;
    ts_device_leave(s); /* clears cudaErrorPeerAccessAlreadyEnabled */
    return on;
}

void ts_peer_off(int device, int peer)
{
    ts_device_scope s = ts_device_enter(device);
    if (!s.err)
        cudaDeviceDisablePeerAccess(peer);
    ts_device_leave(s);
}
