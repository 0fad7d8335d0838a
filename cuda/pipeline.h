/* The transfer pipeline for calls with host operands: the call is cut into
 * slices (src/common/slicing.h); for each slice the pageable operands are packed
 * into pinned staging buffers by the copy pool, ahead of the DMAs, and sent
 * on one copy stream, the kernel runs on the context's stream, and C comes
 * back on a second copy stream and is unpacked by the pool, so that packing,
 * the upload of slice i+1, the kernel of slice i, the download of slice i-1
 * and the unpacking of slice i-2 overlap.  Pinned operands are
 * DMA'd straight from and to their memory; device operands (and managed A
 * and B) are used in place. */
#ifndef TS_GPU_PIPELINE_H
#define TS_GPU_PIPELINE_H

#include <stddef.h>

#include "common/settings.h"
#include "context.h"
#include "common/call.h"

/* Runs the call on ctx's device (current).  0: C is complete.
 * TS_GPU_STALE: a cached operand proved stale (ts_call_prove), C is as it
 * was.  -1, with why: C is as it was when it is not device memory, and the
 * CPU can compute the call. */
int ts_pipeline_gemm(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                     size_t why_len);

/* The phase timing of this thread's last ts_pipeline_gemm as one log line
 * (seconds the calling thread waited for packing, for room in the download
 * ring and for the end; the pool's thread-seconds packing and unpacking;
 * bytes and rates each way over the pipeline's wall time); empty unless
 * TSSHIM_VERBOSE >= 3. */
const char *ts_pipeline_phases(void);

#endif
