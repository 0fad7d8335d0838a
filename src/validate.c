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

void ts_scalar_flags(ts_call *c)
{
    c->alpha_zero = ts_scalar_is(c->prec, c->alpha, 0.0);
    c->beta_zero = ts_scalar_is(c->prec, c->beta, 0.0);
    c->beta_one = ts_scalar_is(c->prec, c->beta, 1.0);
}

int ts_quick_return(const ts_call *c)
{
    return c->m == 0 || c->n == 0 || (!ts_call_reads_ab(c) && c->beta_one);
}
