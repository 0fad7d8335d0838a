/* ts_host_update_gram (src/cpu/host_scale.c): the host half of the Gram
 * route, which turns the Gram matrix G = op(A) op(B)^T (^H), computed by
 * the GPU with alpha 1 and beta 0, into the triangle that SYRK, HERK, SYR2K
 * and HER2K must leave in C.  The descriptor is built as the library builds
 * it (ts_call_init, HERK's and HER2K's real scalars, ts_validate,
 * ts_scalar_flags), G is computed here from the descriptor's GEMM
 * transposes, and C is compared with the long double reference
 * (tests/ref_level3.c). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/scalars.h"
#include "cpu/host_scale.h"
#include "entry/gemm_entry.h"
#include "route/validate.h"
#include "ref_level3.h"
#include "tap.h"

/* Small but not square (n != k), every leading dimension above its
 * minimum so that a stride mix-up shows. */
enum { N = 5, K = 7, PAD = 3, LDG = N + 2, MAXLD = K + PAD + 1 };

static const char prec_letter[TS_NPREC] = { 's', 'd', 'c', 'z' };

static ts_routine routine_of(ref_op op, ts_prec p)
{
    static const ts_routine syrk[] = { TS_R_ssyrk_, TS_R_dsyrk_, TS_R_csyrk_, TS_R_zsyrk_ };
    static const ts_routine syr2k[] = { TS_R_ssyr2k_, TS_R_dsyr2k_, TS_R_csyr2k_, TS_R_zsyr2k_ };
    switch (op) {
    case REF_SYRK: return syrk[p];
    case REF_SYR2K: return syr2k[p];
    case REF_HERK: return p == TS_C ? TS_R_cherk_ : TS_R_zherk_;
    default: return p == TS_C ? TS_R_cher2k_ : TS_R_zher2k_;
    }
}

static const char *op_name(ref_op op)
{
    return op == REF_SYRK ? "syrk" : op == REF_HERK ? "herk" : op == REF_SYR2K ? "syr2k" : "her2k";
}

/* A scalar as the program passes it, in precision p: real ones drop the
 * imaginary part. */
static void put_scalar(ts_prec p, const double v[2], void *out)
{
    ref_put(p, out, 0, (ref_cx){ v[0], ts_prec_is_complex(p) ? v[1] : 0 });
}

/* A copy of herk_scalars in src/entry/level3_entry.c (a column-major call,
 * alpha not conjugated): HERK's real alpha and beta, and HER2K's real beta,
 * become complex scalars in the descriptor's herk_scalars, since the core
 * reads scalars of the call's precision. */
static void real_scalar(ts_call *c, int i, const void *in)
{
    if (c->prec == TS_C)
        c->herk_scalars[i].c[0] = *(const float *)in, c->herk_scalars[i].c[1] = 0.0f;
    else
        c->herk_scalars[i].z[0] = *(const double *)in, c->herk_scalars[i].z[1] = 0.0;
}

static void library_scalars(ts_call *c, const void *alpha, const void *beta)
{
    if (ts_routine_scalar_prec(c->routine) != c->prec) {
        real_scalar(c, 0, alpha);
        c->alpha = &c->herk_scalars[0];
    }
    if (ts_routine_beta_prec(c->routine) != c->prec) {
        real_scalar(c, 1, beta);
        c->beta = &c->herk_scalars[1];
    }
}

/* Deterministic values in [-1, 1). */
static uint32_t seed = 12345;
static double next_value(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / (double)(1u << 23) - 1.0;
}

static void fill_random(ts_prec p, void *x, int64_t count)
{
    for (int64_t e = 0; e < count; e++) {
        double re = next_value(), im = next_value();
        ref_put(p, x, e, (ref_cx){ re, ts_prec_is_complex(p) ? im : 0 });
    }
}

static void fill_nan(ts_prec p, void *x, int64_t count)
{
    for (int64_t e = 0; e < count; e++)
        ref_put(p, x, e, (ref_cx){ NAN, ts_prec_is_complex(p) ? NAN : 0 });
}

/* Element (i, l) of a GEMM operand op(X) with transpose t, X stored with
 * leading dimension ld. */
static ref_cx gemm_op(ts_prec p, char t, const void *x, int64_t ld, int i, int l)
{
    ref_cx v = ref_get(p, x, t == 'N' ? i + (int64_t)l * ld : l + (int64_t)i * ld);
    if (t == 'C')
        v.im = -v.im;
    return v;
}

/* G = op(A) op(B) with the descriptor's GEMM transposes (validation made
 * them from trans), alpha 1 and beta 0, rounded to the call's precision as
 * the GPU delivers it; G's rows past n are NaN, which the update must not
 * read. */
static void gram_matrix(const ts_call *c, void *g)
{
    const ts_prec p = c->prec;
    fill_nan(p, g, (int64_t)LDG * N);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            long double re = 0, im = 0;
            for (int l = 0; l < K; l++) {
                ref_cx x = gemm_op(p, c->transa, c->a, c->lda, i, l);
                ref_cx y = gemm_op(p, c->transb, c->b, c->ldb, l, j);
                re += x.re * y.re - x.im * y.im;
                im += x.re * y.im + x.im * y.re;
            }
            ref_put(p, g, i + (int64_t)j * LDG, (ref_cx){ re, im });
        }
}

