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

/* The triangle of a Gram route's call from its n x n G (ldg), computed
 * with alpha = 1 and beta = 0: SYRK and HERK C = alpha G + beta C; SYR2K
 * C = alpha (G + G^T) + beta C, HER2K C = alpha G + conj(alpha) G^H + beta
 * C (G is overwritten then). */
void ts_host_update_gram(const ts_call *c, void *g, int64_t ldg);

/* SYMM's or HEMM's k x k A (lda, triangle uplo) as a full matrix (ld k):
 * the other triangle mirrored, conjugated for HEMM, whose diagonal's
 * imaginary parts are taken as 0, as the reference BLAS does. */
void ts_host_full_symmetric(const ts_call *c, void *full);

#endif
