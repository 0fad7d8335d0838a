/* Calls whose moving operands fit one staging buffer and are small: one
 * packed upload, the kernel, one download, one synchronisation, all on the
 * calling thread.  The pipeline's per-call machinery (slices, the copy
 * pool's hand-offs, polled events, three stream synchronisations) costs
 * more than such a call's copies; LAPACK makes millions of them. */
#ifndef TS_CUDA_SMALL_CALL_H
#define TS_CUDA_SMALL_CALL_H

#include <stddef.h>

#include "common/settings.h"
#include "context.h"
#include "common/call.h"

enum { TS_SMALL_DECLINED = 1 };

/* Runs the call on ctx's device (current): 0 when C is complete; -1 with
 * why when it failed (C is as it was, unless C is device memory);
 * TS_GPU_STALE when a cached operand proved stale (C as it was);
 * TS_SMALL_DECLINED when the call is not small (nothing was done). */
int ts_small_gemm(ts_call *c, ts_gpu_context *ctx, const ts_config *cfg, const char **path, char *why,
                  size_t why_len);

/* This thread's last small call as one log line (microseconds packing and
 * acquiring staging, issuing the copies and the kernel, waiting for the
 * GPU, unpacking C and releasing); empty unless TSSHIM_VERBOSE >= 3. */
const char *ts_small_phases(void);

#endif