/* C against the reference: the triangle within the rounding bound, no NaN,
 * a Hermitian diagonal exactly real; every other element (the other
 * triangle, the rows past n) bit for bit as it was.  why: the first
 * failure. */
static int check(const ref_case *rc, const void *c0, const void *got, const ref_cx *want, const long double *bound,
                 char *why, size_t why_len)
{
    const ts_prec p = rc->prec;
    const size_t size = ts_elem_size(p);
    const int her = rc->op == REF_HERK || rc->op == REF_HER2K;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < rc->ldc; i++) {
            int64_t e = i + (int64_t)j * rc->ldc;
            int written = i < N && (rc->uplo == 'U' ? i <= j : i >= j);
            if (!written) {
                if (memcmp((const char *)got + e * size, (const char *)c0 + e * size, size)) {
                    snprintf(why, why_len, "C(%d,%d) outside the triangle changed", i, j);
                    return 0;
                }
                continue;
            }
            ref_cx v = ref_get(p, got, e);
            long double diff = hypotl(v.re - want[e].re, v.im - want[e].im);
            if (!(diff <= bound[e]) || (her && i == j && v.im != 0)) {
                snprintf(why, why_len, "C(%d,%d) = (%Lg,%Lg), want (%Lg,%Lg) within %Lg", i, j, v.re, v.im, want[e].re,
                         want[e].im, bound[e]);
                return 0;
            }
        }
    return 1;
}

/* One call: uplo, trans, alpha and beta as the program passes them (beta
 * 0: C's triangle starts as NaN, which must not be read).  Returns 1 when
 * C is right, else prints why. */
static int run_case(ref_op op, ts_prec p, char uplo, char trans, const double alpha[2], const double beta[2])
{
    const ts_routine r = routine_of(op, p);
    const int two = op == REF_SYR2K || op == REF_HER2K;
    const int beta_zero = beta[0] == 0 && beta[1] == 0;
    ref_case rc = { .prec = p, .op = op, .uplo = uplo, .trans = trans, .m = N, .n = N, .k = K };
    int rows, cols;
    ref_shape_a(&rc, &rows, &cols);
    rc.lda = rows + PAD;
    rc.ldb = rows + PAD + 1;
    rc.ldc = N + PAD;

    /* Operands; the padding rows of A and B are NaN, read by neither G's
     * loops nor the reference. */
    double a[2 * MAXLD * MAXLD], b[2 * MAXLD * MAXLD], c0[2 * MAXLD * N], cm[2 * MAXLD * N], g[2 * LDG * N];
    fill_nan(p, a, (int64_t)rc.lda * cols);
    fill_nan(p, b, (int64_t)rc.ldb * cols);
    for (int j = 0; j < cols; j++) {
        fill_random(p, (char *)a + (size_t)j * rc.lda * ts_elem_size(p), rows);
        fill_random(p, (char *)b + (size_t)j * rc.ldb * ts_elem_size(p), rows);
    }
    /* C: random, NaN in the rows past n, and in the triangle when beta = 0. */
    fill_random(p, c0, (int64_t)rc.ldc * N);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < rc.ldc; i++)
            if (i >= N || (beta_zero && (uplo == 'U' ? i <= j : i >= j)))
                fill_nan(p, (char *)c0 + ((size_t)i + (size_t)j * rc.ldc) * ts_elem_size(p), 1);
    memcpy(cm, c0, (size_t)rc.ldc * N * ts_elem_size(p));

    /* The scalars as passed: HERK's real, HER2K's beta real. */
    double alpha_arg[2], beta_arg[2];
    const ts_prec alpha_prec = ts_routine_scalar_prec(r), beta_prec = ts_routine_beta_prec(r);
    put_scalar(alpha_prec, alpha, alpha_arg);
    put_scalar(beta_prec, beta, beta_arg);
    rc.alpha[0] = alpha[0], rc.alpha[1] = ts_prec_is_complex(alpha_prec) ? alpha[1] : 0;
    rc.beta[0] = beta[0], rc.beta[1] = ts_prec_is_complex(beta_prec) ? beta[1] : 0;

    /* The descriptor as run_syrk (src/entry/level3_entry.c) and the route's
     * screen (src/route/route.c) make it; SYRK's and HERK's B is A. */
    ts_call c;
    ts_call_init(&c, r, trans, trans, N, N, K, alpha_arg, a, rc.lda, two ? (const void *)b : a, two ? rc.ldb : rc.lda,
                 beta_arg, cm, rc.ldc);
    c.uplo = uplo;
    library_scalars(&c, alpha_arg, beta_arg);
    int info = ts_validate(&c);
    if (info) {
        tap_diag("%c%s uplo %c trans %c: ts_validate says %d", prec_letter[p], op_name(op), uplo, trans, info);
        return 0;
    }
    ts_scalar_flags(&c);

    gram_matrix(&c, g);
    ts_host_update_gram(&c, g, LDG);

    ref_cx want[MAXLD * N];
    long double bound[MAXLD * N];
    ref_level3(&rc, a, two ? b : NULL, c0, want, bound);
    char why[160];
    if (!check(&rc, c0, cm, want, bound, why, sizeof why)) {
        tap_diag("%c%s uplo %c trans %c alpha (%g,%g) beta (%g,%g): %s", prec_letter[p], op_name(op), uplo, trans,
                 rc.alpha[0], rc.alpha[1], rc.beta[0], rc.beta[1], why);
        return 0;
    }
    return 1;
}

