/* SYRK, HERK and TRSM on the GPU: the backend's level3 op (src/gpu_backend.h). */
#ifndef TS_GPU_LEVEL3_CUBLAS_H
#define TS_GPU_LEVEL3_CUBLAS_H

#include <stddef.h>

#include "configuration.h"
#include "ts_call.h"

int ts_gpu_level3(ts_call *c, const ts_config *cfg, char *why, size_t why_len);

#endif
