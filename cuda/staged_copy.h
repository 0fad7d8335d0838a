/* Whole-matrix copies from pageable host memory to device memory through
 * the pinned staging ring, for the operand cache: the copy pool packs
 * staging buffers ahead while the DMAs of earlier ones run.  The device copy has the
 * host's layout (same leading dimension), and only the region's elements
 * move, never the gaps between its columns.  Synchronous; holds the ring
 * for the whole copy. */
#ifndef TS_CUDA_STAGED_COPY_H
#define TS_CUDA_STAGED_COPY_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "common/settings.h"
#include "common/slicing.h"

/* Region r of the matrix at host into the matrix at dev, on the current
 * device. */
cudaError_t ts_staged_upload(void *dev, const void *host, const ts_region *r, size_t elem, const ts_config *cfg);

#endif
