/* C = beta C on the CPU, for calls with alpha = 0 or k = 0 (SYRK, HERK,
 * SYR2K and HER2K: their triangle; TRSM and TRMM with alpha = 0: B = 0,
 * their beta being 0; SYMM and HEMM: all of C).  The reference
 * BLAS reads neither A nor B then (and not C when beta = 0); some CPU BLAS
 * builds do (OpenBLAS 0.3.26's small-matrix kernels propagate NaN from A and
 * B), so the shim computes these calls itself to keep the BLAS semantics.
 * The same loops finish a SYRK or HERK whose Gram matrix the GPU computed
 * (src/dispatch/level3_gpu.c). */
#ifndef TS_HOST_SCALE_H
#define TS_HOST_SCALE_H

#include "common/call.h"

/* C = alpha X + beta C over the elements the call updates, X (ldx) in
 * the call's precision; without X (NULL), C = beta C. */
void ts_host_update(const ts_call *c, const void *x, int64_t ldx);

static inline void ts_host_scale(const ts_call *c) { ts_host_update(c, NULL, 0); }

#endif