/* Both triangles and every trans the routine takes (real SYRK and SYR2K
 * also C, which means T), for each beta in the list; alpha (0.75, -0.5),
 * its real part where the routine's alpha is real (HERK, real routines). */
static void group(ref_op op, ts_prec p, const double (*betas)[2], int nbeta, const char *what)
{
    static const double alpha[2] = { 0.75, -0.5 };
    const ts_routine r = routine_of(op, p);
    const int her = op == REF_HERK || op == REF_HER2K;
    const char *transes = her ? "NC" : ts_prec_is_complex(p) ? "NT" : "NTC";
    int ok = 1;
    for (const char *u = "UL"; *u; u++)
        for (const char *t = transes; *t; t++)
            for (int b = 0; b < nbeta; b++)
                ok &= run_case(op, p, *u, *t, alpha, betas[b]);
    tap_ok(ok, "%c%s, uplo U and L, trans %s, alpha %s, %s%s%s", prec_letter[p], op_name(op), transes,
           ts_prec_is_complex(ts_routine_scalar_prec(r)) ? "(0.75,-0.5)" : "0.75",
           nbeta == 1 ? "beta 0" : ts_prec_is_complex(ts_routine_beta_prec(r)) ? "beta (0.5,0.25) and 1" : "beta 0.5 and 1",
           what, her ? ", the diagonal exactly real" : "");
}

/* SYMM's and HEMM's full matrix from the triangle (the GEMM route of
 * src/dispatch/level3_gpu.c): Z, order 4, lda 6, both triangles; the
 * element (i, j) is i + 10 j + 100 i j sqrt(-1), so a wrong mirror, a
 * missing conjugate or a diagonal left complex shows. */
static void check_full_symmetric(void)
{
    enum { K = 4, LDA = 6 };
    double a[2 * LDA * K], full[2 * K * K];
    int ok = 1;
    for (int hemm = 0; hemm < 2; hemm++)
        for (int u = 0; u < 2; u++) {
            char uplo = u ? 'U' : 'L';
            for (int j = 0; j < K; j++)
                for (int i = 0; i < LDA; i++) {
                    int stored = i < K && (u ? i <= j : i >= j);
                    a[2 * (i + j * LDA)] = stored ? i + 10.0 * j : NAN;
                    a[2 * (i + j * LDA) + 1] = stored ? 100.0 * i * j + 1 : NAN;
                }
            ts_call c = { .routine = hemm ? TS_R_zhemm_ : TS_R_zsymm_,
                          .prec = TS_Z, .uplo = uplo, .k = K, .a = a, .lda = LDA };
            ts_host_full_symmetric(&c, full);
            for (int j = 0; j < K; j++)
                for (int i = 0; i < K; i++) {
                    int stored = u ? i <= j : i >= j, si = stored ? i : j, sj = stored ? j : i;
                    double re = si + 10.0 * sj, im = 100.0 * si * sj + 1;
                    if (hemm)
                        im = i == j ? 0 : stored ? im : -im;
                    ok &= full[2 * (i + j * K)] == re && full[2 * (i + j * K) + 1] == im;
                }
        }
    tap_ok(ok, "SYMM's and HEMM's full matrix: the other triangle mirrored (HEMM: conjugated, diagonal real), "
               "both triangles, lda > order");
}

int main(void)
{
    static const double betas[][2] = { { 0.5, 0.25 }, { 1.0, 0.0 } };
    static const double zero[][2] = { { 0.0, 0.0 } };
    static const struct {
        ref_op op;
        ts_prec p;
    } groups[] = {
        { REF_SYR2K, TS_S }, { REF_SYR2K, TS_D }, { REF_SYR2K, TS_C }, { REF_SYR2K, TS_Z },
        { REF_HER2K, TS_C }, { REF_HER2K, TS_Z },
        { REF_SYRK, TS_S },  { REF_SYRK, TS_D },  { REF_SYRK, TS_C },  { REF_SYRK, TS_Z },
        { REF_HERK, TS_C },  { REF_HERK, TS_Z },
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        group(groups[i].op, groups[i].p, betas, 2,
              ": the triangle within rounding of the reference, the other triangle and the rows past n untouched");
        group(groups[i].op, groups[i].p, zero, 1,
              " (C's triangle NaN): C not read, the triangle within rounding of the reference, the rest untouched");
    }
    check_full_symmetric();
    return tap_done();
}
