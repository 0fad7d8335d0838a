/* Runs and judges one differential GEMM case for any precision.  Every
 * operand lives in a bigger array (leading dimension padding, optional view
 * offset) so that reads and writes outside it can be caught: A's and B's
 * arrays are NaN outside the operand, C's is random and must stay bitwise
 * unchanged there. */
#include "gemm_cases.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_single(ts_prec p) { return p == TS_S || p == TS_C; }

int gc_reals(ts_prec p) { return ts_prec_is_complex(p) ? 2 : 1; }

double gc_eps(ts_prec p) { return is_single(p) ? FLT_EPSILON : DBL_EPSILON; }

double gc_get(ts_prec p, const void *buf, size_t i)
{
    return is_single(p) ? ((const float *)buf)[i] : ((const double *)buf)[i];
}

void gc_set(ts_prec p, void *buf, size_t i, double v)
{
    if (is_single(p))
        ((float *)buf)[i] = (float)v;
    else
        ((double *)buf)[i] = v;
}

/* The test data are near 1, so the plain formula is exact enough and far
 * cheaper than hypot. */
double gc_abs(ts_prec p, const void *buf, size_t e)
{
    double re, im;

    if (!ts_prec_is_complex(p))
        return fabs(gc_get(p, buf, e));
    re = gc_get(p, buf, 2 * e);
    im = gc_get(p, buf, 2 * e + 1);
    return sqrt(re * re + im * im);
}

/* splitmix64: tiny, fast and reproducible across platforms. */
static uint64_t rng_state;

void gc_seed(uint64_t seed) { rng_state = seed; }

static double rng_uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

void gc_fill_random(ts_prec p, void *buf, size_t first, size_t count)
{
    const size_t r = (size_t)gc_reals(p);

    for (size_t i = r * first; i < r * (first + count); i++)
        gc_set(p, buf, i, rng_uniform());
}

void gc_fill_nan(ts_prec p, void *buf, size_t first, size_t count)
{
    const size_t r = (size_t)gc_reals(p);

    for (size_t i = r * first; i < r * (first + count); i++)
        gc_set(p, buf, i, NAN);
}

double gc_ratio_limit(ts_prec p) { return ts_prec_is_complex(p) ? 4.0 : 2.0; }

/* An operand (rows x cols as stored) at row and column off of a bigger
 * column-major array of ld x array_cols (nelem elements). */
typedef struct {
    int rows, cols, ld, off, array_cols;
    size_t nelem;
} operand;

static operand operand_make(int rows, int cols, int pad, int off)
{
    operand o = { rows, cols, off + rows + pad, off, cols + 2 * off, 0 };

    if (o.ld < 1)
        o.ld = 1;
    o.nelem = (size_t)o.ld * (size_t)o.array_cols;
    if (o.nelem == 0) /* keep a real allocation behind an empty operand */
        o.nelem = 1;
    return o;
}

static size_t operand_at(const operand *o, int i, int j)
{
    return (size_t)(o->off + i) + (size_t)(o->off + j) * (size_t)o->ld;
}

/* Walks the array as runs of consecutive elements, each wholly inside or
 * wholly outside the operand, and hands each run to fn. */
typedef void run_fn(void *ctx, size_t first, size_t count, int inside);

static void operand_runs(const operand *o, run_fn *fn, void *ctx)
{
    const size_t ld = (size_t)o->ld, off = (size_t)o->off;
    const size_t rows = (size_t)o->rows, below = ld - off - rows;

    for (int j = 0; j < o->array_cols; j++) {
        const size_t col = (size_t)j * ld;

        if (j < o->off || j >= o->off + o->cols || rows == 0) {
            fn(ctx, col, ld, 0);
            continue;
        }
        if (off > 0)
            fn(ctx, col, off, 0);
        fn(ctx, col + off, rows, 1);
        if (below > 0)
            fn(ctx, col + off + rows, below, 0);
    }
    if (ld * (size_t)o->array_cols < o->nelem)
        fn(ctx, ld * (size_t)o->array_cols, o->nelem - ld * (size_t)o->array_cols, 0);
}

