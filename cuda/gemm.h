/* Runs one GEMM on the GPU and returns when C is complete (BLAS is
 * synchronous).  Operands that all live on the device (device or managed
 * memory) are used in place with one kernel; a call with host operands takes
 * one round trip when it is small (cuda/small_call.c), else the slicing
 * pipeline (cuda/pipeline.c). */
#ifndef TS_GPU_GEMM_H
#define TS_GPU_GEMM_H

#include <stddef.h>

#include "common/settings.h"
#include "context.h"
#include "common/call.h"

int ts_gpu_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len);

/* The device of calls on host data, set once by the plugin's init. */
extern int ts_gpu_home;

#endif
