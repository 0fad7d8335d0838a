/* NaN and Inf in A, B and C with every alpha/beta case (0, 1, other): the
 * routines under test (the shim when preloaded) must propagate them as
 * OpenBLAS does.  Values are not compared, only whether each element of C is
 * finite, NaN or infinite.  Independently of OpenBLAS, a special value must
 * not reach C through a zero scalar: beta = 0 discards C, alpha = 0 never
 * reads A or B.  The script lowers TSSHIM_MIN_LONG to 64, so the tall shapes
 * below reach the tuned GPU kernels in gpu mode. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked_gemm.h"
#include "gemm_cases.h"
#include "tap.h"

typedef struct {
    const char *name;
    char transa, transb;
    int m, n, k;
} shape;

static const shape shapes[] = {
    { "regular", 'N', 'N', 7, 5, 6 },
    { "tsm2", 'N', 'N', 96, 4, 96 },
    { "ism2", 'T', 'N', 96, 4, 4 },
    { "tsmttsm", 'T', 'N', 4, 4, 96 },
};

enum { IN_A = 1, IN_B = 2, IN_C = 4 };
static const int placements[] = { IN_A, IN_B, IN_C, IN_A | IN_B | IN_C };
static const double scalars[2][3][2] = {
    { { 0, 0 }, { 1, 0 }, { 0.7, 0.2 } },  /* alpha */
    { { 0, 0 }, { 1, 0 }, { -0.3, 0.4 } }, /* beta */
};

#define COUNT(x) ((int)(sizeof(x) / sizeof((x)[0])))

typedef enum { FINITE, IS_NAN, IS_INF } fp_class;
static const char *const class_names[] = { "finite", "NaN", "Inf" };

/* A complex element is NaN when a part is NaN, else infinite when a part is. */
static fp_class classify(ts_prec p, const void *buf, size_t e)
{
    fp_class c = FINITE;
    for (int q = 0; q < gc_reals(p); q++) {
        double v = gc_get(p, buf, (size_t)gc_reals(p) * e + (size_t)q);
        if (isnan(v))
            return IS_NAN;
        if (isinf(v))
            c = IS_INF;
    }
    return c;
}

/* NaN, +Inf and -Inf at three places of a rows x cols operand, in the real
 * or the imaginary part. */
static void plant(ts_prec p, void *buf, int rows, int cols)
{
    const struct { int i, j, part; double v; } at[] = {
        { 1, 2, 0, NAN }, { 3, 0, 1, INFINITY }, { rows - 1, cols - 1, 0, -INFINITY },
    };
    for (int s = 0; s < COUNT(at); s++) {
        size_t e = (size_t)(at[s].i % rows) + (size_t)(at[s].j % cols) * (size_t)rows;
        int part = ts_prec_is_complex(p) ? at[s].part : 0;
        gc_set(p, buf, (size_t)gc_reals(p) * e + (size_t)part, at[s].v);
    }
}

typedef struct {
    int rows, cols;
    size_t bytes;
    unsigned char *test, *ref;
} operand;

static operand make_operand(ts_prec p, int rows, int cols, int special)
{
    size_t elems = (size_t)rows * (size_t)cols;
    operand o = { rows, cols, elems * ts_elem_size(p), malloc(elems * ts_elem_size(p)),
                  malloc(elems * ts_elem_size(p)) };
    if (!o.test || !o.ref) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    gc_fill_random(p, o.test, 0, elems);
    if (special)
        plant(p, o.test, rows, cols);
    memcpy(o.ref, o.test, o.bytes);
    return o;
}

typedef struct {
    int cases, mismatches, rule_cases, rule_breaks;
    char first[300], first_rule[300];
} outcome;

/* C = beta C: what the reference BLAS does for alpha = 0 (A and B unread).
 * The reference for those cases, since some OpenBLAS builds read A and B. */
static void rule_scale(ts_prec p, const double beta[2], void *c, size_t elems)
{
    const int zero = beta[0] == 0.0 && beta[1] == 0.0;
    for (size_t e = 0; e < elems; e++) {
        if (gc_reals(p) == 1) {
            gc_set(p, c, e, zero ? 0.0 : beta[0] * gc_get(p, c, e));
            continue;
        }
        double re = gc_get(p, c, 2 * e), im = gc_get(p, c, 2 * e + 1);
        gc_set(p, c, 2 * e, zero ? 0.0 : beta[0] * re - beta[1] * im);
        gc_set(p, c, 2 * e + 1, zero ? 0.0 : beta[0] * im + beta[1] * re);
    }
}

