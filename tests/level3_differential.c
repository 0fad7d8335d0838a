/* Differential test of ?syrk_, ?herk_ and ?trsm_, or (TS_L3_API=cblas) of
 * cblas_?syrk, cblas_?herk and cblas_?trsm in column- and row-major layout.
 *
 * The routines are called through their plain symbols, as a program calls
 * them; tests/level3_differential.sh preloads the shim.  Each result is
 * judged against the reference in C (tests/ref_level3.c: every element
 * within its rounding bound, untouched elements bitwise equal, no NaN where
 * beta = 0 or alpha = 0 says the input is not read) and, for cases without
 * NaN inputs, against the CPU BLAS (OpenBLAS opened privately, ref_blas.c).
 * One TAP line per routine, interface and combination of uplo, trans,
 * side and diag. */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "level3_api.h"
#include "ref_blas.h"
#include "ref_level3.h"
#include "tap.h"

enum { ROW = 101, COL = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113, UPPER = 121, LOWER = 122,
       NON_UNIT = 131, UNIT = 132, LEFT = 141, RIGHT = 142 };
typedef enum { API_F77, API_COL, API_ROW } api;
static const char *const api_names[] = { "", " (column-major)", " (row-major)" };

static const char *routine_name(ts_prec p, ref_op op, api in)
{
    static char name[32];
    snprintf(name, sizeof name, "%s%c%s%s", in == API_F77 ? "" : "cblas_", "sdcz"[p],
             op == REF_SYRK ? "syrk" : op == REF_HERK ? "herk" : "trsm", in == API_F77 ? "_" : "");
    return name;
}

/* The scalars as the routine takes them: the case's precision, real for HERK. */
typedef union {
    float s[2];
    double d[2];
} scalar;

static scalar as_scalar(const ref_case *rc, const double v[2])
{
    scalar x;
    if (rc->prec == TS_S || rc->prec == TS_C)
        x.s[0] = (float)v[0], x.s[1] = (float)v[1];
    else
        x.d[0] = v[0], x.d[1] = v[1];
    return x;
}

static syrk_f *const syrk_under_test[TS_NPREC] = { ssyrk_, dsyrk_, csyrk_, zsyrk_ };
static syrk_f *const herk_under_test[TS_NPREC] = { NULL, NULL, cherk_, zherk_ };
static trsm_f *const trsm_under_test[TS_NPREC] = { strsm_, dtrsm_, ctrsm_, ztrsm_ };

/* The CPU BLAS's own routines, from the privately opened OpenBLAS. */
static syrk_f *syrk_cpu[TS_NPREC], *herk_cpu[TS_NPREC];
static trsm_f *trsm_cpu[TS_NPREC];

static void call_f77(const ref_case *rc, syrk_f *syrk, trsm_f *trsm, const void *a, void *c)
{
    scalar alpha = as_scalar(rc, rc->alpha), beta = as_scalar(rc, rc->beta);
    if (rc->op == REF_TRSM)
        trsm(&rc->side, &rc->uplo, &rc->trans, &rc->diag, &rc->m, &rc->n, &alpha, a, &rc->lda, c, &rc->ldc, 1, 1, 1,
             1);
    else
        syrk(&rc->uplo, &rc->trans, &rc->n, &rc->k, &alpha, a, &rc->lda, &beta, c, &rc->ldc, 1, 1);
}

static int flip_uplo(char u) { return u == 'U' ? LOWER : UPPER; }

/* The column-major case through CBLAS: as itself, or as the row-major call
 * on the same memory (triangle flipped; SYRK's trans flipped, HERK's N and
 * C swapped; TRSM's side flipped and m, n swapped). */
