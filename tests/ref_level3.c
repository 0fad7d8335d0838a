/* Reference level-3 routines other than GEMM in long double, straight from
 * the reference BLAS's definitions (not its loop order). */
#include "ref_level3.h"

#include <float.h>
#include <math.h>
#include <string.h>

ref_cx ref_get(ts_prec p, const void *x, int64_t i)
{
    switch (p) {
    case TS_S: return (ref_cx){ ((const float *)x)[i], 0 };
    case TS_D: return (ref_cx){ ((const double *)x)[i], 0 };
    case TS_C: return (ref_cx){ ((const float *)x)[2 * i], ((const float *)x)[2 * i + 1] };
    default: return (ref_cx){ ((const double *)x)[2 * i], ((const double *)x)[2 * i + 1] };
    }
}

void ref_put(ts_prec p, void *x, int64_t i, ref_cx v)
{
    switch (p) {
    case TS_S: ((float *)x)[i] = (float)v.re; break;
    case TS_D: ((double *)x)[i] = (double)v.re; break;
    case TS_C: ((float *)x)[2 * i] = (float)v.re, ((float *)x)[2 * i + 1] = (float)v.im; break;
    default: ((double *)x)[2 * i] = (double)v.re, ((double *)x)[2 * i + 1] = (double)v.im; break;
    }
}

long double ref_eps(ts_prec p) { return p == TS_S || p == TS_C ? FLT_EPSILON / 2 : DBL_EPSILON / 2; }

static ref_cx mul(ref_cx a, ref_cx b) { return (ref_cx){ a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re }; }
static ref_cx add(ref_cx a, ref_cx b) { return (ref_cx){ a.re + b.re, a.im + b.im }; }
static ref_cx sub(ref_cx a, ref_cx b) { return (ref_cx){ a.re - b.re, a.im - b.im }; }
static ref_cx conj_if(ref_cx a, int on) { return (ref_cx){ a.re, on ? -a.im : a.im }; }
static ref_cx divide(ref_cx a, ref_cx b)
{
    long double d = b.re * b.re + b.im * b.im;
    return (ref_cx){ (a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d };
}
static long double mag(ref_cx a) { return hypotl(a.re, a.im); }

int ref_trsm_order(const ref_case *rc) { return rc->side == 'L' ? rc->m : rc->n; }

static int side_shaped(const ref_case *rc)
{
    return rc->op == REF_TRSM || rc->op == REF_TRMM || rc->op == REF_SYMM || rc->op == REF_HEMM;
}
static int rank_2k(const ref_case *rc) { return rc->op == REF_SYR2K || rc->op == REF_HER2K; }

void ref_shape_a(const ref_case *rc, int *rows, int *cols)
{
    if (side_shaped(rc))
        *rows = *cols = ref_trsm_order(rc);
    else
        *rows = rc->trans == 'N' ? rc->n : rc->k, *cols = rc->trans == 'N' ? rc->k : rc->n;
}

void ref_shape_b(const ref_case *rc, int *rows, int *cols)
{
    if (rank_2k(rc))
        ref_shape_a(rc, rows, cols);
    else if (rc->op == REF_SYMM || rc->op == REF_HEMM)
        *rows = rc->m, *cols = rc->n;
    else
        *rows = *cols = 0;
}

/* Elements the call updates: the triangle of SYRK, HERK, SYR2K and HER2K,
 * all of the others' C (TRSM's and TRMM's B). */
static int written(const ref_case *rc, int i, int j)
{
    if (side_shaped(rc))
        return 1;
    return rc->uplo == 'U' ? i <= j : i >= j;
}

/* The bound of alpha times a sum of `terms` products (the magnitudes'
 * sum scaled by |alpha|: scaled) plus beta c (rest): rounding in the case's
 * precision, and underflow. */
static long double rounding(const ref_case *rc, int terms, long double scaled, long double rest)
{
    const ts_prec p = rc->prec;
    return 8 * (terms + 4) * ref_eps(p) * (scaled + rest) + 8 * (p == TS_S || p == TS_C ? FLT_MIN : DBL_MIN);
}

/* Element (i, l) of op(X), X stored with leading dimension ld: X(i, l) for
 * trans N, else X(l, i) (not conjugated). */
static ref_cx op_elem(const ref_case *rc, const void *x, int ld, int i, int l)
{
    return ref_get(rc->prec, x, rc->trans == 'N' ? i + (int64_t)l * ld : l + (int64_t)i * ld);
}

/* SYRK, HERK, SYR2K and HER2K: sum_l op(A)(i,l) op(B)(j,l) (B = A for SYRK
 * and HERK), plus sum_l op(B)(i,l) op(A)(j,l) for SYR2K and HER2K; the
 * Hermitian ones conjugate the second factor for trans N, the first for
 * trans C, and HER2K's second sum takes conj(alpha). */
static void rank_k(const ref_case *rc, const void *a, const void *b, const void *c0, ref_cx *out, long double *bound)
{
    const ts_prec p = rc->prec;
    const int her = rc->op == REF_HERK || rc->op == REF_HER2K, two = rank_2k(rc), n = rc->n, k = rc->k;
    const void *bm = two ? b : a;
    const int ldb = two ? rc->ldb : rc->lda;
    /* HERK's scalars are real, HER2K's beta: their imaginary parts are not the call's. */
    const ref_cx alpha = { rc->alpha[0], rc->op == REF_HERK ? 0 : rc->alpha[1] };
    const ref_cx beta = { rc->beta[0], her ? 0 : rc->beta[1] };
    const ref_cx alpha2 = conj_if(alpha, her);
    const int scale_only = (alpha.re == 0 && alpha.im == 0) || k == 0;
    const int beta_zero = beta.re == 0 && beta.im == 0;
    const int conj_x = her && rc->trans != 'N', conj_y = her && rc->trans == 'N';
    if (scale_only && beta.re == 1 && beta.im == 0)
        return; /* the quick return: out is c0 already */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            if (!written(rc, i, j))
                continue;
            int64_t at = i + (int64_t)j * rc->ldc;
            ref_cx c = ref_get(p, c0, at), s = { 0, 0 }, s2 = { 0, 0 };
            long double size = 0;
            for (int l = 0; !scale_only && l < k; l++) {
                ref_cx x = op_elem(rc, a, rc->lda, i, l), y = op_elem(rc, bm, ldb, j, l);
                s = add(s, mul(conj_if(x, conj_x), conj_if(y, conj_y)));
                size += mag(x) * mag(y);
                if (two) {
                    x = op_elem(rc, bm, ldb, i, l), y = op_elem(rc, a, rc->lda, j, l);
                    s2 = add(s2, mul(conj_if(x, conj_x), conj_if(y, conj_y)));
                    size += mag(x) * mag(y);
                }
            }
            ref_cx r = add(add(mul(alpha, s), mul(alpha2, s2)), beta_zero ? (ref_cx){ 0, 0 } : mul(beta, c));
            if (her && i == j)
                r.im = 0; /* a Hermitian C's diagonal is real */
            out[at] = r;
            bound[at] = rounding(rc, two ? 2 * k : k, mag(alpha) * size, beta_zero ? 0 : mag(beta) * mag(c));
        }
}