static void run_case(ts_prec p, const shape *s, int where, const double alpha[2], const double beta[2], outcome *out)
{
    double al[2], be[2];
    for (int q = 0; q < gc_reals(p); q++) {
        gc_set(p, al, (size_t)q, alpha[q]);
        gc_set(p, be, (size_t)q, beta[q]);
    }
    int ra = s->transa == 'N' ? s->m : s->k, ca = s->transa == 'N' ? s->k : s->m;
    int rb = s->transb == 'N' ? s->k : s->n, cb = s->transb == 'N' ? s->n : s->k;
    operand a = make_operand(p, ra, ca, where & IN_A);
    operand b = make_operand(p, rb, cb, where & IN_B);
    operand c = make_operand(p, s->m, s->n, where & IN_C);
    cg_tested(p)(&s->transa, &s->transb, &s->m, &s->n, &s->k, al, a.test, &ra, b.test, &rb, be, c.test, &s->m, 1, 1);
    const int reads_ab = gc_abs(p, al, 0) != 0.0, reads_c = gc_abs(p, be, 0) != 0.0;
    const int beta_one = beta[0] == 1.0 && beta[1] == 0.0;
    if (reads_ab)
        ref_gemm(p)(&s->transa, &s->transb, &s->m, &s->n, &s->k, al, a.ref, &ra, b.ref, &rb, be, c.ref, &s->m, 1, 1);
    else if (!beta_one)
        rule_scale(p, beta, c.ref, (size_t)s->m * (size_t)s->n);
    const int reachable = ((where & (IN_A | IN_B)) && reads_ab) || ((where & IN_C) && reads_c);
    char what[160];
    snprintf(what, sizeof what, "%s, special values in %s%s%s, alpha=(%g,%g), beta=(%g,%g)", s->name,
             where & IN_A ? "A" : "",
             where & IN_B ? "B" : "", where & IN_C ? "C" : "", alpha[0], alpha[1], beta[0], beta[1]);
    out->cases++;
    out->rule_cases += !reachable;
    int mismatch = 0, broken = 0;
    for (size_t e = 0; e < (size_t)s->m * (size_t)s->n; e++) {
        fp_class got = classify(p, c.test, e), want = classify(p, c.ref, e);
        if (got != want && !mismatch++)
            snprintf(out->first, sizeof out->first, "%s: C(%zu,%zu) is %s, OpenBLAS %s", what, e % (size_t)s->m,
                     e / (size_t)s->m, class_names[got], class_names[want]);
        if (!reachable && got != FINITE && !broken++)
            snprintf(out->first_rule, sizeof out->first_rule, "%s: C(%zu,%zu) is %s", what, e % (size_t)s->m,
                     e / (size_t)s->m, class_names[got]);
    }
    out->mismatches += mismatch != 0;
    out->rule_breaks += broken != 0;
    operand *all[] = { &a, &b, &c };
    for (int i = 0; i < 3; i++) {
        free(all[i]->test);
        free(all[i]->ref);
    }
}

int main(void)
{
    static const ts_prec precs[] = { TS_S, TS_D, TS_C, TS_Z };
    char err[512];
    if (ref_blas_open(err, sizeof err)) {
        printf("Bail out! reference BLAS: %s\n", err);
        return 1;
    }
    gc_seed(7);
    for (int pi = 0; pi < COUNT(precs); pi++) {
        const ts_prec p = precs[pi];
        outcome rules = { 0 };
        for (int si = 0; si < COUNT(shapes); si++) {
            const shape *s = &shapes[si];
            outcome o = { 0 };
            for (int w = 0; w < COUNT(placements); w++)
                for (int ai = 0; ai < 3; ai++)
                    for (int bi = 0; bi < 3; bi++)
                        run_case(p, s, placements[w], scalars[0][ai], scalars[1][bi], &o);
            tap_ok(!o.mismatches, "%s %s %c%c m=%d n=%d k=%d: NaN/Inf pattern of C as OpenBLAS's in %d of %d cases%s%s",
                   gemm_symbol(p), s->name, s->transa, s->transb, s->m, s->n, s->k, o.cases - o.mismatches, o.cases,
                   o.mismatches ? "; first difference: " : "", o.first);
            rules.rule_cases += o.rule_cases;
            if (o.rule_breaks && !rules.rule_breaks)
                memcpy(rules.first_rule, o.first_rule, sizeof rules.first_rule);
            rules.rule_breaks += o.rule_breaks;
        }
        tap_ok(!rules.rule_breaks,
               "%s: no NaN/Inf reaches C through alpha = 0 (A, B unread) or beta = 0 (C discarded): %d of %d cases%s%s",
               gemm_symbol(p), rules.rule_cases - rules.rule_breaks, rules.rule_cases,
               rules.rule_breaks ? "; first: " : "", rules.first_rule);
    }
    return tap_done();
}