static void call_cblas(const ref_case *rc, api in, const void *a, void *c)
{
    const ts_prec p = rc->prec;
    const int row = in == API_ROW;
    const int layout = row ? ROW : COL;
    const int uplo = row ? flip_uplo(rc->uplo) : rc->uplo == 'U' ? UPPER : LOWER;
    scalar alpha = as_scalar(rc, rc->alpha), beta = as_scalar(rc, rc->beta);
    if (rc->op == REF_TRSM) {
        int side = (rc->side == 'L') != row ? LEFT : RIGHT;
        int trans = rc->trans == 'N' ? NO_TRANS : rc->trans == 'T' ? TRANS : CONJ_TRANS;
        int diag = rc->diag == 'U' ? UNIT : NON_UNIT, m = row ? rc->n : rc->m, n = row ? rc->m : rc->n;
        switch (p) {
        case TS_S: cblas_strsm(layout, side, uplo, trans, diag, m, n, alpha.s[0], a, rc->lda, c, rc->ldc); break;
        case TS_D: cblas_dtrsm(layout, side, uplo, trans, diag, m, n, alpha.d[0], a, rc->lda, c, rc->ldc); break;
        case TS_C: cblas_ctrsm(layout, side, uplo, trans, diag, m, n, &alpha, a, rc->lda, c, rc->ldc); break;
        default: cblas_ztrsm(layout, side, uplo, trans, diag, m, n, &alpha, a, rc->lda, c, rc->ldc); break;
        }
        return;
    }
    int herk = rc->op == REF_HERK;
    int trans = rc->trans == 'N' ? (row ? (herk ? CONJ_TRANS : TRANS) : NO_TRANS)
                                 : (row ? NO_TRANS : herk ? CONJ_TRANS : TRANS);
    if (!row && rc->trans == 'C')
        trans = CONJ_TRANS;
    if (herk) {
        if (p == TS_C)
            cblas_cherk(layout, uplo, trans, rc->n, rc->k, alpha.s[0], a, rc->lda, beta.s[0], c, rc->ldc);
        else
            cblas_zherk(layout, uplo, trans, rc->n, rc->k, alpha.d[0], a, rc->lda, beta.d[0], c, rc->ldc);
        return;
    }
    switch (p) {
    case TS_S: cblas_ssyrk(layout, uplo, trans, rc->n, rc->k, alpha.s[0], a, rc->lda, beta.s[0], c, rc->ldc); break;
    case TS_D: cblas_dsyrk(layout, uplo, trans, rc->n, rc->k, alpha.d[0], a, rc->lda, beta.d[0], c, rc->ldc); break;
    case TS_C: cblas_csyrk(layout, uplo, trans, rc->n, rc->k, &alpha, a, rc->lda, &beta, c, rc->ldc); break;
    default: cblas_zsyrk(layout, uplo, trans, rc->n, rc->k, &alpha, a, rc->lda, &beta, c, rc->ldc); break;
    }
}

static void call_tested(const ref_case *rc, api in, const void *a, void *c)
{
    if (in == API_F77)
        call_f77(rc, rc->op == REF_HERK ? herk_under_test[rc->prec] : syrk_under_test[rc->prec],
                 trsm_under_test[rc->prec], a, c);
    else
        call_cblas(rc, in, a, c);
}

/* A fixed-seed generator: uniform in [-1, 1). */
static uint64_t seed = 88172645463325252ull;
static double uniform(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return (double)(seed >> 11) * 0x1p-52 - 1.0;
}

typedef struct {
    int nan_a, nan_c; /* inputs the case's scalars say are not read */
} inputs;

/* A well-conditioned triangle for TRSM (off-diagonal elements below 1/t,
 * diagonal 1 to 2), NaN in the half the call must not read (and on the
 * diagonal when diag = U); random elsewhere. */
static void fill_a(const ref_case *rc, void *a, int nan)
{
    int rows, cols, t = ref_trsm_order(rc);
    ref_shape_a(rc, &rows, &cols);
    for (int64_t e = 0; e < (int64_t)rc->lda * (cols > 0 ? cols : 1); e++) {
        int i = (int)(e % rc->lda), j = (int)(e / rc->lda);
        ref_cx v = { uniform(), uniform() };
        if (rc->op == REF_TRSM) {
            int unread = (rc->uplo == 'U' ? i > j : i < j) || (i == j && rc->diag == 'U');
            if (unread)
                v.re = v.im = NAN;
            else if (i == j)
                v.re = 1.5 + 0.5 * v.re, v.im *= 0.3;
            else
                v.re /= t, v.im /= t;
        }
        if (nan || i >= rows)
            v.re = v.im = NAN;
        ref_put(rc->prec, a, e, v);
    }
}

static void fill_c(const ref_case *rc, void *c, int nan)
{
    for (int64_t e = 0; e < (int64_t)rc->ldc * (rc->n > 0 ? rc->n : 1); e++) {
        ref_cx v = { uniform(), uniform() };
        if (nan)
            v.re = v.im = NAN;
        ref_put(rc->prec, c, e, v);
    }
}

