/* C = beta C on the device (BLAS's alpha = 0 or k = 0 case): beta = 0
 * writes zeros without reading C. */
#ifndef TS_SCALE_MATRIX_H
#define TS_SCALE_MATRIX_H

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "ts_call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scales the call's m x n C, stored on the device at c with leading dimension ldc. */
cudaError_t ts_scale_matrix(const ts_call *call, void *c, int64_t ldc, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
