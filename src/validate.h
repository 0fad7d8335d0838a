/* Argument checks of the reference BLAS xGEMM, xSYRK, xHERK and xTRSM, in
 * their order. */
#ifndef TS_VALIDATE_H
#define TS_VALIDATE_H

#include "ts_call.h"

/* Returns 0 when the arguments are valid, else the position of the first bad
 * argument as the reference BLAS passes it to xerbla.  Upper-cases the
 * letters of a valid call; a SYRK or HERK gets its Gram GEMM's transposes. */
int ts_validate(ts_call *c);

/* True when BLAS returns without touching C (m or n zero, or nothing to add
 * and beta = 1).  Needs the scalar flags from ts_scalar_flags. */
int ts_quick_return(const ts_call *c);

/* Sets alpha_zero, beta_zero and beta_one from the scalars. */
void ts_scalar_flags(ts_call *c);

/* Whether a scalar of precision p equals re + 0i (inline: the forwarding
 * path tests alpha). */
static inline int ts_scalar_is(ts_prec p, const void *x, double re)
{
    switch (p) {
    case TS_S: return *(const float *)x == (float)re;
    case TS_D: return *(const double *)x == re;
    case TS_C: return ((const float *)x)[0] == (float)re && ((const float *)x)[1] == 0.0f;
    default: return ((const double *)x)[0] == re && ((const double *)x)[1] == 0.0;
    }
}

#endif
