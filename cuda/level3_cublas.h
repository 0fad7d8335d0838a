/* The level-3 routines other than GEMM on the GPU: the backend's level3 op
 * (src/common/gpu_plugin.h). */
#ifndef TS_GPU_LEVEL3_CUBLAS_H
#define TS_GPU_LEVEL3_CUBLAS_H

#include <stddef.h>

#include "common/settings.h"
#include "common/call.h"

int ts_gpu_level3(ts_call *c, const ts_config *cfg, char *why, size_t why_len);

#endif
