#include "entry/level3_entry.h"

#include "cpu/cpu_blas.h"
#include "cpu/forward_level3.h"
#include "dispatch/dispatch.h"
#include "common/cblas.h"
#include "common/scalars.h"
#include "entry/gemm_entry.h"

static char upper(char t) { return (t >= 'a' && t <= 'z') ? (char)(t - 'a' + 'A') : t; }

/* HERK's alpha and beta are real: the core reads scalars of the call's
 * precision, so the descriptor carries them as (value, 0). */
static void herk_scalars(ts_call *c, const void *alpha, const void *beta)
{
    if (ts_routine_args(c->routine) != TS_ARGS_HERK)
        return;
    const void *in[2] = { alpha, beta };
    for (int i = 0; i < 2; i++) {
        if (c->prec == TS_C)
            c->herk_scalars[i].c[0] = *(const float *)in[i], c->herk_scalars[i].c[1] = 0.0f;
        else
            c->herk_scalars[i].z[0] = *(const double *)in[i], c->herk_scalars[i].z[1] = 0.0;
    }
    c->alpha = &c->herk_scalars[0];
    c->beta = &c->herk_scalars[1];
}

/* A SYRK or HERK described as its Gram GEMM (validation turns trans into
 * the GEMM's transposes). */
static void run_syrk(ts_routine r, char uplo, char trans, int64_t n, int64_t k, const void *alpha, const void *a,
                     int64_t lda, const void *beta, void *cmat, int64_t ldc, const void *received)
{
    ts_call call;
    ts_call_init(&call, r, trans, trans, n, n, k, alpha, a, lda, a, lda, beta, cmat, ldc);
    call.uplo = uplo;
    call.received = received;
    herk_scalars(&call, alpha, beta);
    ts_dispatch(&call);
}

/* The triangle's order: the gate's third dimension (flops m n k). */
static int64_t trsm_order(char side, int64_t m, int64_t n) { return upper(side) == 'L' ? m : n; }

/* A TRSM described with B as both B and C and k the triangle's order. */
static void run_trsm(ts_routine r, char side, char uplo, char transa, char diag, int64_t m, int64_t n,
                     const void *alpha, const void *a, int64_t lda, void *b, int64_t ldb, const void *received)
{
    ts_call call;
    ts_call_init(&call, r, transa, 'N', m, n, trsm_order(side, m, n), alpha, a, lda, b, ldb, ts_scalar_zero(ts_routine_prec(r)), b, ldb);
    call.uplo = uplo;
    call.side = side;
    call.diag = diag;
    call.received = received;
    ts_dispatch(&call);
}

void ts_syrk_fortran(ts_routine r, const ts_syrk_f77_args *x)
{
    int64_t n = ts_f77_dim(r, x->n), k = ts_f77_dim(r, x->k);
    if (ts_gate_forwards_dims(r, n, n, k, x->alpha)) {
        ts_gate_open_lane(r);
        ts_forward_received(r, x);
        return;
    }
    run_syrk(r, *x->uplo, *x->trans, n, k, x->alpha, x->a, ts_f77_dim(r, x->lda), x->beta, x->c,
             ts_f77_dim(r, x->ldc), x);
}

void ts_trsm_fortran(ts_routine r, const ts_trsm_f77_args *x)
{
    int64_t m = ts_f77_dim(r, x->m), n = ts_f77_dim(r, x->n);
    if (ts_gate_forwards_dims(r, m, n, trsm_order(*x->side, m, n), x->alpha)) {
        ts_gate_open_lane(r);
        ts_forward_received(r, x);
        return;
    }
    run_trsm(r, *x->side, *x->uplo, *x->transa, *x->diag, m, n, x->alpha, x->a, ts_f77_dim(r, x->lda), x->b,
             ts_f77_dim(r, x->ldb), x);
}

/* CBLAS's enums as BLAS letters; anything else is '?', which validation
 * refuses, so the CPU BLAS's cblas_xerbla reports it. */
static char cblas_letter(int v, int a, char la, int b, char lb) { return v == a ? la : v == b ? lb : '?'; }

/* A row-major call is the column-major one on the transposed storage:
 * the triangle flips (and TRSM's side with it, m and n swap).  SYRK's
 * C^T = C makes op(A) op(A)^T of the transposed A the call with trans
 * flipped; HERK's C^T = conj(C) flips N and C.  A letter that would be
 * invalid in the row-major call stays invalid (CBLAS checks the enum as
 * given, before any flip). */
static char syrk_trans(const ts_syrk_cblas_args *x, int herk, int complex)
{
    char t = ts_cblas_trans(x->trans);
    if (x->layout != TS_CBLAS_ROW_MAJOR || t == '?')
        return x->layout == TS_CBLAS_COL_MAJOR ? t : '?';
    if (t == 'N')
        return herk ? 'C' : 'T';
    if (herk)
        return t == 'C' ? 'N' : '?';
    return t == 'C' && complex ? '?' : 'N';
}

void ts_syrk_cblas(ts_routine r, const ts_syrk_cblas_args *x)
{
    if (ts_gate_forwards_dims(r, x->n, x->n, x->k, x->alpha)) {
        ts_gate_open_lane(r);
        ts_forward_received(r, x);
        return;
    }
    int row = x->layout == TS_CBLAS_ROW_MAJOR;
    char uplo = cblas_letter(x->uplo, TS_CBLAS_UPPER, row ? 'L' : 'U', TS_CBLAS_LOWER, row ? 'U' : 'L');
    char trans = syrk_trans(x, ts_routine_args(r) == TS_ARGS_HERK, ts_prec_is_complex(ts_routine_prec(r)));
    run_syrk(r, uplo, trans, x->n, x->k, x->alpha, x->a, x->lda, x->beta, x->c, x->ldc, x);
}

void ts_trsm_cblas(ts_routine r, const ts_trsm_cblas_args *x)
{
    char side = cblas_letter(x->side, TS_CBLAS_LEFT, 'L', TS_CBLAS_RIGHT, 'R');
    if (ts_gate_forwards_dims(r, x->m, x->n, trsm_order(side, x->m, x->n), x->alpha)) {
        ts_gate_open_lane(r);
        ts_forward_received(r, x);
        return;
    }
    int row = x->layout == TS_CBLAS_ROW_MAJOR;
    if (row)
        side = cblas_letter(x->side, TS_CBLAS_LEFT, 'R', TS_CBLAS_RIGHT, 'L');
    char uplo = cblas_letter(x->uplo, TS_CBLAS_UPPER, row ? 'L' : 'U', TS_CBLAS_LOWER, row ? 'U' : 'L');
    char transa = ts_cblas_trans(x->transa);
    if (!row && x->layout != TS_CBLAS_COL_MAJOR)
        transa = '?';
    char diag = cblas_letter(x->diag, TS_CBLAS_NON_UNIT, 'N', TS_CBLAS_UNIT, 'U');
    run_trsm(r, side, uplo, transa, diag, row ? x->n : x->m, row ? x->m : x->n, x->alpha, x->a, x->lda, x->b,
             x->ldb, x);
}
