/* Copies of a host matrix on several devices for one split call
 * (src/multigpu/split_run.c): each device takes its share of the matrix from the host
 * and the rest from the other devices' copies, so the host sends the
 * matrix once rather than once per device.  The ops of the same names in
 * src/common/gpu_plugin.h (ts_gpu_ops). */
#ifndef TS_CUDA_REPLICA_H
#define TS_CUDA_REPLICA_H

#include <stddef.h>

#include "common/settings.h"
#include "common/slicing.h"
#include "common/call.h"

void *ts_replica_alloc(int device, size_t bytes);
void ts_replica_free(int device, void *dev);
int ts_replica_upload(int device, void *dev, const void *host, const ts_region *r, size_t elem, ts_residency res,
                      const ts_config *cfg);
int ts_replica_pull(int device, void *dst, int src_device, const void *src, size_t bytes);
int ts_peer_on(int device, int peer);
void ts_peer_off(int device, int peer);

#endif
