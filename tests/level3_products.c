/* Differential test of ?symm_, ?hemm_, ?trmm_, ?syr2k_ and ?her2k_, or
 * (TS_L3_API=cblas) of their CBLAS versions in column- and row-major layout,
 * against OpenBLAS called directly (opened privately, tests/ref_blas.c) and
 * the reference in C (tests/ref_level3.c).
 *
 * The routines under test are found by name in the process (dlsym
 * RTLD_DEFAULT: the shim's when tests/level3_products.sh preloads it), the
 * CPU BLAS's in the privately opened OpenBLAS.  A call the shim forwards
 * (alpha != 0, no dimension 0) must give OpenBLAS's result on copies of the
 * same operands bit for bit; where the GPU computes it (TSSHIM_MODE=gpu),
 * and where the shim answers the call itself (alpha = 0, k = 0, quick
 * returns: C = beta C, TRMM's B = 0, while the routine under test gets A and
 * B full of NaN, which it must not read), the reference's within its
 * rounding bound.  NaN in C with beta = 0 must not show; NaN in the half of
 * A the call does not reference, in the padding of every operand (leading
 * dimensions padded) and in the triangle of C that SYR2K and HER2K leave
 * alone must stay where it is, as every element the call does not write.
 * One TAP line per routine, interface and combination of side, uplo, trans
 * and diag. */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_blas.h"
#include "ref_level3.h"
#include "tap.h"

enum { ROW = 101, COL = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113, UPPER = 121, LOWER = 122,
       NON_UNIT = 131, UNIT = 132, LEFT = 141, RIGHT = 142 };
typedef enum { API_F77, API_COL, API_ROW } api;
typedef enum { OP_SYMM, OP_HEMM, OP_TRMM, OP_SYR2K, OP_HER2K, OP_COUNT } op_kind;
static const char *const op_names[] = { "symm", "hemm", "trmm", "syr2k", "her2k" };
static const char *const api_names[] = { "", " (column-major)", " (row-major)" };