/* A(i, j) of a symmetric or Hermitian A from its triangle uplo: elsewhere
 * the mirror element (conjugated for HEMM); HEMM's diagonal real. */
static ref_cx sym_a(const ref_case *rc, const void *a, int i, int j)
{
    int stored = rc->uplo == 'U' ? i <= j : i >= j;
    ref_cx v = ref_get(rc->prec, a, stored ? i + (int64_t)j * rc->lda : j + (int64_t)i * rc->lda);
    if (rc->op == REF_HEMM && i == j)
        v.im = 0;
    return conj_if(v, rc->op == REF_HEMM && !stored);
}

/* Element (i, j) of op(A) B (side L) or B op(A) (side R), where elem
 * reads op(A) and B has leading dimension ldb; *size: the sum of the
 * products' magnitudes, for the rounding bound. */
typedef ref_cx a_elem_fn(const ref_case *rc, const void *a, int i, int j);
static ref_cx side_product(const ref_case *rc, a_elem_fn *elem, const void *a, const void *b, int64_t ldb, int i, int j,
                           long double *size)
{
    const int t = ref_trsm_order(rc), left = rc->side == 'L';
    ref_cx s = { 0, 0 };
    *size = 0;
    for (int l = 0; l < t; l++) {
        ref_cx x = left ? elem(rc, a, i, l) : ref_get(rc->prec, b, i + (int64_t)l * ldb);
        ref_cx y = left ? ref_get(rc->prec, b, l + (int64_t)j * ldb) : elem(rc, a, l, j);
        s = add(s, mul(x, y));
        *size += mag(x) * mag(y);
    }
    return s;
}

/* SYMM and HEMM: C = alpha A B + beta C (side L) or alpha B A + beta C. */
static void symm(const ref_case *rc, const void *a, const void *b, const void *c0, ref_cx *out, long double *bound)
{
    const ts_prec p = rc->prec;
    const int t = ref_trsm_order(rc);
    ref_cx alpha = { rc->alpha[0], rc->alpha[1] }, beta = { rc->beta[0], rc->beta[1] };
    const int scale_only = alpha.re == 0 && alpha.im == 0, beta_zero = beta.re == 0 && beta.im == 0;
    if (scale_only && beta.re == 1 && beta.im == 0)
        return;
    for (int j = 0; j < rc->n; j++)
        for (int i = 0; i < rc->m; i++) {
            int64_t at = i + (int64_t)j * rc->ldc;
            ref_cx c = ref_get(p, c0, at), s = { 0, 0 };
            long double size = 0;
            if (!scale_only)
                s = side_product(rc, sym_a, a, b, rc->ldb, i, j, &size);
            out[at] = add(mul(alpha, s), beta_zero ? (ref_cx){ 0, 0 } : mul(beta, c));
            bound[at] = rounding(rc, t, mag(alpha) * size, beta_zero ? 0 : mag(beta) * mag(c));
        }
}

