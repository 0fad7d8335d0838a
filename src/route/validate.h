/* Argument checks of the reference BLAS xGEMM, xSYRK, xHERK and xTRSM, in
 * their order. */
#ifndef TS_VALIDATE_H
#define TS_VALIDATE_H

#include "common/call.h"
#include "common/scalars.h"

/* Returns 0 when the arguments are valid, else the position of the first bad
 * argument as the reference BLAS passes it to xerbla.  Upper-cases the
 * letters of a valid call; a SYRK or HERK gets its Gram GEMM's transposes. */
int ts_validate(ts_call *c);

/* True when BLAS returns without touching C (m or n zero, or nothing to add
 * and beta = 1).  Needs the scalar flags from ts_scalar_flags. */
int ts_quick_return(const ts_call *c);

/* Sets alpha_zero, beta_zero and beta_one from the scalars. */
void ts_scalar_flags(ts_call *c);

#endif
