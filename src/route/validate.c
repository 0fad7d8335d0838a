#include "route/validate.h"

static char upper(char t) { return (t >= 'a' && t <= 'z') ? (char)(t - 'a' + 'A') : t; }

static int valid_trans(char t) { return t == 'N' || t == 'T' || t == 'C'; }

static int valid_uplo(char t) { return t == 'U' || t == 'L'; }

static int validate_gemm(ts_call *c)
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

/* xSYRK (real: trans N, T or C; complex: N or T) and xHERK (N or C).  A
 * valid call becomes its Gram GEMM: C = op(A) op(A)^T, ^H for HERK.
 * xSYR2K and xHER2K check the same letters and B as A (two, with B: the
 * reference's argument numbers after trans move by 2 then). */
static int validate_syrk(ts_call *c, int herk, int two)
{
    char uplo = upper(c->uplo), trans = upper(c->transa);
    if (!valid_uplo(uplo))
        return 1;
    int real_syrk = !herk && !ts_prec_is_complex(c->prec);
    if (trans != 'N' && trans != (herk ? 'C' : 'T') && !(trans == 'C' && real_syrk))
        return 2;
    if (c->n < 0)
        return 3;
    if (c->k < 0)
        return 4;
    c->uplo = uplo;
    char t = herk ? 'C' : 'T';
    c->transa = trans == 'N' ? 'N' : t;
    c->transb = trans == 'N' ? t : 'N';
    if (c->lda < ts_max1(ts_rows_a(c)))
        return 7;
    if (two && c->ldb < ts_max1(ts_rows_b(c)))
        return 9;
    if (c->ldc < ts_max1(c->n))
        return two ? 12 : 10;
    return 0;
}

/* xSYMM and xHEMM: side, uplo, m, n, then A (k x k, k the order: m for
 * side L, n for side R), B and C (m x n). */
static int validate_symm(ts_call *c)
{
    char side = upper(c->side), uplo = upper(c->uplo);
    if (side != 'L' && side != 'R')
        return 1;
    if (!valid_uplo(uplo))
        return 2;
    if (c->m < 0)
        return 3;
    if (c->n < 0)
        return 4;
    c->side = side;
    c->uplo = uplo;
    c->k = side == 'L' ? c->m : c->n;
    if (c->lda < ts_max1(c->k))
        return 7;
    if (c->ldb < ts_max1(c->m))
        return 9;
    if (c->ldc < ts_max1(c->m))
        return 12;
    return 0;
}

/* xTRSM and xTRMM (the same checks); k is the triangle's order (m for
 * side L, n for side R). */
static int validate_trsm(ts_call *c)
{
    char side = upper(c->side), uplo = upper(c->uplo), transa = upper(c->transa), diag = upper(c->diag);
    if (side != 'L' && side != 'R')
        return 1;
    if (!valid_uplo(uplo))
        return 2;
    if (!valid_trans(transa))
        return 3;
    if (diag != 'U' && diag != 'N')
        return 4;
    if (c->m < 0)
        return 5;
    if (c->n < 0)
        return 6;
    c->side = side;
    c->uplo = uplo;
    c->transa = transa;
    c->diag = diag;
    if (c->lda < ts_max1(c->k))
        return 9;
    if (c->ldb < ts_max1(c->m))
        return 11;
    return 0;
}

int ts_validate(ts_call *c)
{
    switch (ts_routine_args(c->routine)) {
    case TS_ARGS_SYRK: return validate_syrk(c, 0, 0);
    case TS_ARGS_HERK: return validate_syrk(c, 1, 0);
    case TS_ARGS_SYR2K: return validate_syrk(c, 0, 1);
    case TS_ARGS_HER2K: return validate_syrk(c, 1, 1);
    case TS_ARGS_TRSM:
    case TS_ARGS_TRMM: return validate_trsm(c);
    case TS_ARGS_SYMM:
    case TS_ARGS_HEMM: return validate_symm(c);
    default: return validate_gemm(c);
    }
}