typedef struct {
    int cases, failed;
    double worst;
    char first[512];
} group;

static void describe(const ref_case *rc, char *buf, size_t len)
{
    snprintf(buf, len, "uplo=%c trans=%c side=%c diag=%c m=%d n=%d k=%d lda=%d ldc=%d alpha=(%g,%g) beta=(%g,%g)",
             rc->uplo, rc->trans, rc->side ? rc->side : '-', rc->diag ? rc->diag : '-', rc->m, rc->n, rc->k, rc->lda,
             rc->ldc, rc->alpha[0], rc->alpha[1], rc->beta[0], rc->beta[1]);
}

static void fail(group *g, const ref_case *rc, const char *why, int64_t at)
{
    if (g->failed++)
        return;
    char what[256];
    describe(rc, what, sizeof what);
    snprintf(g->first, sizeof g->first, "%s: %s at element %lld", what, why, (long long)at);
}

/* Judges got against the reference: bound 0 means bitwise equal. */
static int judge(group *g, const ref_case *rc, const void *got, const ref_cx *want, const long double *bound,
                 long double slack, const char *what)
{
    const ts_prec p = rc->prec;
    const size_t size = ts_elem_size(p);
    for (int64_t e = 0; e < (int64_t)rc->ldc * rc->n; e++) {
        ref_cx v = ref_get(p, got, e);
        if (bound[e] == 0) {
            unsigned char exact[16];
            ref_put(p, exact, 0, want[e]);
            if (memcmp(exact, (const unsigned char *)got + e * size, size)) {
                fail(g, rc, what, e);
                return 0;
            }
            continue;
        }
        long double diff = hypotl(v.re - want[e].re, v.im - want[e].im);
        if (!(diff <= slack * bound[e])) {
            char why[128];
            snprintf(why, sizeof why, "%s: got (%Lg,%Lg), want (%Lg,%Lg)", what, v.re, v.im, want[e].re, want[e].im);
            fail(g, rc, why, e);
            return 0;
        }
        if ((double)(diff / bound[e]) > g->worst)
            g->worst = (double)(diff / bound[e]);
    }
    return 1;
}

static api tested_api;

static void run_case(group *g, const ref_case *rc, inputs in)
{
    const ts_prec p = rc->prec;
    const size_t size = ts_elem_size(p);
    int rows, cols;
    ref_shape_a(rc, &rows, &cols);
    size_t na = (size_t)rc->lda * (size_t)(cols > 0 ? cols : 1), nc = (size_t)rc->ldc * (size_t)(rc->n > 0 ? rc->n : 1);
    void *a = malloc(na * size), *a0 = malloc(na * size), *c = malloc(nc * size), *c0 = malloc(nc * size);
    ref_cx *want = malloc(nc * sizeof *want);
    long double *bound = malloc(nc * sizeof *bound);
    fill_a(rc, a, in.nan_a);
    fill_c(rc, c, in.nan_c);
    memcpy(a0, a, na * size);
    memcpy(c0, c, nc * size);
    ref_level3(rc, a, NULL, c0, want, bound);
    g->cases++;
    call_tested(rc, tested_api, a, c);
    int ok = judge(g, rc, c, want, bound, 1, "against the reference");
    if (ok && memcmp(a, a0, na * size))
        fail(g, rc, "A was written", 0), ok = 0;
    /* Against the CPU BLAS called directly, where its NaN behaviour is not
     * in question: each result may lie within the bound of the exact one. */
    if (ok && !in.nan_a && !in.nan_c) {
        call_f77(rc, rc->op == REF_HERK ? herk_cpu[p] : syrk_cpu[p], trsm_cpu[p], a, c0);
        for (size_t e = 0; e < nc; e++)
            want[e] = ref_get(p, c0, (int64_t)e);
        judge(g, rc, c, want, bound, 2, "against the CPU BLAS");
    }
    free(a), free(a0), free(c), free(c0), free(want), free(bound);
}

/* Sizes: the quick returns, odd small ones, and the tall shapes the
 * shim's classes see (long = TSSHIM_MIN_LONG). */
static const int widths[] = { 1, 3, 8, 16, 33, 64 };
#define COUNT(x) ((int)(sizeof(x) / sizeof((x)[0])))

