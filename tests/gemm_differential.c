/* Differential test of sgemm_, dgemm_, cgemm_ and zgemm_ against OpenBLAS,
 * or (TS_DIFF_API=cblas) of cblas_?gemm in column- and row-major layout.
 *
 * The routines under test are called through their plain symbols, as a
 * legacy program calls them; the test scripts run this program with
 * LD_PRELOAD of libtsshim so that those calls go through the shim.  The
 * reference is OpenBLAS opened privately (ref_blas.c).  One TAP line per
 * precision, transpose pair and group of cases. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cblas_gemm.h"
#include "gemm_cases.h"
#include "ref_blas.h"
#include "tap.h"

extern gemm_f77 sgemm_, dgemm_, cgemm_, zgemm_;

static gemm_f77 *const fortran[TS_NPREC] = { sgemm_, dgemm_, cgemm_, zgemm_ };

static int cblas_trans(const char *t)
{
    return *t == 'N' ? CBLAS_NO_TRANS : *t == 'T' ? CBLAS_TRANS : CBLAS_CONJ_TRANS;
}

/* A case's column-major C = op(A) op(B) through CBLAS: as itself, or as the
 * row-major C^T = op(B)^T op(A)^T on the same memory. */
#define CBLAS_ADAPTER(name, layout, call, scalar)                                                              \
    static void name(const char *ta, const char *tb, const int *m, const int *n, const int *k, const void *alpha, \
                     const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,   \
                     const int *ldc, size_t la, size_t lb)                                                      \
    {                                                                                                           \
        (void)la, (void)lb;                                                                                     \
        if (layout == CBLAS_COL)                                                                                \
            call(CBLAS_COL, cblas_trans(ta), cblas_trans(tb), *m, *n, *k, scalar(alpha), a, *lda, b, *ldb,      \
                 scalar(beta), c, *ldc);                                                                        \
        else                                                                                                    \
            call(CBLAS_ROW, cblas_trans(tb), cblas_trans(ta), *n, *m, *k, scalar(alpha), b, *ldb, a, *lda,      \
                 scalar(beta), c, *ldc);                                                                        \
    }
#define AS_FLOAT(x) (*(const float *)(x))
#define AS_DOUBLE(x) (*(const double *)(x))
#define AS_POINTER(x) (x)
CBLAS_ADAPTER(cblas_col_s, CBLAS_COL, cblas_sgemm, AS_FLOAT)
CBLAS_ADAPTER(cblas_col_d, CBLAS_COL, cblas_dgemm, AS_DOUBLE)
CBLAS_ADAPTER(cblas_col_c, CBLAS_COL, cblas_cgemm, AS_POINTER)
CBLAS_ADAPTER(cblas_col_z, CBLAS_COL, cblas_zgemm, AS_POINTER)
CBLAS_ADAPTER(cblas_row_s, CBLAS_ROW, cblas_sgemm, AS_FLOAT)
CBLAS_ADAPTER(cblas_row_d, CBLAS_ROW, cblas_dgemm, AS_DOUBLE)
CBLAS_ADAPTER(cblas_row_c, CBLAS_ROW, cblas_cgemm, AS_POINTER)
CBLAS_ADAPTER(cblas_row_z, CBLAS_ROW, cblas_zgemm, AS_POINTER)

static gemm_f77 *const cblas_col[TS_NPREC] = { cblas_col_s, cblas_col_d, cblas_col_c, cblas_col_z };
static gemm_f77 *const cblas_row[TS_NPREC] = { cblas_row_s, cblas_row_d, cblas_row_c, cblas_row_z };
static const char *const cblas_names[TS_NPREC] = { "cblas_sgemm", "cblas_dgemm", "cblas_cgemm", "cblas_zgemm" };

/* The interface under test: set once in main. */
static gemm_f77 *const *tested = fortran;
static const char *api_label = "";

/* Sizes the shim's classifier sees as odd, and the skinny widths. */
static const int odd_sizes[] = { 1, 3, 17, 33, 63, 65 };
static const int widths[] = { 1, 2, 3, 8, 16, 33, 64 };

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct {
    gemm_case base;     /* precision and transposes of the group */
    int long_dim;       /* "long" of the shim's classes (TSSHIM_MIN_LONG) */
    int cases, failed;
    double worst;
    char first[600];    /* the first failed case and why */
} group_run;

