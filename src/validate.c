#include "validate.h"

static char upper(char t) { return (t >= 'a' && t <= 'z') ? (char)(t - 'a' + 'A') : t; }

static int valid_trans(char t) { return t == 'N' || t == 'T' || t == 'C'; }

int ts_validate(ts_call *c)
{
    char ta = upper(c->transa), tb = upper(c->transb);
    if (!valid_trans(ta))
        return 1;
    if (!valid_trans(tb))
        return 2;
    if (c->m < 0)
        return 3;
    if (c->n < 0)
        return 4;
    if (c->k < 0)
        return 5;
    c->transa = ta;
    c->transb = tb;
    if (c->lda < ts_max1(ts_rows_a(c)))
        return 8;
    if (c->ldb < ts_max1(ts_rows_b(c)))
        return 10;
    if (c->ldc < ts_max1(c->m))
        return 13;
    return 0;
}

/* Compares a scalar of precision p with re + 0i. */
static int scalar_is(ts_prec p, const void *x, double re)
{
    switch (p) {
    case TS_S: return *(const float *)x == (float)re;
    case TS_D: return *(const double *)x == re;
    case TS_C: return ((const float *)x)[0] == (float)re && ((const float *)x)[1] == 0.0f;
    default: return ((const double *)x)[0] == re && ((const double *)x)[1] == 0.0;
    }
}

void ts_scalar_flags(ts_call *c)
{
    c->alpha_zero = scalar_is(c->prec, c->alpha, 0.0);
    c->beta_zero = scalar_is(c->prec, c->beta, 0.0);
    c->beta_one = scalar_is(c->prec, c->beta, 1.0);
}

int ts_scalar_is_zero(ts_prec p, const void *x) { return scalar_is(p, x, 0.0); }

int ts_quick_return(const ts_call *c)
{
    return c->m == 0 || c->n == 0 || ((c->alpha_zero || c->k == 0) && c->beta_one);
}
