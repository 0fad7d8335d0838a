/* Level-3 calls on host data end to end (issue 43): dtrsm_, dtrmm_, dsyr2k_
 * and dsymm_ on pageable (malloc'd) operands, rewritten by the program
 * before every call (bench_rewrite) so that no cached copy can serve them,
 * in their tall-and-skinny forms and square:
 *   dtrsm_tall    B = B R^-1, B m x 16, R 16 x 16 (side R, upper, non-unit)
 *   dtrmm_tall    B = B R, the same shapes
 *   dsyr2k_tall   C = A^T B + B^T A, A and B k x 16, C 16 x 16 (upper, trans T)
 *   dsymm_tall    C = B A, A 16 x 16 symmetric (side R, upper), B and C m x 16
 *   *_square      the same calls with m = k = n
 * m = k = 2^LOG2_LONG (default 22) in the tall forms, n = 2^LOG2_SQUARE
 * (default 12) in the square ones.
 *
 *   [LD_PRELOAD=.libs/libtsshim.so TSSHIM_MODE=gpu] bench/bench_level3_host [FILTER [LOG2_LONG [LOG2_SQUARE]]]
 *
 * FILTER: a substring of the case names (e.g. tall, dtrsm_; empty: all).
 * Each case's time is the median of 5 calls after one warm-up; its bytes
 * are the operands that must cross, whole matrices: every operand sent and
 * C (TRSM's and TRMM's B) returned (beta = 0: C is not sent, but TRSM's and
 * TRMM's B is); its bound those bytes at the pinned link rate this run
 * measured.  Before the timed calls one call's result is compared with
 * that of OpenBLAS called directly (opened privately, tests/ref_blas.c) on
 * the same operands (C, or TRSM's and TRMM's B, copied): "ok" when the
 * largest difference is within 8 d eps of the largest element of
 * OpenBLAS's result, d the number of terms each element sums (n, SYR2K's
 * 2k), else "FAIL" and a line on stderr.
 *
 * Prints "case,bytes,us,bound_us,h2d_gbs,d2h_gbs,check" rows; without the
 * shim the time is the CPU BLAS's (bench/run-level3-host.sh runs it plain,
 * forced to the GPU and in auto mode, and joins the three). */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "ref_blas.h"