typedef void symm_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void trmm_f(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                    const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
/* CBLAS, scalars of type S (by value) or by address. */
#define CSYMM(S) void (*)(int, int, int, int, int, S, const void *, int, const void *, int, S, void *, int)
#define CTRMM(S) void (*)(int, int, int, int, int, int, int, S, const void *, int, void *, int)
#define CHER2K(R) void (*)(int, int, int, int, int, const void *, const void *, int, const void *, int, R, void *, int)

/* One call, described column-major: side, uplo, trans, diag letters; C (or
 * TRMM's B) m x n (SYR2K: n x n, inner order k). */
typedef struct {
    ts_prec prec;
    op_kind op;
    char side, uplo, trans, diag;
    int m, n, k, lda, ldb, ldc;
    double alpha[2], beta[2];
} tcase;

static const char *routine_name(const tcase *t, api in)
{
    static char name[32];
    snprintf(name, sizeof name, "%s%c%s%s", in == API_F77 ? "" : "cblas_", "sdcz"[t->prec], op_names[t->op],
             in == API_F77 ? "_" : "");
    return name;
}

/* Rows and columns of A and B as stored, of C (B for TRMM). */
static int a_order(const tcase *t) { return t->side == 'L' ? t->m : t->n; }
static void a_shape(const tcase *t, int *rows, int *cols)
{
    if (t->op == OP_SYR2K || t->op == OP_HER2K)
        *rows = t->trans == 'N' ? t->n : t->k, *cols = t->trans == 'N' ? t->k : t->n;
    else
        *rows = *cols = a_order(t);
}
static void b_shape(const tcase *t, int *rows, int *cols)
{
    if (t->op == OP_SYR2K || t->op == OP_HER2K)
        a_shape(t, rows, cols);
    else
        *rows = t->m, *cols = t->n;
}
static int c_rows(const tcase *t) { return t->op == OP_SYR2K || t->op == OP_HER2K ? t->n : t->m; }

/* Whether element (i, j) of A is one the call may read. */
static int a_read(const tcase *t, int i, int j)
{
    if (t->op == OP_SYR2K || t->op == OP_HER2K)
        return 1;
    if (t->uplo == 'U' ? i > j : i < j)
        return 0;
    return !(t->op == OP_TRMM && t->diag == 'U' && i == j);
}

/* Whether element (i, j) of C is one the call may write (SYR2K, HER2K: the triangle). */
static int c_written(const tcase *t, int i, int j)
{
    if (t->op != OP_SYR2K && t->op != OP_HER2K)
        return 1;
    return t->uplo == 'U' ? i <= j : i >= j;
}

static uint64_t seed = 88172645463325252ull;
static double uniform(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return (double)(seed >> 11) * 0x1p-52 - 1.0;
}

static const ref_cx nan_cx = { NAN, NAN };

/* A matrix of rows x cols stored with leading dimension ld: random where
 * readable (all NaN when nan_all), NaN elsewhere and in the padding. */
static void fill(const tcase *t, void *x, int ld, int rows, int cols, int is_a, int nan_all)
{
    for (int64_t e = 0; e < (int64_t)ld * (cols > 0 ? cols : 1); e++) {
        int i = (int)(e % ld), j = (int)(e / ld);
        ref_cx v = { uniform(), uniform() };
        if (nan_all || i >= rows || j >= cols || (is_a && !a_read(t, i, j)))
            v = nan_cx;
        ref_put(t->prec, x, e, v);
    }
}

/* C (TRMM's B): random, or NaN where the call writes (nan_c); its padding
 * and the triangle SYR2K leaves alone a fixed value. */
static void fill_c(const tcase *t, void *c, int nan_c)
{
    int rows = c_rows(t);
    for (int64_t e = 0; e < (int64_t)t->ldc * (t->n > 0 ? t->n : 1); e++) {
        int i = (int)(e % t->ldc), j = (int)(e / t->ldc);
        ref_cx v = { uniform(), uniform() };
        if (i >= rows || j >= t->n || !c_written(t, i, j))
            v.re = 7.25, v.im = -3.5;
        else if (nan_c)
            v = nan_cx;
        ref_put(t->prec, c, e, v);
    }
}

typedef union {
    float s[2];
    double d[2];
} scalar;

static scalar as_scalar(ts_prec p, const double v[2])
{
    scalar x;
    if (p == TS_S || p == TS_C)
        x.s[0] = (float)v[0], x.s[1] = (float)v[1];
    else
        x.d[0] = v[0], x.d[1] = v[1];
    return x;
}

static int cblas_letter(char v, char a, int ia, int ib) { return v == a ? ia : ib; }

/* Calls fn, the routine of t's name in interface in, on a (A), b (B) and c
 * (C, or TRMM's B).  A row-major call is the column-major case on the same
 * memory: side and triangle flipped, m and n swapped, SYR2K's trans
 * flipped (HER2K's N and C). */
static void call(void *fn, const tcase *t, api in, const void *a, const void *b, void *c)
{
    const ts_prec p = t->prec;
    scalar alpha = as_scalar(p, t->alpha), beta = as_scalar(p, t->beta);
    const int single = p == TS_S || p == TS_C, real = !ts_prec_is_complex(p);
    if (in == API_F77) {
        if (t->op == OP_TRMM)
            ((trmm_f *)fn)(&t->side, &t->uplo, &t->trans, &t->diag, &t->m, &t->n, &alpha, a, &t->lda, c, &t->ldc, 1,
                           1, 1, 1);
        else if (t->op == OP_SYMM || t->op == OP_HEMM)
            ((symm_f *)fn)(&t->side, &t->uplo, &t->m, &t->n, &alpha, a, &t->lda, b, &t->ldb, &beta, c, &t->ldc, 1, 1);
        else
            ((symm_f *)fn)(&t->uplo, &t->trans, &t->n, &t->k, &alpha, a, &t->lda, b, &t->ldb, &beta, c, &t->ldc, 1, 1);
        return;
    }
    const int row = in == API_ROW, layout = row ? ROW : COL;
    const int uplo = (t->uplo == 'U') != row ? UPPER : LOWER, side = (t->side == 'L') != row ? LEFT : RIGHT;
    const int m = row ? t->n : t->m, n = row ? t->m : t->n;
    if (t->op == OP_TRMM) {
        int trans = t->trans == 'N' ? NO_TRANS : t->trans == 'T' ? TRANS : CONJ_TRANS;
        int diag = cblas_letter(t->diag, 'U', UNIT, NON_UNIT);
        if (real && single)
            ((CTRMM(float))fn)(layout, side, uplo, trans, diag, m, n, alpha.s[0], a, t->lda, c, t->ldc);
        else if (real)
            ((CTRMM(double))fn)(layout, side, uplo, trans, diag, m, n, alpha.d[0], a, t->lda, c, t->ldc);
        else
            ((CTRMM(const void *))fn)(layout, side, uplo, trans, diag, m, n, &alpha, a, t->lda, c, t->ldc);
        return;
    }
    if (t->op == OP_SYMM || t->op == OP_HEMM) {
        if (real && single)
            ((CSYMM(float))fn)(layout, side, uplo, m, n, alpha.s[0], a, t->lda, b, t->ldb, beta.s[0], c, t->ldc);
        else if (real)
            ((CSYMM(double))fn)(layout, side, uplo, m, n, alpha.d[0], a, t->lda, b, t->ldb, beta.d[0], c, t->ldc);
        else
            ((CSYMM(const void *))fn)(layout, side, uplo, m, n, &alpha, a, t->lda, b, t->ldb, &beta, c, t->ldc);
        return;
    }
    const int her = t->op == OP_HER2K;
    int trans = t->trans == 'N' ? NO_TRANS : her ? CONJ_TRANS : TRANS;
    if (t->trans == 'C' && !her && !row)
        trans = CONJ_TRANS; /* real SYR2K's C, as given */
    if (row)
        trans = t->trans == 'N' ? (her ? CONJ_TRANS : TRANS) : NO_TRANS;
    if (her && single)
        ((CHER2K(float))fn)(layout, uplo, trans, t->n, t->k, &alpha, a, t->lda, b, t->ldb, beta.s[0], c, t->ldc);
    else if (her)
        ((CHER2K(double))fn)(layout, uplo, trans, t->n, t->k, &alpha, a, t->lda, b, t->ldb, beta.d[0], c, t->ldc);
    else if (real && single)
        ((CSYMM(float))fn)(layout, uplo, trans, t->n, t->k, alpha.s[0], a, t->lda, b, t->ldb, beta.s[0], c, t->ldc);
    else if (real)
        ((CSYMM(double))fn)(layout, uplo, trans, t->n, t->k, alpha.d[0], a, t->lda, b, t->ldb, beta.d[0], c, t->ldc);
    else
        ((CSYMM(const void *))fn)(layout, uplo, trans, t->n, t->k, &alpha, a, t->lda, b, t->ldb, &beta, c, t->ldc);
}

typedef struct {
    int cases, failed;
    char first[512];
} group;

static void fail(group *g, const tcase *t, const char *why, int64_t at)
{
    if (g->failed++)
        return;
    snprintf(g->first, sizeof g->first,
             "%s at element %lld: side=%c uplo=%c trans=%c diag=%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d "
             "alpha=(%g,%g) beta=(%g,%g)",
             why, (long long)at, t->side, t->uplo, t->trans, t->diag, t->m, t->n, t->k, t->lda, t->ldb, t->ldc,
             t->alpha[0], t->alpha[1], t->beta[0], t->beta[1]);
}

static int same_bits(ts_prec p, const void *x, const void *y, int64_t e)
{
    size_t s = ts_elem_size(p);
    return !memcmp((const char *)x + e * s, (const char *)y + e * s, s);
}

/* Element e of x within bound of want, or bit for bit want where the bound
 * is 0 (an element the call must leave as it was). */
static int within(ts_prec p, const void *x, int64_t e, ref_cx want, long double bound)
{
    if (bound == 0) {
        unsigned char exact[16];
        ref_put(p, exact, 0, want);
        return !memcmp(exact, (const char *)x + e * (int64_t)ts_elem_size(p), ts_elem_size(p));
    }
    ref_cx got = ref_get(p, x, e);
    return hypotl(got.re - want.re, got.im - want.im) <= bound;
}

/* The case for the reference in C, as the column-major call: a row-major
 * HER2K's alpha is conjugated there (src/entry/level3_entry.c says why). */
static ref_case as_ref(const tcase *t, api in)
{
    static const ref_op ops[OP_COUNT] = { REF_SYMM, REF_HEMM, REF_TRMM, REF_SYR2K, REF_HER2K };
    ref_case rc = { .prec = t->prec, .op = ops[t->op], .uplo = t->uplo, .trans = t->trans, .side = t->side,
                    .diag = t->diag, .m = t->m, .n = t->n, .k = t->k, .lda = t->lda, .ldb = t->ldb,
                    .ldc = t->ldc };
    memcpy(rc.alpha, t->alpha, sizeof rc.alpha);
    memcpy(rc.beta, t->beta, sizeof rc.beta);
    if (in == API_ROW && t->op == OP_HER2K)
        rc.alpha[1] = -rc.alpha[1];
    return rc;
}

/* TSSHIM_MODE=gpu: the GPU computes the calls the shim would forward. */
static int gpu_mode;

/* One case: the routine under test on operands a_t and b_t (NaN when the
 * call must not read them), the reference on a and b. */
static void run_case(group *g, const tcase *t, api in, void *tested, void *reference)
{
    int ar, ac, br, bc;
    a_shape(t, &ar, &ac);
    b_shape(t, &br, &bc);
    const int reads_ab = !(t->alpha[0] == 0.0 && t->alpha[1] == 0.0) &&
                         (t->op == OP_SYR2K || t->op == OP_HER2K ? t->k > 0 : 1);
    const int forwarded = reads_ab && t->m > 0 && t->n > 0;
    const int beta_zero = t->beta[0] == 0.0 && (t->beta[1] == 0.0 || t->op == OP_HER2K);
    const size_t es = ts_elem_size(t->prec);
    size_t na = (size_t)t->lda * (size_t)(ac > 0 ? ac : 1), nb = (size_t)t->ldb * (size_t)(bc > 0 ? bc : 1);
    size_t nc = (size_t)t->ldc * (size_t)(t->n > 0 ? t->n : 1);
    char *a = malloc(na * es), *b = malloc(nb * es), *at = malloc(na * es), *bt = malloc(nb * es);
    char *c_ref = malloc(nc * es), *c_got = malloc(nc * es);
    ref_cx *want = malloc(nc * sizeof *want);
    long double *bound = malloc(nc * sizeof *bound);
    fill(t, a, t->lda, ar, ac, t->op != OP_SYR2K && t->op != OP_HER2K, 0);
    fill(t, b, t->ldb, br, bc, 0, 0);
    if (t->op == OP_TRMM) /* B is C: TRMM reads it only when alpha != 0 */
        fill_c(t, c_ref, !reads_ab);
    else
        fill_c(t, c_ref, beta_zero);
    memcpy(c_got, c_ref, nc * es);
    if (reads_ab)
        memcpy(at, a, na * es), memcpy(bt, b, nb * es);
    else
        fill(t, at, t->lda, ar, ac, 0, 1), fill(t, bt, t->ldb, br, bc, 0, 1);
    /* The reference covers the ldc x n matrix; with n = 0, C's one column
     * of storage must stay as it was. */
    for (size_t e = 0; e < nc; e++)
        want[e] = ref_get(t->prec, c_ref, (int64_t)e), bound[e] = 0;
    const ref_case rc = as_ref(t, in);
    ref_level3(&rc, a, b, c_ref, want, bound);
    call(tested, t, in, at, bt, c_got);
    const int exact = forwarded && !gpu_mode;
    if (exact)
        call(reference, t, in, a, b, c_ref);
    g->cases++;
    for (int64_t e = 0; e < (int64_t)nc; e++) {
        int i = (int)(e % t->ldc), j = (int)(e / t->ldc);
        ref_cx got = ref_get(t->prec, c_got, e);
        int inside = i < c_rows(t) && j < t->n && c_written(t, i, j);
        if (inside && (isnan(got.re) || isnan(got.im))) {
            fail(g, t, "NaN in the result (an input the call must not read)", e);
            break;
        }
        if (exact ? !same_bits(t->prec, c_got, c_ref, e) : !within(t->prec, c_got, e, want[e], bound[e])) {
            fail(g, t, exact ? "not OpenBLAS's result bit for bit" : "not the reference's within rounding", e);
            break;
        }
    }
    free(a), free(b), free(at), free(bt), free(c_ref), free(c_got), free(want), free(bound);
}

/* Shapes: m n k (SYR2K: n k), each with tight and padded leading dimensions. */
static const int shapes[][3] = { { 5, 3, 4 }, { 1, 7, 2 }, { 9, 9, 1 }, { 0, 3, 2 }, { 4, 0, 2 }, { 6, 6, 0 } };
/* Scalars: alpha, beta (the imaginary parts for complex). */
static const double scalars[][4] = {
    { 1.0, 0.0, 0.0, 0.0 },  { 1.0, 0.0, 1.0, 0.0 },   { 0.75, -0.5, 1.25, 0.5 }, { -1.5, 0.0, 0.0, 0.0 },
    { 0.0, 0.0, 0.5, -0.25 }, { 0.0, 0.0, 0.0, 0.0 },  { 0.0, 0.0, 1.0, 0.0 },   { 2.0, 1.0, -1.0, 0.0 },
};

static void run_group(ts_prec p, op_kind op, char side, char uplo, char trans, char diag, api in)
{
    tcase t = { .prec = p, .op = op, .side = side, .uplo = uplo, .trans = trans, .diag = diag };
    const char *name = routine_name(&t, in);
    char err[256];
    void *tested = dlsym(RTLD_DEFAULT, name), *reference = ref_blas_symbol(name, err, sizeof err);
    if (!tested || !reference) {
        tap_ok(0, "%s%s: %s", name, api_names[in], !tested ? "not found in the process" : err);
        return;
    }
    group g = { 0 };
    const int two = op == OP_SYR2K || op == OP_HER2K, real = !ts_prec_is_complex(p);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int pad = 0; pad <= 3; pad += 3)
            for (size_t x = 0; x < sizeof scalars / sizeof scalars[0]; x++) {
                t.m = two ? shapes[s][0] : shapes[s][0];
                t.n = two ? shapes[s][0] : shapes[s][1];
                t.k = shapes[s][2];
                if (two && shapes[s][1] == 0)
                    continue;
                int ar, ac, br, bc;
                a_shape(&t, &ar, &ac);
                b_shape(&t, &br, &bc);
                t.lda = (ar > 1 ? ar : 1) + pad;
                t.ldb = (br > 1 ? br : 1) + pad;
                t.ldc = (c_rows(&t) > 1 ? c_rows(&t) : 1) + pad;
                /* A row-major call's leading dimensions are the same numbers. */
                t.alpha[0] = scalars[x][0], t.alpha[1] = real ? 0.0 : scalars[x][1];
                t.beta[0] = scalars[x][2], t.beta[1] = real || op == OP_HER2K ? 0.0 : scalars[x][3];
                run_case(&g, &t, in, tested, reference);
            }
    if (op == OP_TRMM)
        tap_ok(!g.failed, "%s%s side=%c uplo=%c trans=%c diag=%c: %d cases%s%s", name, api_names[in], side, uplo,
               trans, diag, g.cases, g.failed ? "; first failure: " : "", g.first);
    else if (two)
        tap_ok(!g.failed, "%s%s uplo=%c trans=%c: %d cases%s%s", name, api_names[in], uplo, trans, g.cases,
               g.failed ? "; first failure: " : "", g.first);
    else
        tap_ok(!g.failed, "%s%s side=%c uplo=%c: %d cases%s%s", name, api_names[in], side, uplo, g.cases,
               g.failed ? "; first failure: " : "", g.first);
}

