/* Whole-matrix copies between pageable host memory and device memory
 * through the pinned staging ring, for the operand cache and the level3
 * op's round trips: the copy pool packs staging buffers ahead while the
 * DMAs of earlier ones run (and unpacks them behind, downwards).  Only the
 * region's elements move, never the gaps between its columns; the device
 * copy has leading dimension dev_ld (the host's ld: the same layout).
 * Synchronous; holds the ring for the whole copy. */
#ifndef TS_CUDA_STAGED_COPY_H
#define TS_CUDA_STAGED_COPY_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "common/settings.h"
#include "common/slicing.h"

/* Region r of the matrix at host (leading dimension r->ld) into the matrix
 * at dev, on the current device. */
cudaError_t ts_staged_upload(void *dev, int64_t dev_ld, const void *host, const ts_region *r, size_t elem,
                             const ts_config *cfg);

/* Region r of the matrix at dev into the matrix at host (r->ld): all of
 * it into the ring, then unpacked by the pool, so a failure leaves host
 * as it was.  *fits = 0 for a region larger than the ring: nothing is
 * copied, for the caller to copy it another way. */
cudaError_t ts_staged_download(void *host, const ts_region *r, const void *dev, int64_t dev_ld, size_t elem,
                               const ts_config *cfg, int *fits);

#endif