/* op(A)(i, j) with the unit diagonal, 0 outside op(A)'s triangle. */
static ref_cx op_a(const ref_case *rc, const void *a, int i, int j)
{
    int upper_op = (rc->uplo == 'U') == (rc->trans == 'N');
    if (upper_op ? i > j : i < j)
        return (ref_cx){ 0, 0 };
    if (i == j && rc->diag == 'U')
        return (ref_cx){ 1, 0 };
    int64_t at = rc->trans == 'N' ? i + (int64_t)j * rc->lda : j + (int64_t)i * rc->lda;
    return conj_if(ref_get(rc->prec, a, at), rc->trans == 'C');
}

/* Side L: op(A) x = alpha b for each column; side R: x op(A) = alpha b for
 * each row, i.e. op(A)^T x = alpha b.  M(i, l) below is the matrix solved. */
static ref_cx solved(const ref_case *rc, const void *a, int i, int l)
{
    return rc->side == 'L' ? op_a(rc, a, i, l) : op_a(rc, a, l, i);
}

static void trsm(const ref_case *rc, const void *a, const void *c0, ref_cx *out, long double *bound)
{
    const ts_prec p = rc->prec;
    const int t = ref_trsm_order(rc), lines = rc->side == 'L' ? rc->n : rc->m;
    ref_cx alpha = { rc->alpha[0], rc->alpha[1] };
    /* M lower: forward substitution; upper: backward. */
    int lower = rc->side == 'L' ? (rc->uplo == 'L') == (rc->trans == 'N') : (rc->uplo == 'U') == (rc->trans == 'N');
    for (int line = 0; line < lines; line++) {
        /* Element e of the line: B(e, line) for side L, B(line, e) for side R. */
#define AT(e) (rc->side == 'L' ? (e) + (int64_t)line * rc->ldc : line + (int64_t)(e) * rc->ldc)
        long double largest = 0;
        for (int s = 0; s < t; s++) {
            int e = lower ? s : t - 1 - s;
            ref_cx x = { 0, 0 };
            if (rc->alpha[0] != 0 || rc->alpha[1] != 0) {
                x = mul(alpha, ref_get(p, c0, AT(e)));
                for (int q = 0; q < s; q++) {
                    int l = lower ? q : t - 1 - q;
                    x = sub(x, mul(solved(rc, a, e, l), out[AT(l)]));
                }
                x = divide(x, solved(rc, a, e, e));
            }
            out[AT(e)] = x;
            if (mag(x) > largest)
                largest = mag(x);
        }
        for (int e = 0; e < t; e++)
            bound[AT(e)] = 64 * (t + 2) * ref_eps(p) * largest;
#undef AT
    }
}

/* TRMM: B = alpha op(A) B (side L) or alpha B op(A); alpha = 0 makes B 0
 * without reading it. */
static void trmm(const ref_case *rc, const void *a, const void *c0, ref_cx *out, long double *bound)
{
    const int t = ref_trsm_order(rc);
    ref_cx alpha = { rc->alpha[0], rc->alpha[1] };
    const int zero = alpha.re == 0 && alpha.im == 0;
    for (int j = 0; j < rc->n; j++)
        for (int i = 0; i < rc->m; i++) {
            ref_cx s = { 0, 0 };
            long double size = 0;
            if (!zero)
                s = side_product(rc, op_a, a, c0, rc->ldc, i, j, &size);
            int64_t at = i + (int64_t)j * rc->ldc;
            out[at] = mul(alpha, s);
            bound[at] = rounding(rc, t, mag(alpha) * size, 0);
        }
}

void ref_level3(const ref_case *rc, const void *a, const void *b, const void *c0, ref_cx *out, long double *bound)
{
    int rows = side_shaped(rc) ? rc->m : rc->n;
    for (int j = 0; j < rc->n; j++)
        for (int i = 0; i < rc->ldc; i++) {
            int64_t at = i + (int64_t)j * rc->ldc;
            out[at] = ref_get(rc->prec, c0, at);
            bound[at] = 0;
        }
    if (rows == 0 || rc->n == 0)
        return;
    switch (rc->op) {
    case REF_TRSM: trsm(rc, a, c0, out, bound); break;
    case REF_TRMM: trmm(rc, a, c0, out, bound); break;
    case REF_SYMM:
    case REF_HEMM: symm(rc, a, b, c0, out, bound); break;
    default: rank_k(rc, a, b, c0, out, bound); break;
    }
}
