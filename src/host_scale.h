/* C = beta C on the CPU, for calls with alpha = 0 or k = 0 (SYRK and HERK:
 * their triangle; TRSM with alpha = 0: B = 0, its beta being 0).  The reference
 * BLAS reads neither A nor B then (and not C when beta = 0); some CPU BLAS
 * builds do (OpenBLAS 0.3.26's small-matrix kernels propagate NaN from A and
 * B), so the shim computes these calls itself to keep the BLAS semantics. */
#ifndef TS_HOST_SCALE_H
#define TS_HOST_SCALE_H

#include "ts_call.h"

void ts_host_scale(const ts_call *c);

#endif
