/* BLAS scalars by precision: a test of a scalar's value, and the units a
 * layer passes when it rewrites a call into another (a Gram, a slice). */
#ifndef TS_SCALARS_H
#define TS_SCALARS_H

#include "common/call.h"

/* Whether the scalar x of precision p is the real number re. */
static inline int ts_scalar_is(ts_prec p, const void *x, double re)
{
    switch (p) {
    case TS_S: return *(const float *)x == (float)re;
    case TS_D: return *(const double *)x == re;
    case TS_C: return ((const float *)x)[0] == (float)re && ((const float *)x)[1] == 0.0f;
    default: return ((const double *)x)[0] == re && ((const double *)x)[1] == 0.0;
    }
}

/* 1 and 0 as scalars of precision p (real or complex). */
static inline const void *ts_scalar_one(ts_prec p)
{
    static const float one_f[2] = { 1.0f, 0.0f };
    static const double one_d[2] = { 1.0, 0.0 };
    return p == TS_S || p == TS_C ? (const void *)one_f : (const void *)one_d;
}

static inline const void *ts_scalar_zero(ts_prec p)
{
    static const float zero_f[2] = { 0.0f, 0.0f };
    static const double zero_d[2] = { 0.0, 0.0 };
    return p == TS_S || p == TS_C ? (const void *)zero_f : (const void *)zero_d;
}

#endif
