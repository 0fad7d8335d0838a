#include "checked_gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_cases.h"

extern gemm_f77 sgemm_, dgemm_, cgemm_, zgemm_;

gemm_f77 *cg_tested(ts_prec p)
{
    static gemm_f77 *const fn[TS_NPREC] = { sgemm_, dgemm_, cgemm_, zgemm_ };
    return fn[p];
}

static void *filled(ts_prec p, size_t elems, size_t *bytes)
{
    *bytes = elems * ts_elem_size(p);
    void *buf = malloc(*bytes ? *bytes : 1);
    if (!buf) {
        printf("Bail out! out of memory (%zu bytes)\n", *bytes);
        exit(1);
    }
    gc_fill_random(p, buf, 0, elems);
    return buf;
}

void cg_prepare(checked_gemm *g, const char *name, ts_prec prec, char transa, char transb, int m, int n, int k,
                int pad)
{
    /* Non-trivial scalars, so that neither term of alpha AB + beta C hides. */
    static const double alpha[2] = { 0.75, 0.25 }, beta[2] = { -0.5, 0.125 };
    memset(g, 0, sizeof *g);
    g->name = name;
    g->prec = prec;
    g->transa = transa;
    g->transb = transb;
    g->m = m;
    g->n = n;
    g->k = k;
    for (int q = 0; q < gc_reals(prec); q++) {
        gc_set(prec, g->alpha, (size_t)q, alpha[q]);
        gc_set(prec, g->beta, (size_t)q, beta[q]);
    }
    int rows_a = transa == 'N' ? m : k, cols_a = transa == 'N' ? k : m;
    int rows_b = transb == 'N' ? k : n, cols_b = transb == 'N' ? n : k;
    g->lda = rows_a + pad;
    g->ldb = rows_b + pad;
    g->ldc = m + pad;
    g->a = filled(prec, (size_t)g->lda * (size_t)cols_a, &g->bytes_a);
    g->b = filled(prec, (size_t)g->ldb * (size_t)cols_b, &g->bytes_b);
    g->c0 = filled(prec, (size_t)g->ldc * (size_t)n, &g->bytes_c);
    g->want = malloc(g->bytes_c);
    if (!g->want) {
        printf("Bail out! out of memory (%zu bytes)\n", g->bytes_c);
        exit(1);
    }
    memcpy(g->want, g->c0, g->bytes_c);
    cg_call(g, ref_gemm(prec), g->a, g->b, g->want);
}

void cg_free(checked_gemm *g)
{
    free(g->a);
    free(g->b);
    free(g->c0);
    free(g->want);
}

void cg_call(const checked_gemm *g, gemm_f77 *fn, const void *a, const void *b, void *c)
{
    fn(&g->transa, &g->transb, &g->m, &g->n, &g->k, g->alpha, a, &g->lda, b, &g->ldb, g->beta, c, &g->ldc, 1, 1);
}

double cg_ratio(const checked_gemm *g, const void *got)
{
    const ts_prec p = g->prec;
    const double s = gc_reals(p);
    const double bound = (g->k + 2) * gc_eps(p) * (gc_abs(p, g->alpha, 0) * g->k * s + gc_abs(p, g->beta, 0) * sqrt(s));
    double worst = 0.0;
    for (int j = 0; j < g->n; j++)
        for (int i = 0; i < g->m; i++) {
            size_t e = (size_t)i + (size_t)j * (size_t)g->ldc;
            double d2 = 0.0;
            for (int q = 0; q < gc_reals(p); q++) {
                double d = gc_get(p, got, (size_t)s * e + (size_t)q) - gc_get(p, g->want, (size_t)s * e + (size_t)q);
                d2 += d * d;
            }
            double ratio = isfinite(d2) ? sqrt(d2) / bound : INFINITY;
            if (ratio > worst)
                worst = ratio;
        }
    return worst;
}

int cg_ratio_ok(const checked_gemm *g, double ratio) { return ratio <= gc_ratio_limit(g->prec); }

double cg_run_host(const checked_gemm *g, gemm_f77 *fn)
{
    void *a = malloc(g->bytes_a), *b = malloc(g->bytes_b), *c = malloc(g->bytes_c);
    double ratio = INFINITY;
    if (a && b && c) {
        memcpy(a, g->a, g->bytes_a);
        memcpy(b, g->b, g->bytes_b);
        memcpy(c, g->c0, g->bytes_c);
        cg_call(g, fn, a, b, c);
        ratio = cg_ratio(g, c);
    }
    free(a);
    free(b);
    free(c);
    return ratio;
}
