/* Updates of C on the device that are not a GEMM. */
#ifndef TS_C_UPDATE_H
#define TS_C_UPDATE_H

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "common/call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = beta C (BLAS's alpha = 0 or k = 0 case) over the call's m x n C,
 * stored on the device at c with leading dimension ldc: beta = 0 writes
 * zeros without reading C. */
cudaError_t ts_scale_matrix(const ts_call *call, void *c, int64_t ldc, cudaStream_t stream);

/* C += X over the call's m x n C, elementwise, so Inf stays Inf (a complex
 * multiply by beta = (1, 0) would turn it into NaN). */
cudaError_t ts_add_matrix(const ts_call *call, const void *x, int64_t ldx, void *c, int64_t ldc,
                          cudaStream_t stream);

/* C = alpha G + beta C on the triangle (call->uplo) of a SYRK's or HERK's
 * n x n C on the device, G its Gram matrix (ldg): beta = 0 never reads C;
 * HERK's real alpha and beta scale each part and the diagonal stays real. */
cudaError_t ts_triangle_update(const ts_call *call, const void *g, int64_t ldg, void *c, int64_t ldc,
                               cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
