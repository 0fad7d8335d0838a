#include "cpu/forward_level3.h"

#include "common/cblas.h"
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

#define SYRK_ARGS(SCALAR)                                                                               \
    x->layout, x->uplo, x->trans, x->n, x->k, SCALAR(x->alpha), x->a, x->lda, SCALAR(x->beta), x->c, x->ldc
#define TRSM_ARGS(SCALAR)                                                                               \
    x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n, SCALAR(x->alpha), x->a, x->lda, x->b, x->ldb

/* CBLAS: HERK's scalars are real (ts_routine_scalar_prec). */
static void forward_syrk_cblas(ts_routine r, const ts_syrk_cblas_args *x)
{
    TS_CBLAS_FORWARD(cpu_routine(r), ts_routine_scalar_prec(r), ts_routine_ilp64(r), SYRK, SYRK_ARGS);
}

static void forward_trsm_cblas(ts_routine r, const ts_trsm_cblas_args *x)
{
    TS_CBLAS_FORWARD(cpu_routine(r), ts_routine_scalar_prec(r), ts_routine_ilp64(r), TRSM, TRSM_ARGS);
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
