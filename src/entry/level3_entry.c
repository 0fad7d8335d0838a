#include "entry/level3_entry.h"

#include "cpu/cpu_blas.h"
#include "cpu/forward_level3.h"
#include "dispatch/dispatch.h"
#include "common/cblas.h"
#include "common/scalars.h"
#include "entry/gemm_entry.h"

static char upper(char t) { return (t >= 'a' && t <= 'z') ? (char)(t - 'a' + 'A') : t; }

/* The order of the triangle (TRSM, TRMM) or the symmetric matrix (SYMM,
 * HEMM)
 * on its side: the gate's third dimension (flops m n k). */
static int64_t trsm_order(char side, int64_t m, int64_t n) { return upper(side) == 'L' ? m : n; }

/* Forwards the call as received at once when the forwarding gate passes
 * it (m n k its flops bound, as the entry point's check): 1 then. */
static int gate_forwarded(ts_routine r, int64_t m, int64_t n, int64_t k, const void *alpha, const void *received)
{
    if (!ts_gate_forwards_dims(r, m, n, k, alpha))
        return 0;
    ts_gate_open_lane(r);
    ts_forward_received(r, received);
    return 1;
}

/* HERK's alpha and beta are real, HER2K's beta: the core reads scalars of
 * the call's precision, so the descriptor carries them as (value, 0). */
static void real_scalar(ts_call *c, int i, const void *in)
{
    if (c->prec == TS_C)
        c->herk_scalars[i].c[0] = *(const float *)in, c->herk_scalars[i].c[1] = 0.0f;
    else
        c->herk_scalars[i].z[0] = *(const double *)in, c->herk_scalars[i].z[1] = 0.0;
}

/* A row-major HER2K, C = alpha A B^H + conj(alpha) B A^H + beta C, is on
 * the transposed storage (A', B', C' the column-major views) C' = conj(alpha)
 * A'^H B' + alpha B'^H A' + beta C': the column-major call with trans
 * flipped and alpha conjugated (as CBLAS's reference implementation calls
 * it).  The GPU computes from the descriptor; forwarding passes the call as
 * received. */
static void conj_scalar(ts_call *c, int i, const void *in)
{
    if (c->prec == TS_C)
        c->herk_scalars[i].c[0] = ((const float *)in)[0], c->herk_scalars[i].c[1] = -((const float *)in)[1];
    else
        c->herk_scalars[i].z[0] = ((const double *)in)[0], c->herk_scalars[i].z[1] = -((const double *)in)[1];
}

static void herk_scalars(ts_call *c, const void *alpha, const void *beta, int conj_alpha)
{
    if (ts_routine_scalar_prec(c->routine) != c->prec || conj_alpha) {
        (conj_alpha ? conj_scalar : real_scalar)(c, 0, alpha);
        c->alpha = &c->herk_scalars[0];
    }
    if (ts_routine_beta_prec(c->routine) != c->prec) {
        real_scalar(c, 1, beta);
        c->beta = &c->herk_scalars[1];
    }
}

/* A SYRK or HERK described as its Gram GEMM (validation turns trans into
 * the GEMM's transposes); a SYR2K or HER2K as the same with B (b), the
 * GEMM op(A) op(B)^T whose flops are half of the routine's; conj_alpha: a
 * row-major HER2K's. */
static void run_syrk(ts_routine r, char uplo, char trans, int64_t n, int64_t k, const void *alpha, const void *a,
                     int64_t lda, const void *b, int64_t ldb, const void *beta, void *cmat, int64_t ldc,
                     const void *received, int conj_alpha)
{
    ts_call call;
    ts_call_init(&call, r, trans, trans, n, n, k, alpha, a, lda, b, ldb, beta, cmat, ldc);
    call.uplo = uplo;
    call.received = received;
    herk_scalars(&call, alpha, beta, conj_alpha);
    ts_dispatch(&call);
}

/* A SYMM or HEMM: A the k x k symmetric (Hermitian) matrix, k the order
 * of its side, B and C m x n. */
static void run_symm(ts_routine r, char side, char uplo, int64_t m, int64_t n, const void *alpha, const void *a,
                     int64_t lda, const void *b, int64_t ldb, const void *beta, void *cmat, int64_t ldc,
                     const void *received)
{
    ts_call call;
    ts_call_init(&call, r, 'N', 'N', m, n, trsm_order(side, m, n), alpha, a, lda, b, ldb, beta, cmat, ldc);
    call.uplo = uplo;
    call.side = side;
    call.received = received;
    ts_dispatch(&call);
}


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

/* SYRK, HERK, SYR2K and HER2K (SYRK's and HERK's B is A). */
void ts_syrk_fortran(ts_routine r, const ts_syrk_f77_args *x)
{
    int64_t n = ts_f77_dim(r, x->n), k = ts_f77_dim(r, x->k);
    if (gate_forwarded(r, n, n, k, x->alpha, x))
        return;
    run_syrk(r, *x->uplo, *x->trans, n, k, x->alpha, x->a, ts_f77_dim(r, x->lda), x->b, ts_f77_dim(r, x->ldb),
             x->beta, x->c, ts_f77_dim(r, x->ldc), x, 0);
}

/* A Fortran call with a side (TRSM, TRMM, SYMM, HEMM): its m and n, and
 * whether the gate forwarded it (the flops bound m n and the side's order). */