typedef struct group {
    const char *name;
    void (*run)(group_run *g, const struct group *self);
    const char *shapes[2]; /* tall groups: m, n, k as 'L' (long) or 'w' */
} group;

static void run_case(group_run *g, const gemm_case *c)
{
    gemm_verdict v;

    gc_run(c, tested[c->prec], &v);
    g->cases++;
    if (v.ratio > g->worst)
        g->worst = v.ratio;
    if (!v.ok && g->failed++ == 0) {
        char what[256];

        gc_describe(c, what, sizeof what);
        snprintf(g->first, sizeof g->first, "%s: %s", what, v.why);
    }
}

/* The group's case with a new shape and scalars; imaginary parts are
 * dropped for the real precisions so diagnostics show what ran. */
static gemm_case shaped(const group_run *g, const int mnk[3], double are,
                        double aim, double bre, double bim)
{
    gemm_case c = g->base;
    const int cplx = ts_prec_is_complex(c.prec);

    c.m = mnk[0];
    c.n = mnk[1];
    c.k = mnk[2];
    c.alpha[0] = are;
    c.alpha[1] = cplx ? aim : 0.0;
    c.beta[0] = bre;
    c.beta[1] = cplx ? bim : 0.0;
    return c;
}

/* General scalars: no special value, non-zero imaginary parts. */
static gemm_case general(const group_run *g, const int mnk[3])
{
    return shaped(g, mnk, 0.7, -0.45, -1.3, 0.55);
}

static void group_zero_dims(group_run *g, const group *self)
{
    static const int dims[][3] = { { 0, 5, 4 }, { 6, 0, 4 }, { 6, 5, 0 },
                                   { 0, 0, 0 }, { 0, 3, 0 } };
    (void)self;
    for (int d = 0; d < COUNT(dims); d++) {
        gemm_case c = general(g, dims[d]);

        run_case(g, &c);
        c = shaped(g, dims[d], 0.7, -0.45, 1.0, 0.0);
        run_case(g, &c);
        c = shaped(g, dims[d], 0.7, -0.45, 0.0, 0.0);
        c.nan_c = 1;
        run_case(g, &c);
    }
}

static void group_alpha_zero(group_run *g, const group *self)
{
    static const int dims[][3] = { { 1, 1, 1 }, { 7, 5, 6 }, { 33, 17, 65 } };
    (void)self;
    for (int d = 0; d < COUNT(dims); d++) {
        gemm_case c = shaped(g, dims[d], 0.0, 0.0, -1.3, 0.55);

        c.nan_ab = 1;
        run_case(g, &c);
        c.beta[0] = 1.0;
        c.beta[1] = 0.0;
        run_case(g, &c);
        c.beta[0] = 0.0;
        c.nan_c = 1;
        run_case(g, &c);
    }
}

static void group_beta_zero(group_run *g, const group *self)
{
    static const int dims[][3] = { { 1, 1, 1 }, { 17, 33, 3 }, { 65, 63, 17 } };
    (void)self;
    for (int d = 0; d < COUNT(dims); d++) {
        gemm_case c = shaped(g, dims[d], 0.7, -0.45, 0.0, 0.0);

        c.nan_c = 1;
        run_case(g, &c);
        c.alpha[0] = 1.0;
        c.alpha[1] = 0.0;
        run_case(g, &c);
    }
}

static void group_beta_one(group_run *g, const group *self)
{
    static const int dims[][3] = { { 1, 1, 1 }, { 17, 33, 3 }, { 65, 63, 17 } };
    (void)self;
    for (int d = 0; d < COUNT(dims); d++) {
        gemm_case c = shaped(g, dims[d], 0.7, -0.45, 1.0, 0.0);

        run_case(g, &c);
        c.alpha[0] = -1.0;
        c.alpha[1] = 0.0;
        run_case(g, &c);
    }
}

static void group_odd_sizes(group_run *g, const group *self)
{
    (void)self;
    for (int i = 0; i < COUNT(odd_sizes); i++)
        for (int j = 0; j < COUNT(odd_sizes); j++)
            for (int l = 0; l < COUNT(odd_sizes); l++) {
                const int mnk[3] = { odd_sizes[i], odd_sizes[j], odd_sizes[l] };
                gemm_case c = general(g, mnk);

                run_case(g, &c);
            }
}

