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

/* SYMM and HEMM; SYR2K and HER2K have the same types (ts_syr2k_fn). */
static void forward_symm_f77(ts_routine r, const ts_symm_f77_args *x)
{
    ((ts_symm_fn)cpu_routine(r))(x->side, x->uplo, x->m, x->n, x->alpha, x->a, x->lda, x->b, x->ldb, x->beta, x->c,
                                 x->ldc, x->side_len, x->uplo_len);
}

static void forward_syr2k_f77(ts_routine r, const ts_syrk_f77_args *x)
{
    ((ts_syr2k_fn)cpu_routine(r))(x->uplo, x->trans, x->n, x->k, x->alpha, x->a, x->lda, x->b, x->ldb, x->beta,
                                  x->c, x->ldc, x->uplo_len, x->trans_len);
}

#define SYRK_ARGS(SCALAR)                                                                               \
    x->layout, x->uplo, x->trans, x->n, x->k, SCALAR(x->alpha), x->a, x->lda, SCALAR(x->beta), x->c, x->ldc
#define TRSM_ARGS(SCALAR)                                                                               \
    x->layout, x->side, x->uplo, x->transa, x->diag, x->m, x->n, SCALAR(x->alpha), x->a, x->lda, x->b, x->ldb

#define SYMM_ARGS(SCALAR)                                                                               \
    x->layout, x->side, x->uplo, x->m, x->n, SCALAR(x->alpha), x->a, x->lda, x->b, x->ldb, SCALAR(x->beta), x->c, \
        x->ldc
#define SYR2K_ARGS(SCALAR)                                                                              \
    x->layout, x->uplo, x->trans, x->n, x->k, SCALAR(x->alpha), x->a, x->lda, x->b, x->ldb, SCALAR(x->beta), x->c, \
        x->ldc
/* HER2K: alpha complex (by address, as received), beta real. */
#define HER2K_ARGS(SCALAR)                                                                              \
    x->layout, x->uplo, x->trans, x->n, x->k, x->alpha, x->a, x->lda, x->b, x->ldb, SCALAR(x->beta), x->c, x->ldc

/* CBLAS: HERK's scalars are real (ts_routine_scalar_prec). */
static void forward_syrk_cblas(ts_routine r, const ts_syrk_cblas_args *x)
{
    TS_CBLAS_FORWARD(cpu_routine(r), ts_routine_scalar_prec(r), ts_routine_ilp64(r), SYRK, SYRK_ARGS);
}

static void forward_trsm_cblas(ts_routine r, const ts_trsm_cblas_args *x)
{
    TS_CBLAS_FORWARD(cpu_routine(r), ts_routine_scalar_prec(r), ts_routine_ilp64(r), TRSM, TRSM_ARGS);
}

static void forward_symm_cblas(ts_routine r, const ts_symm_cblas_args *x)
{
    TS_CBLAS_FORWARD(cpu_routine(r), ts_routine_scalar_prec(r), ts_routine_ilp64(r), SYMM, SYMM_ARGS);
}

static void forward_syr2k_cblas(ts_routine r, const ts_syrk_cblas_args *x)
{
    if (ts_routine_args(r) == TS_ARGS_HER2K)
        TS_CBLAS_FORWARD(cpu_routine(r), ts_routine_beta_prec(r), ts_routine_ilp64(r), HER2K, HER2K_ARGS);
    else
        TS_CBLAS_FORWARD(cpu_routine(r), ts_routine_scalar_prec(r), ts_routine_ilp64(r), SYR2K, SYR2K_ARGS);
}

/* The routine's arguments as received, by kind: SYRK and HERK, TRSM and
 * TRMM, SYMM and HEMM, SYR2K and HER2K share their forwarding. */
void ts_forward_received(ts_routine r, const void *received)
{
    int cblas = ts_routine_cblas(r);
    switch (ts_routine_args(r)) {
    case TS_ARGS_TRSM:
    case TS_ARGS_TRMM: cblas ? forward_trsm_cblas(r, received) : forward_trsm_f77(r, received); break;
    case TS_ARGS_SYMM:
    case TS_ARGS_HEMM: cblas ? forward_symm_cblas(r, received) : forward_symm_f77(r, received); break;
    case TS_ARGS_SYR2K:
    case TS_ARGS_HER2K: cblas ? forward_syr2k_cblas(r, received) : forward_syr2k_f77(r, received); break;
    default: cblas ? forward_syrk_cblas(r, received) : forward_syrk_f77(r, received); break;
    }
}

void ts_forward_level3(const ts_call *c) { ts_forward_received(c->routine, c->received); }