/* TS_EXPECT_FROM: the routines under test must come from that object. */
static void check_provider(api in)
{
    const char *expect = getenv("TS_EXPECT_FROM");
    if (!expect) {
        tap_skip("TS_EXPECT_FROM unset: the provider of the routines under test is not checked");
        return;
    }
    int all = 1;
    for (int p = 0; p < TS_NPREC; p++)
        for (int op = 0; op < OP_COUNT; op++) {
            tcase t = { .prec = (ts_prec)p, .op = (op_kind)op };
            if ((op != OP_HEMM && op != OP_HER2K) || ts_prec_is_complex((ts_prec)p))
                all &= ref_resolves_into(routine_name(&t, in), expect);
        }
    tap_ok(all, "the routines under test come from %s", expect);
}

int main(void)
{
    char err[512] = "";
    if (!tap_ok(ref_blas_open(err, sizeof err) == 0, "reference OpenBLAS opened: %s", err[0] ? err : ref_blas_path())) {
        printf("Bail out! no reference BLAS\n");
        return 1;
    }
    const char *api_env = getenv("TS_L3_API"), *mode = getenv("TSSHIM_MODE");
    const int cblas = api_env && !strcmp(api_env, "cblas");
    gpu_mode = mode && !strcmp(mode, "gpu");
    check_provider(cblas ? API_COL : API_F77);
    for (int layout = 0; layout < (cblas ? 2 : 1); layout++) {
        api in = !cblas ? API_F77 : layout ? API_ROW : API_COL;
        for (int p = 0; p < TS_NPREC; p++) {
            int cplx = ts_prec_is_complex((ts_prec)p);
            for (int op = 0; op < OP_COUNT; op++) {
                if ((op == OP_HEMM || op == OP_HER2K) && !cplx)
                    continue;
                const char *sides = op == OP_SYR2K || op == OP_HER2K ? "-" : "LR";
                const char *trans = op == OP_TRMM ? "NTC" : op == OP_HER2K ? "NC" : op == OP_SYR2K ? (cplx ? "NT" : "NTC") : "-";
                const char *diags = op == OP_TRMM ? "NU" : "-";
                for (const char *sd = sides; *sd; sd++)
                    for (const char *u = "UL"; *u; u++)
                        for (const char *tr = trans; *tr; tr++)
                            for (const char *d = diags; *d; d++)
                                run_group((ts_prec)p, (op_kind)op, *sd == '-' ? 'L' : *sd, *u, *tr == '-' ? 'N' : *tr,
                                          *d == '-' ? 'N' : *d, in);
            }
        }
    }
    return tap_done();
}