static ref_case shaped(ref_case base, int d1, int d2, int pad_a, int pad_c)
{
    /* SYRK, HERK: (n, k); TRSM: (m, n). */
    if (base.op == REF_TRSM)
        base.m = d1, base.n = d2, base.k = ref_trsm_order(&base);
    else
        base.n = d1, base.k = d2, base.m = d1;
    int rows, cols;
    ref_shape_a(&base, &rows, &cols);
    base.lda = (rows > 1 ? rows : 1) + pad_a;
    base.ldc = (base.op == REF_TRSM ? (base.m > 1 ? base.m : 1) : (base.n > 1 ? base.n : 1)) + pad_c;
    return base;
}

static void scalars(ref_case *rc, double ar, double ai, double br, double bi)
{
    int cplx = ts_prec_is_complex(rc->prec) && rc->op != REF_HERK;
    rc->alpha[0] = ar, rc->alpha[1] = cplx ? ai : 0;
    rc->beta[0] = br, rc->beta[1] = cplx ? bi : 0;
}

/* Every scalar rule on a shape: general values, alpha = 0 with A NaN
 * (beta general, 1, and 0 with C NaN), beta = 0 with C NaN, beta = 1. */
static void special_scalars(group *g, ref_case rc)
{
    static const double cases[][4] = { { 0.7, -0.45, -1.3, 0.55 }, { 0, 0, -1.3, 0.55 }, { 0, 0, 1, 0 },
                                       { 0, 0, 0, 0 },            { 0.7, -0.45, 0, 0 },   { 1, 0, 0, 0 },
                                       { 0.7, -0.45, 1, 0 },      { -1, 0, 1, 0 } };
    for (int s = 0; s < COUNT(cases); s++) {
        if (rc.op == REF_TRSM && s > 0 && cases[s][2] != 0)
            continue; /* TRSM has no beta */
        scalars(&rc, cases[s][0], cases[s][1], cases[s][2], cases[s][3]);
        int alpha0 = cases[s][0] == 0, beta0 = cases[s][2] == 0;
        run_case(g, &rc, (inputs){ alpha0, rc.op == REF_TRSM ? alpha0 : beta0 });
    }
}

static void run_group(group *g, ref_case base, int long_dim)
{
    static const int zero[][2] = { { 0, 5 }, { 6, 0 }, { 0, 0 } };
    static const int small[][2] = { { 1, 1 }, { 7, 5 }, { 17, 33 }, { 33, 3 }, { 65, 17 } };
    for (int s = 0; s < COUNT(zero); s++)
        special_scalars(g, shaped(base, zero[s][0], zero[s][1], 0, 0));
    for (int s = 0; s < COUNT(small); s++) {
        special_scalars(g, shaped(base, small[s][0], small[s][1], 2, 1));
        ref_case rc = shaped(base, small[s][0], small[s][1], 0, 0);
        scalars(&rc, 0.7, -0.45, -1.3, 0.55);
        run_case(g, &rc, (inputs){ 0, 0 });
    }
    /* Tall: SYRK n = w, k long (TSMTTSM) and n long, k = w; TRSM B long
     * one way, the triangle w. */
    for (int w = 0; w < COUNT(widths); w++)
        for (int mirror = 0; mirror < 2; mirror++) {
            int d1 = mirror ? long_dim : widths[w], d2 = mirror ? widths[w] : long_dim;
            if (base.op == REF_TRSM && (base.side == 'L') != !mirror)
                continue; /* the triangle is the short side */
            if (base.op != REF_TRSM && mirror && w > 2)
                continue; /* n long: a few widths, C is long x long */
            ref_case rc = shaped(base, d1, d2, 3, 5);
            scalars(&rc, 0.7, -0.45, -1.3, 0.55);
            run_case(g, &rc, (inputs){ 0, 0 });
            scalars(&rc, 0.7, -0.45, 0, 0);
            run_case(g, &rc, (inputs){ 0, base.op != REF_TRSM });
        }
}

static int long_dim_from_env(void)
{
    const char *s = getenv("TSSHIM_MIN_LONG");
    long v = s && *s ? strtol(s, NULL, 10) : 256;
    return v >= 1 && v <= 4096 ? (int)v : 256;
}

static void *cpu_symbol(const char *name)
{
    char err[256];
    void *fn = ref_blas_symbol(name, err, sizeof err);
    if (!fn)
        tap_diag("%s", err);
    return fn;
}

/* The provider of each symbol under test must be TS_EXPECT_L3_FROM (the
 * shim) when set, so that a run where the preload failed cannot pass. */
