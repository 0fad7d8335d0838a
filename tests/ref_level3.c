/* Reference SYRK, HERK and TRSM in long double, straight from the
 * reference BLAS's definitions (not its loop order). */
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

/* Elements the call updates: SYRK's and HERK's triangle, all of TRSM's B. */
static int written(const ref_case *rc, int i, int j)
{
    if (rc->op == REF_TRSM)
        return 1;
    return rc->uplo == 'U' ? i <= j : i >= j;
}

static void syrk(const ref_case *rc, const void *a, const void *c0, ref_cx *out, long double *bound)
{
    const ts_prec p = rc->prec;
    const int herk = rc->op == REF_HERK, n = rc->n, k = rc->k;
    /* HERK's scalars are real: their imaginary parts are not the call's. */
    ref_cx alpha = { rc->alpha[0], herk ? 0 : rc->alpha[1] }, beta = { rc->beta[0], herk ? 0 : rc->beta[1] };
    const int scale_only = (alpha.re == 0 && alpha.im == 0) || k == 0;
    const int beta_zero = beta.re == 0 && beta.im == 0;
    if (scale_only && beta.re == 1 && beta.im == 0)
        return; /* the quick return: out is c0 already */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            if (!written(rc, i, j))
                continue;
            int64_t at = i + (int64_t)j * rc->ldc;
            ref_cx c = ref_get(p, c0, at), s = { 0, 0 }, r;
            long double size = 0;
            for (int l = 0; !scale_only && l < k; l++) {
                /* trans N: A(i,l) A(j,l); else A(l,i) A(l,j); HERK conjugates the second or the first. */
                ref_cx x = rc->trans == 'N' ? ref_get(p, a, i + (int64_t)l * rc->lda) : ref_get(p, a, l + (int64_t)i * rc->lda);
                ref_cx y = rc->trans == 'N' ? ref_get(p, a, j + (int64_t)l * rc->lda) : ref_get(p, a, l + (int64_t)j * rc->lda);
                s = add(s, mul(conj_if(x, herk && rc->trans != 'N'), conj_if(y, herk && rc->trans == 'N')));
                size += mag(x) * mag(y);
            }
            if (herk) {
                /* Real scalars scale each part; the diagonal is real. */
                ref_cx bc = beta_zero ? (ref_cx){ 0, 0 } : (ref_cx){ beta.re * c.re, beta.re * c.im };
                r = add((ref_cx){ alpha.re * s.re, alpha.re * s.im }, bc);
                if (i == j)
                    r.im = 0;
            } else {
                r = add(mul(alpha, s), beta_zero ? (ref_cx){ 0, 0 } : mul(beta, c));
            }
            out[at] = r;
            bound[at] = 8 * (k + 4) * ref_eps(p) * (mag(alpha) * size + (beta_zero ? 0 : mag(beta) * mag(c))) +
                        8 * (p == TS_S || p == TS_C ? FLT_MIN : DBL_MIN);
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

void ref_level3(const ref_case *rc, const void *a, const void *c0, ref_cx *out, long double *bound)
{
    int rows = rc->op == REF_TRSM ? rc->m : rc->n;
    for (int j = 0; j < rc->n; j++)
        for (int i = 0; i < rc->ldc; i++) {
            int64_t at = i + (int64_t)j * rc->ldc;
            out[at] = ref_get(rc->prec, c0, at);
            bound[at] = 0;
        }
    if (rows == 0 || rc->n == 0)
        return;
    if (rc->op == REF_TRSM)
        trsm(rc, a, c0, out, bound);
    else
        syrk(rc, a, c0, out, bound);
}
