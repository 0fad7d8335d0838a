/* Argument checks of the reference BLAS xGEMM, in its order. */
#ifndef TS_VALIDATE_H
#define TS_VALIDATE_H

#include "ts_call.h"

/* Returns 0 when the arguments are valid, else the position of the first bad
 * argument as the reference BLAS passes it to xerbla.  Upper-cases the
 * transposes of a valid call. */
int ts_validate(ts_call *c);

/* True when BLAS returns without touching C (m or n zero, or nothing to add
 * and beta = 1).  Needs the scalar flags from ts_scalar_flags. */
int ts_quick_return(const ts_call *c);

/* Sets alpha_zero, beta_zero and beta_one from the scalars. */
void ts_scalar_flags(ts_call *c);

/* Whether a scalar of precision p (a complex one: both parts) is zero. */
int ts_scalar_is_zero(ts_prec p, const void *x);

#endif