static void check_provider(void)
{
    const char *expect = getenv("TS_EXPECT_L3_FROM");
    int all = 1;
    if (!expect) {
        tap_skip("TS_EXPECT_L3_FROM unset: the provider of the routines under test is not checked");
        return;
    }
    for (int p = 0; p < TS_NPREC; p++)
        for (int op = REF_SYRK; op <= REF_TRSM; op++)
            if (op != REF_HERK || ts_prec_is_complex((ts_prec)p))
                all &= ref_resolves_into(routine_name((ts_prec)p, (ref_op)op, tested_api), expect);
    tap_ok(all, "the routines under test resolve into %s", expect);
}

int main(void)
{
    char err[512] = "";
    int rc = ref_blas_open(err, sizeof err);
    if (!tap_ok(rc == 0, "reference OpenBLAS opened: %s", rc == 0 ? ref_blas_path() : err)) {
        printf("Bail out! no reference BLAS\n");
        return 1;
    }
    const char *api_env = getenv("TS_L3_API");
    const int cblas = api_env && !strcmp(api_env, "cblas");
    const char *only = getenv("TS_L3_PRECISIONS");
    const int long_dim = long_dim_from_env();
    int loaded = 1;
    for (int p = 0; p < TS_NPREC; p++) {
        char name[16];
        snprintf(name, sizeof name, "%csyrk_", "sdcz"[p]);
        loaded &= (syrk_cpu[p] = (syrk_f *)cpu_symbol(name)) != NULL;
        snprintf(name, sizeof name, "%ctrsm_", "sdcz"[p]);
        loaded &= (trsm_cpu[p] = (trsm_f *)cpu_symbol(name)) != NULL;
        if (ts_prec_is_complex((ts_prec)p)) {
            snprintf(name, sizeof name, "%cherk_", "sdcz"[p]);
            loaded &= (herk_cpu[p] = (syrk_f *)cpu_symbol(name)) != NULL;
        }
    }
    if (!tap_ok(loaded, "the CPU BLAS's SYRK, HERK and TRSM resolved inside %s", ref_blas_path())) {
        printf("Bail out! the reference lacks a routine\n");
        return 1;
    }
    tested_api = cblas ? API_COL : API_F77;
    check_provider();
    tap_diag("long dimension of the tall shapes: %d", long_dim);
    for (int layout = 0; layout < (cblas ? 2 : 1); layout++) {
        tested_api = !cblas ? API_F77 : layout ? API_ROW : API_COL;
        for (int p = 0; p < TS_NPREC; p++) {
            if (only && !strchr(only, "sdcz"[p]))
                continue;
            for (int op = REF_SYRK; op <= REF_TRSM; op++) {
                int cplx = ts_prec_is_complex((ts_prec)p);
                if (op == REF_HERK && !cplx)
                    continue;
                const char *trans = op == REF_TRSM ? "NTC" : op == REF_HERK ? "NC" : cplx ? "NT" : "NTC";
                const char *sides = op == REF_TRSM ? "LR" : "-", *diags = op == REF_TRSM ? "NU" : "-";
                for (const char *sd = sides; *sd; sd++)
                    for (const char *u = "UL"; *u; u++)
                        for (const char *t = trans; *t; t++)
                            for (const char *d = diags; *d; d++) {
                                ref_case base = { .prec = (ts_prec)p, .op = (ref_op)op, .uplo = *u, .trans = *t,
                                                  .side = op == REF_TRSM ? *sd : 0, .diag = op == REF_TRSM ? *d : 0 };
                                group g = { 0 };
                                run_group(&g, base, long_dim);
                                char letters[32];
                                if (op == REF_TRSM)
                                    snprintf(letters, sizeof letters, "side=%c uplo=%c transa=%c diag=%c", *sd, *u,
                                             *t, *d);
                                else
                                    snprintf(letters, sizeof letters, "uplo=%c trans=%c", *u, *t);
                                tap_ok(g.failed == 0, "%s%s %s: %d cases, worst ratio %.3g",
                                       routine_name((ts_prec)p, (ref_op)op, tested_api), api_names[tested_api],
                                       letters, g.cases, g.worst);
                                if (g.failed)
                                    tap_diag("%d of %d cases failed; first: %s", g.failed, g.cases, g.first);
                            }
            }
        }
    }
    return tap_done();
}
