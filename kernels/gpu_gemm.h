/* Runs one GEMM on the GPU: operands on the device are used in place, host
 * operands are copied (only the op(A)/op(B) region their ld describes), C is
 * uploaded only when beta != 0, and the call returns when C is complete. */
#ifndef TS_GPU_GEMM_H
#define TS_GPU_GEMM_H

#include <stddef.h>
#include "configuration.h"
#include "ts_call.h"

int ts_gpu_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len);

#endif