/* Distinct paddings per operand, so that mixing up lda, ldb and ldc shows. */
static void group_padded(group_run *g, const group *self)
{
    static const int dims[][3] = { { 17, 33, 3 }, { 65, 1, 63 }, { 3, 65, 17 } };
    static const int pads[][GC_NOPER] = { { 1, 7, 3 }, { 5, 2, 9 } };
    (void)self;
    for (int d = 0; d < COUNT(dims); d++) {
        for (int q = 0; q < COUNT(pads); q++) {
            gemm_case c = general(g, dims[d]);

            memcpy(c.pad, pads[q], sizeof c.pad);
            run_case(g, &c);
        }
        gemm_case c = shaped(g, dims[d], 0.7, -0.45, 0.0, 0.0);

        memcpy(c.pad, pads[0], sizeof c.pad);
        c.nan_c = 1;
        run_case(g, &c);
    }
}

static void group_views(group_run *g, const group *self)
{
    static const int dims[][3] = { { 17, 33, 3 }, { 65, 17, 63 } };
    static const int offs[][GC_NOPER] = { { 1, 2, 3 }, { 3, 1, 2 } };
    static const int pads[][GC_NOPER] = { { 0, 0, 0 }, { 2, 3, 1 } };
    (void)self;
    for (int d = 0; d < COUNT(dims); d++)
        for (int q = 0; q < COUNT(offs); q++)
            for (int r = 0; r < COUNT(pads); r++) {
                gemm_case c = general(g, dims[d]);

                memcpy(c.off, offs[q], sizeof c.off);
                memcpy(c.pad, pads[r], sizeof c.pad);
                run_case(g, &c);
            }
}

/* Each shape at every width, with general scalars and with beta = 0 (the
 * kernels skip reading C then). */
static void group_tall(group_run *g, const group *self)
{
    for (int s = 0; s < COUNT(self->shapes) && self->shapes[s]; s++) {
        for (int w = 0; w < COUNT(widths); w++) {
            int mnk[3];

            for (int d = 0; d < 3; d++)
                mnk[d] = self->shapes[s][d] == 'L' ? g->long_dim : widths[w];
            gemm_case c = general(g, mnk);

            run_case(g, &c);
            c = shaped(g, mnk, 0.7, -0.45, 0.0, 0.0);
            c.nan_c = 1;
            run_case(g, &c);
        }
    }
}

/* Not skinny anywhere: medium sizes, and long m or k with wide others. */
static void group_regular(group_run *g, const group *self)
{
    const int dims[][3] = { { 130, 120, 110 },
                            { g->long_dim, 100, 100 },
                            { 100, 100, g->long_dim } };
    (void)self;
    for (int d = 0; d < COUNT(dims); d++) {
        gemm_case c = general(g, dims[d]);

        run_case(g, &c);
    }
    gemm_case c = shaped(g, dims[0], 0.7, -0.45, 0.0, 0.0);

    c.nan_c = 1;
    run_case(g, &c);
}

static const group groups[] = {
    { "m, n or k = 0", group_zero_dims, { NULL, NULL } },
    { "alpha = 0, A and B NaN", group_alpha_zero, { NULL, NULL } },
    { "beta = 0, C NaN", group_beta_zero, { NULL, NULL } },
    { "beta = 1", group_beta_one, { NULL, NULL } },
    { "odd sizes", group_odd_sizes, { NULL, NULL } },
    { "padded lda, ldb, ldc", group_padded, { NULL, NULL } },
    { "submatrix views", group_views, { NULL, NULL } },
    { "tall TSM2 m=k=long n=w, mirror n=k=long m=w", group_tall, { "LwL", "wLL" } },
    { "tall ISM2 m=long k=n=w, mirror n=long k=m=w", group_tall, { "Lww", "wLw" } },
    { "tall TSMTTSM m=n=w k=long", group_tall, { "wwL", NULL } },
    { "tall RANKK m=n=long k=w", group_tall, { "LLw", NULL } },
    { "regular", group_regular, { NULL, NULL } },
};