static void shapes(const gemm_case *c, operand op[GC_NOPER])
{
    const int an = c->transa == 'N', bn = c->transb == 'N';

    op[GC_A] = operand_make(an ? c->m : c->k, an ? c->k : c->m, c->pad[GC_A],
                            c->off[GC_A]);
    op[GC_B] = operand_make(bn ? c->k : c->n, bn ? c->n : c->k, c->pad[GC_B],
                            c->off[GC_B]);
    op[GC_C] = operand_make(c->m, c->n, c->pad[GC_C], c->off[GC_C]);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);

    if (p == NULL) {
        printf("Bail out! out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* Buffers kept from case to case: fresh large allocations would make the
 * tall cases spend their time in page faults. */
enum {
    SLOT_TEST = 0,
    SLOT_REF = SLOT_TEST + GC_NOPER,
    SLOT_C0 = SLOT_REF + GC_NOPER,
    SLOT_ABS_A,
    SLOT_ABS_B,
    SLOT_BOUND,
    NSLOT
};

static void *scratch(int slot, size_t bytes)
{
    static void *buf[NSLOT];
    static size_t have[NSLOT];

    if (bytes > have[slot]) {
        free(buf[slot]);
        buf[slot] = xmalloc(bytes);
        have[slot] = bytes;
    }
    return buf[slot];
}

static void fail(gemm_verdict *v, const char *fmt, ...)
{
    va_list ap;

    if (!v->ok)
        return;
    v->ok = 0;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
}

static void format_elem(ts_prec p, const void *buf, size_t e, char *out,
                        size_t len)
{
    const int digits = is_single(p) ? 9 : 17;

    if (ts_prec_is_complex(p))
        snprintf(out, len, "(%.*g,%.*g)", digits, gc_get(p, buf, 2 * e),
                 digits, gc_get(p, buf, 2 * e + 1));
    else
        snprintf(out, len, "%.*g", digits, gc_get(p, buf, e));
}

static int scalar_is(ts_prec p, const void *s, double re)
{
    return gc_get(p, s, 0) == re
           && (!ts_prec_is_complex(p) || gc_get(p, s, 1) == 0.0);
}

typedef struct {
    ts_prec prec;
    void *buf;
    int nan_inside, nan_outside;
} fill_ctx;

static void fill_run(void *ctx, size_t first, size_t count, int inside)
{
    const fill_ctx *f = ctx;

    if (inside ? f->nan_inside : f->nan_outside)
        gc_fill_nan(f->prec, f->buf, first, count);
    else
        gc_fill_random(f->prec, f->buf, first, count);
}

/* A and B: NaN around the operand, so reading outside it shows in C.  C:
 * random around it, checked bitwise afterwards. */
static void fill_inputs(const gemm_case *c, const operand op[GC_NOPER],
                        unsigned char *const buf[GC_NOPER])
{
    for (int o = 0; o < GC_NOPER; o++) {
        fill_ctx f = { c->prec, buf[o], o == GC_C ? c->nan_c : c->nan_ab,
                       o != GC_C };

        operand_runs(&op[o], fill_run, &f);
    }
}

static void call(gemm_f77 *f, const gemm_case *c, const operand op[GC_NOPER],
                 unsigned char *const buf[GC_NOPER], const void *alpha,
                 const void *beta)
{
    const size_t es = ts_elem_size(c->prec);

    f(&c->transa, &c->transb, &c->m, &c->n, &c->k, alpha,
      buf[GC_A] + operand_at(&op[GC_A], 0, 0) * es, &op[GC_A].ld,
      buf[GC_B] + operand_at(&op[GC_B], 0, 0) * es, &op[GC_B].ld, beta,
      buf[GC_C] + operand_at(&op[GC_C], 0, 0) * es, &op[GC_C].ld, 1, 1);
}

/* |operand| as a dense rows x cols array of doubles. */
static double *abs_operand(ts_prec p, const operand *o, const void *buf,
                           int slot)
{
    double *out = scratch(slot, (size_t)o->rows * (size_t)o->cols * sizeof *out);

    for (int j = 0; j < o->cols; j++)
        for (int i = 0; i < o->rows; i++)
            out[i + (size_t)j * (size_t)o->rows] = gc_abs(p, buf, operand_at(o, i, j));
    return out;
}

/* bound = |alpha| |op(A)| |op(B)| + |beta| |C0| elementwise (m x n), the
 * product taken by the reference dgemm on the moduli. */
static double *residual_bound(const gemm_case *c, const operand op[GC_NOPER],
                              unsigned char *const in[GC_NOPER],
                              const unsigned char *c0, const void *alpha,
                              const void *beta)
{
    const ts_prec p = c->prec;
    const double aabs = gc_abs(p, alpha, 0);
    const double babs = gc_abs(p, beta, 0), one = 1.0;
    double *bound = scratch(SLOT_BOUND, (size_t)c->m * (size_t)c->n * sizeof *bound);

    for (int j = 0; j < c->n; j++)
        for (int i = 0; i < c->m; i++)
            bound[i + (size_t)j * (size_t)c->m] =
                babs == 0.0 ? 0.0 : babs * gc_abs(p, c0, operand_at(&op[GC_C], i, j));
    if (aabs != 0.0 && c->k > 0) {
        const double *a = abs_operand(p, &op[GC_A], in[GC_A], SLOT_ABS_A);
        const double *b = abs_operand(p, &op[GC_B], in[GC_B], SLOT_ABS_B);
        const char ta = c->transa == 'N' ? 'N' : 'T';
        const char tb = c->transb == 'N' ? 'N' : 'T';

        ref_gemm(TS_D)(&ta, &tb, &c->m, &c->n, &c->k, &aabs, a, &op[GC_A].rows,
                       b, &op[GC_B].rows, &one, bound, &c->m, 1, 1);
    }
    return bound;
}

/* With alpha = 0 or k = 0 BLAS computes C = beta C.  Where that is a single
 * rounding (real precisions) or no arithmetic at all (beta = 0 or 1) the
 * result is exact; complex beta C is left to the residual check. */
static int scaled_exactly(ts_prec p, const void *beta, const void *c0,
                          const void *got, size_t e)
{
    const size_t es = ts_elem_size(p);
    double want[2];

    if (scalar_is(p, beta, 1.0))
        return memcmp((const char *)got + e * es, (const char *)c0 + e * es, es) == 0;
    if (scalar_is(p, beta, 0.0))
        return gc_abs(p, got, e) == 0.0;
    if (ts_prec_is_complex(p))
        return 1;
    gc_set(p, want, 0, gc_get(p, beta, 0) * gc_get(p, c0, e));
    return gc_get(p, want, 0) == gc_get(p, got, e);
}

/* |x_e - y_e| (modulus for complex); infinite when either is not finite. */
static double elem_diff(ts_prec p, const void *x, const void *y, size_t e)
{
    const int r = gc_reals(p);
    double sum = 0.0;

    for (int q = 0; q < r; q++) {
        const double d = gc_get(p, x, (size_t)r * e + (size_t)q)
                         - gc_get(p, y, (size_t)r * e + (size_t)q);
        sum += d * d;
    }
    return isfinite(sum) ? sqrt(sum) : INFINITY;
}

static void check_view(const gemm_case *c, const operand op[GC_NOPER],
                       unsigned char *const test[GC_NOPER],
                       unsigned char *const ref[GC_NOPER],
                       const unsigned char *c0, const void *alpha,
                       const void *beta, gemm_verdict *v)
{
    const ts_prec p = c->prec;
    double *bound = residual_bound(c, op, ref, c0, alpha, beta);
    const double scale = (c->k + 2) * gc_eps(p), limit = gc_ratio_limit(p);
    const int quick = scalar_is(p, alpha, 0.0) || c->k == 0;
    const int beta0 = scalar_is(p, beta, 0.0);
    char got[96], want[96];

    for (int j = 0; j < c->n; j++) {
        for (int i = 0; i < c->m; i++) {
            const size_t e = operand_at(&op[GC_C], i, j);
            const double diff = elem_diff(p, test[GC_C], ref[GC_C], e);
            const double tol = scale * bound[i + (size_t)j * (size_t)c->m];
            /* alpha = 0 or k = 0 is judged by the BLAS rule (exactly beta C,
             * below), not by the reference: some OpenBLAS builds read A and
             * B there and return NaN. */
            const double ratio = quick || diff == 0.0 ? 0.0 : tol > 0.0 ? diff / tol : INFINITY;

            const int inexact = quick && !scaled_exactly(p, beta, c0, test[GC_C], e);
            const int nonfinite = beta0 && !isfinite(gc_abs(p, test[GC_C], e));

            if (ratio > v->ratio)
                v->ratio = ratio;
            if (!v->ok || !(inexact || nonfinite || ratio > limit))
                continue;
            format_elem(p, test[GC_C], e, got, sizeof got);
            format_elem(p, ref[GC_C], e, want, sizeof want);
            if (inexact)
                fail(v, "C(%d,%d) = %s is not exactly beta*C", i, j, got);
            else if (nonfinite)
                fail(v, "C(%d,%d) = %s is not finite with beta = 0", i, j, got);
            else
                fail(v, "C(%d,%d) = %s, reference %s: ratio %.3g > %g", i, j,
                     got, want, ratio, limit);
        }
    }
}

typedef struct {
    const operand *o;
    size_t es;
    const unsigned char *got, *c0;
    gemm_verdict *v;
} outside_ctx;

static void check_outside_run(void *ctx, size_t first, size_t count, int inside)
{
    const outside_ctx *x = ctx;
    const size_t es = x->es;

    if (inside || memcmp(x->got + first * es, x->c0 + first * es, count * es) == 0)
        return;
    for (size_t e = first; e < first + count; e++) {
        if (memcmp(x->got + e * es, x->c0 + e * es, es) != 0) {
            fail(x->v, "C's array changed outside C at row %zu, column %zu (ldc=%d)",
                 e % (size_t)x->o->ld, e / (size_t)x->o->ld, x->o->ld);
            return;
        }
    }
}

static uint64_t case_seed(const gemm_case *c)
{
    uint64_t s = 0x74737368696dULL; /* "tsshim" */
    const int key[] = { (int)c->prec, c->transa, c->transb, c->m, c->n, c->k };

    for (size_t i = 0; i < sizeof key / sizeof key[0]; i++)
        s = s * 1000003u + (uint64_t)key[i];
    return s;
}

void gc_run(const gemm_case *c, gemm_f77 *tested, gemm_verdict *v)
{
    const ts_prec p = c->prec;
    const size_t es = ts_elem_size(p);
    operand op[GC_NOPER];
    unsigned char *test[GC_NOPER], *ref[GC_NOPER], *c0;
    /* The scalars sit where a Fortran program may put them: aligned for
     * their real part only, never for the whole complex element (LAPACK's
     * COMPLEX*16 constants at odd 8-byte addresses crashed cuBLAS). */
    _Alignas(16) unsigned char scalars[4 * 16];
    const size_t real = es / (size_t)gc_reals(p);
    void *alpha = scalars + (ts_prec_is_complex(p) ? real : 0);
    void *beta = scalars + 2 * 16 + (ts_prec_is_complex(p) ? real : 0);

    for (int q = 0; q < gc_reals(p); q++) {
        gc_set(p, alpha, (size_t)q, c->alpha[q]);
        gc_set(p, beta, (size_t)q, c->beta[q]);
    }
    shapes(c, op);
    for (int o = 0; o < GC_NOPER; o++) {
        test[o] = scratch(SLOT_TEST + o, op[o].nelem * es);
        ref[o] = scratch(SLOT_REF + o, op[o].nelem * es);
    }
    c0 = scratch(SLOT_C0, op[GC_C].nelem * es);
    gc_seed(case_seed(c));
    fill_inputs(c, op, test);
    for (int o = 0; o < GC_NOPER; o++)
        memcpy(ref[o], test[o], op[o].nelem * es);
    memcpy(c0, test[GC_C], op[GC_C].nelem * es);

    call(tested, c, op, test, alpha, beta);
    call(ref_gemm(p), c, op, ref, alpha, beta);

    v->ok = 1;
    v->ratio = 0.0;
    v->why[0] = '\0';
    /* The reference leaves its inputs as given, so they are the originals. */
    if (memcmp(test[GC_A], ref[GC_A], op[GC_A].nelem * es) != 0)
        fail(v, "A's array was modified");
    if (memcmp(test[GC_B], ref[GC_B], op[GC_B].nelem * es) != 0)
        fail(v, "B's array was modified");
    {
        outside_ctx x = { &op[GC_C], es, test[GC_C], c0, v };

        operand_runs(&op[GC_C], check_outside_run, &x);
    }
    if (c->m > 0 && c->n > 0)
        check_view(c, op, test, ref, c0, alpha, beta, v);
}

void gc_describe(const gemm_case *c, char *buf, size_t len)
{
    operand op[GC_NOPER];

    shapes(c, op);
    snprintf(buf, len,
             "m=%d n=%d k=%d lda=%d ldb=%d ldc=%d offsets=%d,%d,%d "
             "alpha=(%g,%g) beta=(%g,%g)%s%s",
             c->m, c->n, c->k, op[GC_A].ld, op[GC_B].ld, op[GC_C].ld,
             c->off[GC_A], c->off[GC_B], c->off[GC_C], c->alpha[0],
             c->alpha[1], c->beta[0], c->beta[1],
             c->nan_ab ? " A,B=NaN" : "", c->nan_c ? " C=NaN" : "");
}