static int side_gate_forwarded(ts_routine r, char side, const int *mp, const int *np, const void *alpha,
                               const void *received, int64_t *m, int64_t *n)
{
    *m = ts_f77_dim(r, mp), *n = ts_f77_dim(r, np);
    return gate_forwarded(r, *m, *n, trsm_order(side, *m, *n), alpha, received);
}

void ts_symm_fortran(ts_routine r, const ts_symm_f77_args *x)
{
    int64_t m, n;
    if (side_gate_forwarded(r, *x->side, x->m, x->n, x->alpha, x, &m, &n))
        return;
    run_symm(r, *x->side, *x->uplo, m, n, x->alpha, x->a, ts_f77_dim(r, x->lda), x->b, ts_f77_dim(r, x->ldb),
             x->beta, x->c, ts_f77_dim(r, x->ldc), x);
}

void ts_trsm_fortran(ts_routine r, const ts_trsm_f77_args *x)
{
    int64_t m, n;
    if (side_gate_forwarded(r, *x->side, x->m, x->n, x->alpha, x, &m, &n))
        return;
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
static char syrk_trans(int layout, int trans, int herk, int complex)
{
    char t = ts_cblas_trans(trans);
    if (layout != TS_CBLAS_ROW_MAJOR || t == '?')
        return layout == TS_CBLAS_COL_MAJOR ? t : '?';
    if (t == 'N')
        return herk ? 'C' : 'T';
    if (herk)
        return t == 'C' ? 'N' : '?';
    return t == 'C' && complex ? '?' : 'N';
}

/* The triangle of a CBLAS call as the column-major call's. */
static char cblas_uplo(int layout, int uplo)
{
    int row = layout == TS_CBLAS_ROW_MAJOR;
    return cblas_letter(uplo, TS_CBLAS_UPPER, row ? 'L' : 'U', TS_CBLAS_LOWER, row ? 'U' : 'L');
}

/* SYRK's, HERK's, SYR2K's and HER2K's trans as the column-major call's:
 * HERK and HER2K take N or C. */
static char cblas_syrk_trans(ts_routine r, int layout, int trans)
{
    ts_args kind = ts_routine_args(r);
    return syrk_trans(layout, trans, kind == TS_ARGS_HERK || kind == TS_ARGS_HER2K,
                      ts_prec_is_complex(ts_routine_prec(r)));
}

void ts_syrk_cblas(ts_routine r, const ts_syrk_cblas_args *x)
{
    if (gate_forwarded(r, x->n, x->n, x->k, x->alpha, x))
        return;
    run_syrk(r, cblas_uplo(x->layout, x->uplo), cblas_syrk_trans(r, x->layout, x->trans), x->n, x->k, x->alpha, x->a,
             x->lda, x->b, x->ldb, x->beta, x->c, x->ldc, x,
             ts_routine_args(r) == TS_ARGS_HER2K && x->layout == TS_CBLAS_ROW_MAJOR);
}

/* The side of a CBLAS call as the column-major call's: a row-major call's
 * flips. */
static char cblas_side(int layout, int side)
{
    int row = layout == TS_CBLAS_ROW_MAJOR;
    return cblas_letter(side, TS_CBLAS_LEFT, row ? 'R' : 'L', TS_CBLAS_RIGHT, row ? 'L' : 'R');
}

void ts_trsm_cblas(ts_routine r, const ts_trsm_cblas_args *x)
{
    char side = cblas_letter(x->side, TS_CBLAS_LEFT, 'L', TS_CBLAS_RIGHT, 'R');
    if (gate_forwarded(r, x->m, x->n, trsm_order(side, x->m, x->n), x->alpha, x))
        return;
    int row = x->layout == TS_CBLAS_ROW_MAJOR;
    side = cblas_side(x->layout, x->side);
    char uplo = cblas_uplo(x->layout, x->uplo);
    char transa = ts_cblas_trans(x->transa);
    if (!row && x->layout != TS_CBLAS_COL_MAJOR)
        transa = '?';
    char diag = cblas_letter(x->diag, TS_CBLAS_NON_UNIT, 'N', TS_CBLAS_UNIT, 'U');
    run_trsm(r, side, uplo, transa, diag, row ? x->n : x->m, row ? x->m : x->n, x->alpha, x->a, x->lda, x->b,
             x->ldb, x);
}

/* A row-major SYMM or HEMM is the column-major call on the transposed
 * storage: C^T = B^T A^T (side flipped, A^T symmetric or Hermitian with the
 * other triangle), m and n swapped.  An invalid layout makes side '?'. */
void ts_symm_cblas(ts_routine r, const ts_symm_cblas_args *x)
{
    char side = cblas_letter(x->side, TS_CBLAS_LEFT, 'L', TS_CBLAS_RIGHT, 'R');
    if (gate_forwarded(r, x->m, x->n, trsm_order(side, x->m, x->n), x->alpha, x))
        return;
    int row = x->layout == TS_CBLAS_ROW_MAJOR;
    side = row || x->layout == TS_CBLAS_COL_MAJOR ? cblas_side(x->layout, x->side) : '?';
    run_symm(r, side, cblas_uplo(x->layout, x->uplo), row ? x->n : x->m, row ? x->m : x->n, x->alpha, x->a, x->lda,
             x->b, x->ldb, x->beta, x->c, x->ldc, x);
}