typedef void trxm_f(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
                    const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
/* dsymm_ and dsyr2k_ have the same types (side, uplo or uplo, trans; m, n or n, k; ...). */
typedef void symm_f(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
                    const double *, const int *, const double *, double *, const int *, size_t, size_t);

static const double one = 1.0, zero = 0.0;

/* An operand's shape: none, n x n (TRSM's and TRMM's R, SYMM's A, SYR2K's
 * C) or l x n with leading dimension l, l the long dimension (n when square). */
typedef enum { NONE, SQUARE, LONG } extent;

typedef struct {
    int n, l;
    double *a, *b, *c;
} operands;

/* The call, to the routine fn: the process's (the shim's where preloaded)
 * or the reference's. */
static void side_r_triangle(void *fn, const operands *o)
{
    ((trxm_f *)fn)("R", "U", "N", "N", &o->l, &o->n, &one, o->a, &o->n, o->c, &o->l, 1, 1, 1, 1);
}

static void symm_r(void *fn, const operands *o)
{
    ((symm_f *)fn)("R", "U", &o->l, &o->n, &one, o->a, &o->n, o->b, &o->l, &zero, o->c, &o->l, 1, 1);
}

static void syr2k_t(void *fn, const operands *o)
{
    ((symm_f *)fn)("U", "T", &o->n, &o->l, &one, o->a, &o->l, o->b, &o->l, &zero, o->c, &o->n, 1, 1);
}

typedef struct {
    const char *name, *symbol;
    int tall;
    extent a, b, c;
    int c_read;       /* C (TRSM's and TRMM's B) sent as well as returned */
    int sums_long;    /* each element of C sums 2 l terms (SYR2K), not n */
    void (*call)(void *, const operands *);
} host_case;

static const host_case cases[] = {
    { "dtrsm_tall", "dtrsm_", 1, SQUARE, NONE, LONG, 1, 0, side_r_triangle },
    { "dtrmm_tall", "dtrmm_", 1, SQUARE, NONE, LONG, 1, 0, side_r_triangle },
    { "dsyr2k_tall", "dsyr2k_", 1, LONG, LONG, SQUARE, 0, 1, syr2k_t },
    { "dsymm_tall", "dsymm_", 1, SQUARE, LONG, LONG, 0, 0, symm_r },
    { "dtrsm_square", "dtrsm_", 0, SQUARE, NONE, LONG, 1, 0, side_r_triangle },
    { "dtrmm_square", "dtrmm_", 0, SQUARE, NONE, LONG, 1, 0, side_r_triangle },
    { "dsyr2k_square", "dsyr2k_", 0, LONG, LONG, SQUARE, 0, 1, syr2k_t },
    { "dsymm_square", "dsymm_", 0, SQUARE, LONG, LONG, 0, 0, symm_r },
};

enum { TIMED = 5, SKINNY = 16 };

static size_t elements(extent e, const operands *o)
{
    return e == NONE ? 0 : e == SQUARE ? (size_t)o->n * o->n : (size_t)o->l * o->n;
}

static uint64_t seed = 88172645463325252ull;

/* In [-0.5, 0.5). */
static double uniform(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return (double)(seed >> 11) * 0x1p-53 - 0.5;
}

/* An operand of shape e, NULL where there is none: the n x n ones 1 on the
 * diagonal and below 1/(2n) in magnitude elsewhere (R = I + N, |N| < 1/2:
 * a triangle whose solve stays well conditioned at any n), the others
 * uniform. */
static double *operand(extent e, const operands *o)
{
    size_t count = elements(e, o);
    if (!count)
        return NULL;
    double *x = malloc(count * sizeof *x);
    if (!x) {
        fprintf(stderr, "bench_level3_host: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        x[i] = e == LONG ? uniform() : i % ((size_t)o->n + 1) == 0 ? 1.0 : uniform() / o->n;
    return x;
}

/* The process's result c against the reference's want (count elements). */
static const char *compare(const char *name, const double *c, const double *want, size_t count, double depth)
{
    double diff = 0, size = 0;
    for (size_t i = 0; i < count; i++) {
        double d = fabs(c[i] - want[i]);
        diff = d > diff || isnan(d) ? d : diff;
        size = fabs(want[i]) > size ? fabs(want[i]) : size;
    }
    if (diff <= 8 * depth * DBL_EPSILON * size)
        return "ok";
    fprintf(stderr, "bench_level3_host: %s: largest difference %.3g from OpenBLAS's, whose largest element is %.3g\n",
            name, diff, size);
    return "FAIL";
}

static void run(const host_case *s, int lg_long, int lg_square, double h2d, double d2h)
{
    operands o;
    o.n = s->tall ? SKINNY : 1 << lg_square;
    o.l = s->tall ? 1 << lg_long : o.n;
    o.a = operand(s->a, &o);
    o.b = operand(s->b, &o);
    o.c = operand(s->c, &o);
    size_t na = elements(s->a, &o), nb = elements(s->b, &o), nc = elements(s->c, &o);
    char err[256];
    void *tested = dlsym(RTLD_DEFAULT, s->symbol), *reference = ref_blas_symbol(s->symbol, err, sizeof err);
    double *want = malloc(nc * sizeof *want);
    if (!tested || !reference || !want) {
        fprintf(stderr, "bench_level3_host: %s: %s\n", s->name,
                !tested ? "not in the process" : !want ? "out of memory" : err);
        exit(1);
    }
    memcpy(want, o.c, nc * sizeof *want);
    s->call(tested, &o);
    operands r = o;
    r.c = want;
    s->call(reference, &r);
    const char *check = compare(s->name, o.c, want, nc, s->sums_long ? 2.0 * o.l : o.n);
    free(want);

    double t[TIMED];
    for (int i = 0; i < 1 + TIMED; i++) {
        bench_rewrite(o.a, na * sizeof(double), 0, i);
        bench_rewrite(o.b, nb * sizeof(double), 0, i);
        bench_rewrite(o.c, nc * sizeof(double), 0, i);
        double t0 = bench_now();
        s->call(tested, &o);
        if (i > 0)
            t[i - 1] = bench_now() - t0;
    }
    double in = 8.0 * (double)(na + nb + (s->c_read ? nc : 0)), out = 8.0 * (double)nc;
    printf("%s,%.0f,%.1f,%.1f,%.1f,%.1f,%s\n", s->name, in + out, bench_median(t, TIMED) * 1e6,
           bench_link_us(in, out, h2d, d2h), h2d, d2h, check);
    fflush(stdout);
    free(o.a);
    free(o.b);
    free(o.c);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "";
    int lg_long = argc > 2 ? atoi(argv[2]) : 22, lg_square = argc > 3 ? atoi(argv[3]) : 12;
    if (lg_long < 4 || lg_long > 28 || lg_square < 4 || lg_square > 15) {
        fprintf(stderr, "usage: %s [FILTER [LOG2_LONG, 4..28 [LOG2_SQUARE, 4..15]]]\n", argv[0]);
        return 2;
    }
    char err[256];
    if (ref_blas_open(err, sizeof err)) {
        fprintf(stderr, "bench_level3_host: the reference OpenBLAS: %s\n", err);
        return 1;
    }
    double h2d, d2h;
    bench_link_rates(&h2d, &d2h);
    printf("case,bytes,us,bound_us,h2d_gbs,d2h_gbs,check\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strstr(cases[i].name, only))
            run(&cases[i], lg_long, lg_square, h2d, d2h);
    return 0;
}
