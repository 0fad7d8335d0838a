/* The transfer pipeline for calls with host operands: the call is cut into
 * slices (src/slicing.h); for each slice the pageable operands are packed
 * into pinned staging buffers by the copy pool and sent on one copy stream,
 * the kernel runs on the context's stream, and C comes back on a second
 * copy stream and is unpacked, so that the upload of slice i+1, the kernel
 * of slice i and the download of slice i-1 overlap.  Pinned operands are
 * DMA'd straight from and to their memory; device operands (and managed A
 * and B) are used in place. */
#ifndef TS_GPU_PIPELINE_H
#define TS_GPU_PIPELINE_H

#include <stddef.h>

#include "configuration.h"
#include "gpu_context.h"
#include "ts_call.h"

/* Runs the call on ctx's device (current).  0: C is complete.  -1, with
 * why: C is as it was when it is not device memory, and the CPU can
 * compute the call. */
int ts_pipeline_gemm(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                     size_t why_len);

#endif
