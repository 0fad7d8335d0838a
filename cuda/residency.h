/* Where each operand of a call lives, from cudaPointerGetAttributes.  Asked
 * on every call: nothing is cached that could go stale after a free. */
#ifndef TS_GPU_RESIDENCY_H
#define TS_GPU_RESIDENCY_H

#include "common/call.h"

void ts_gpu_residency_probe(ts_call *c);

#endif
