/* Whole-matrix copies between pageable host memory and device memory
 * through the pinned staging ring, for the operand cache: the copy pool
 * packs (or unpacks) one staging buffer while the DMA of another runs.
 * The device copy has the host's layout (same leading dimension), and only
 * the region's elements move, never the gaps between its columns.
 * Synchronous; holds the ring for the whole copy. */
#ifndef TS_CUDA_STAGED_COPY_H
#define TS_CUDA_STAGED_COPY_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "configuration.h"
#include "slicing.h"

/* Host to device, on the current device: region r of the matrix at host
 * into the matrix at dev. */
cudaError_t ts_staged_upload(void *dev, const void *host, const ts_region *r, size_t elem, const ts_config *cfg);

/* Device to host, on the current device.  The host's columns are written
 * in order, each only once all of it is back: on failure *final (may be
 * NULL) gets the region's columns that were written completely, the rest
 * are as they were. */
cudaError_t ts_staged_download(void *host, const void *dev, const ts_region *r, size_t elem, const ts_config *cfg,
                               int64_t *final);

#endif
