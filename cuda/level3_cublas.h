/* SYRK, HERK and TRSM on the GPU: the backend's level3 op (src/backend/gpu_backend.h). */
#ifndef TS_GPU_LEVEL3_CUBLAS_H
#define TS_GPU_LEVEL3_CUBLAS_H

#include <stddef.h>

#include "common/settings.h"
#include "common/call.h"

int ts_gpu_level3(ts_call *c, const ts_config *cfg, char *why, size_t why_len);

#endif
