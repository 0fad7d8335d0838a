#include "cpu/forward_level3.h"

#include "cpu/cpu_blas.h"

/* Back to the routine's own type, through the generic function type. */
static void (*cpu_routine(ts_routine r))(void) { return (void (*)(void))ts_cpu_gemm(r); }

static void forward_syrk_f77(ts_routine r, const ts_syrk_f77_args *x)
{
    ((ts_syrk_fn)cpu_routine(r))(x->uplo, x->trans, x->n, x->k, x->alpha, x->a, x->lda, x->beta, x->c, x->ldc,
                                 x->uplo_len, x->trans_len);
}

static void forward_trsm_f77(ts_routine r, const ts_trsm_f77_args *x)
{
    ((ts_trsm_fn)cpu_routine(r))(x->side, x->uplo, x->transa, x->diag, x->m, x->n, x->alpha, x->a, x->lda, x->b,
                                 x->ldb, x->side_len, x->uplo_len, x->transa_len, x->diag_len);
}

/* CBLAS_64: the routine's own types have 64-bit integers. */
static void forward_syrk_cblas64(void (*fn)(void), ts_prec sp, const ts_syrk_cblas_args *x)
{
    switch (sp) {
    case TS_S:
        ((ts_cblas_syrk_s64_fn)fn)(x->layout, x->uplo, x->trans, x->n, x->k, *(const float *)x->alpha, x->a, x->lda,
                                   *(const float *)x->beta, x->c, x->ldc);
        break;
    case TS_D:
        ((ts_cblas_syrk_d64_fn)fn)(x->layout, x->uplo, x->trans, x->n, x->k, *(const double *)x->alpha, x->a,
                                   x->lda, *(const double *)x->beta, x->c, x->ldc);
        break;
    default:
        ((ts_cblas_syrk_z64_fn)fn)(x->layout, x->uplo, x->trans, x->n, x->k, x->alpha, x->a, x->lda, x->beta, x->c,
                                   x->ldc);
    }
}

static void forward_trsm_cblas64(void (*fn)(void), ts_prec sp, const ts_trsm_cblas_args *x)
{
    switch (sp) {
    case TS_S:
        ((ts_cblas_trsm_s64_fn)fn)(x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n,
                                   *(const float *)x->alpha, x->a, x->lda, x->b, x->ldb);
        break;
    case TS_D:
        ((ts_cblas_trsm_d64_fn)fn)(x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n,
                                   *(const double *)x->alpha, x->a, x->lda, x->b, x->ldb);
        break;
    default:
        ((ts_cblas_trsm_z64_fn)fn)(x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n, x->alpha, x->a,
                                   x->lda, x->b, x->ldb);
    }
}

static void forward_syrk_cblas(ts_routine r, const ts_syrk_cblas_args *x)
{
    void (*fn)(void) = cpu_routine(r);
    if (ts_routine_ilp64(r)) {
        forward_syrk_cblas64(fn, ts_routine_scalar_prec(r), x);
        return;
    }
    switch (ts_routine_scalar_prec(r)) {
    case TS_S:
        ((ts_cblas_syrk_s_fn)fn)(x->layout, x->uplo, x->trans, x->n, x->k, *(const float *)x->alpha, x->a, x->lda,
                                 *(const float *)x->beta, x->c, x->ldc);
        break;
    case TS_D:
        ((ts_cblas_syrk_d_fn)fn)(x->layout, x->uplo, x->trans, x->n, x->k, *(const double *)x->alpha, x->a, x->lda,
                                 *(const double *)x->beta, x->c, x->ldc);
        break;
    default:
        ((ts_cblas_syrk_z_fn)fn)(x->layout, x->uplo, x->trans, x->n, x->k, x->alpha, x->a, x->lda, x->beta, x->c,
                                 x->ldc);
    }
}

static void forward_trsm_cblas(ts_routine r, const ts_trsm_cblas_args *x)
{
    void (*fn)(void) = cpu_routine(r);
    if (ts_routine_ilp64(r)) {
        forward_trsm_cblas64(fn, ts_routine_scalar_prec(r), x);
        return;
    }
    switch (ts_routine_scalar_prec(r)) {
    case TS_S:
        ((ts_cblas_trsm_s_fn)fn)(x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n,
                                 *(const float *)x->alpha, x->a, x->lda, x->b, x->ldb);
        break;
    case TS_D:
        ((ts_cblas_trsm_d_fn)fn)(x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n,
                                 *(const double *)x->alpha, x->a, x->lda, x->b, x->ldb);
        break;
    default:
        ((ts_cblas_trsm_z_fn)fn)(x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n, x->alpha, x->a,
                                 x->lda, x->b, x->ldb);
    }
}

void ts_forward_received(ts_routine r, const void *received)
{
    int trsm = ts_routine_args(r) == TS_ARGS_TRSM;
    if (ts_routine_cblas(r)) {
        if (trsm)
            forward_trsm_cblas(r, received);
        else
            forward_syrk_cblas(r, received);
    } else if (trsm) {
        forward_trsm_f77(r, received);
    } else {
        forward_syrk_f77(r, received);
    }
}

void ts_forward_level3(const ts_call *c) { ts_forward_received(c->routine, c->received); }