/* The shim's own threshold when set, so that the tall shapes reach its
 * classes; otherwise a size that keeps the test fast. */
enum { DEFAULT_LONG = 256 };

static int long_dim_from_env(void)
{
    const char *s = getenv("TSSHIM_MIN_LONG");
    char *end;
    long v;

    if (s == NULL || *s == '\0')
        return DEFAULT_LONG;
    v = strtol(s, &end, 10);
    if (*end != '\0' || v < 1 || v > INT_MAX / 4) {
        tap_diag("TSSHIM_MIN_LONG=%s is not usable here, taking %d", s,
                 DEFAULT_LONG);
        return DEFAULT_LONG;
    }
    return (int)v;
}

/* Names the object behind each symbol under test and, when
 * TS_EXPECT_GEMM_FROM names a library (the scripts pass the shim), checks
 * that it is that one, so a run where the preload silently failed cannot
 * pass. */
static void check_tested_provider(void)
{
    const char *expect = getenv("TS_EXPECT_GEMM_FROM");
    char want[PATH_MAX], got[PATH_MAX];
    int all = 1;

    if (expect != NULL && realpath(expect, want) == NULL)
        snprintf(want, sizeof want, "%s", expect);
    for (int p = 0; p < TS_NPREC; p++) {
        Dl_info info;
        const char *name = tested == fortran ? gemm_symbol((ts_prec)p) : cblas_names[p];
        void *fn = dlsym(RTLD_DEFAULT, name);
        const char *from = fn && dladdr(fn, &info) && info.dli_fname
                               ? info.dli_fname : "(unknown)";

        tap_diag("%s under test: %s", name, from);
        if (expect != NULL
            && (realpath(from, got) == NULL || strcmp(got, want) != 0))
            all = 0;
    }
    if (expect != NULL)
        tap_ok(all, "the GEMMs under test resolve into %s", expect);
    else
        tap_skip("TS_EXPECT_GEMM_FROM unset: the provider of the GEMMs under test is not checked");
}

int main(void)
{
    static const char trans[] = "NTC";
    char err[512] = "";
    const int rc = ref_blas_open(err, sizeof err);
    const int long_dim = long_dim_from_env();

    if (!tap_ok(rc == 0, "reference sgemm_ .. zgemm_ resolved inside %s",
                rc == 0 ? ref_blas_path() : "OpenBLAS")) {
        printf("Bail out! no reference BLAS: %s\n", err);
        return 1;
    }
    /* TS_DIFF_API=cblas: the CBLAS routines, each case in both layouts. */
    const char *api = getenv("TS_DIFF_API");
    int cblas = api && !strcmp(api, "cblas");
    if (cblas)
        tested = cblas_col;
    check_tested_provider();
    tap_diag("long dimension of the tall shapes: %d", long_dim);

    /* TS_DIFF_PRECISIONS (e.g. "d"): only those routines, for tools that
     * slow every kernel down a hundredfold. */
    const char *only = getenv("TS_DIFF_PRECISIONS");
    for (int layout = 0; layout < (cblas ? 2 : 1); layout++)
    for (int p = 0; p < TS_NPREC; p++) {
        tested = !cblas ? fortran : layout ? cblas_row : cblas_col;
        api_label = !cblas ? "" : layout ? " (row-major)" : " (column-major)";
        if (only != NULL && strchr(only, "sdcz"[p]) == NULL)
            continue;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int q = 0; q < COUNT(groups); q++) {
                    group_run g = { .long_dim = long_dim };

                    g.base.prec = (ts_prec)p;
                    g.base.transa = trans[a];
                    g.base.transb = trans[b];
                    groups[q].run(&g, &groups[q]);
                    tap_ok(g.failed == 0, "%s%s %c,%c %s: %d cases, worst ratio %.3g",
                           cblas ? cblas_names[p] : gemm_symbol((ts_prec)p), api_label, trans[a], trans[b],
                           groups[q].name, g.cases, g.worst);
                    if (g.failed)
                        tap_diag("%d of %d cases failed (ratio limit %g); first: %s",
                                 g.failed, g.cases, gc_ratio_limit((ts_prec)p),
                                 g.first);
                }
    }
    return tap_done();
}
