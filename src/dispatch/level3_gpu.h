/* The level-3 routines other than GEMM on the GPU, the core's side. */
#ifndef TS_LEVEL3_GPU_H
#define TS_LEVEL3_GPU_H

#include <stddef.h>

#include "util/configuration.h"
#include "common/gpu_plugin.h"
#include "common/call.h"

/* Runs a call of a level-3 routine other than GEMM that the policy sent to
 * the GPU, as the gemm op does a GEMM: 0 on success, else C is untouched
 * when it is host memory and why is filled. */
int ts_level3_gpu(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, char *why, size_t why_len);

#endif
