/* Mid-size host-data calls (issue 42's first target): each shape class
 * (Gram/TSMTTSM, TSMM/ISM2, TSM2) in S, D and Z with operand blocks of
 * about 1, 4 and 16 MB in pageable memory, rewritten by the program before
 * every call, so that no cached copy can serve them.  Each case's time is
 * the median of the timed calls; its bound is the call's bytes (A and B
 * in, C out; beta = 0) at the pinned link rate this run measured.
 *
 *   [LD_PRELOAD=.libs/libtsshim.so TSSHIM_MODE=gpu] bench/bench_midsize [FILTER]
 *
 * FILTER: a substring of the cases to run, matched against CLASS_PREC_SIZEmb
 * (gram_d_1mb; TSM2's size reads 0mb there), e.g. gram_d or _4mb.
 *
 * Prints "case,bytes,us,bound_us,h2d_gbs,d2h_gbs" rows; without the shim
 * the time is the CPU BLAS's (bench/run-midsize.sh runs both and joins). */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *, const void *,
                     const void *, const int *, const void *, const int *, const void *, void *, const int *,
                     size_t, size_t);
gemm_fn sgemm_, dgemm_, zgemm_;

typedef struct {
    const char *cls;   /* gram, tsmm, tsm2 */
    char prec;         /* s, d, z */
    int mb;            /* size of the long operand block, MB (TSM2: A is 2048 x 2048) */
} shape;

static size_t elem(char p) { return p == 's' ? 4 : p == 'd' ? 8 : 16; }

enum { WARM = 3, TIMED = 15, W = 16 };

static void run(const shape *s, double h2d, double d2h)
{
    size_t es = elem(s->prec);
    int m, n, k, lda, ldb, ldc;
    char ta = 'N', tb = 'N';
    int64_t long_dim = ((int64_t)s->mb << 20) / (W * (int64_t)es);
    if (!strcmp(s->cls, "gram")) {         /* C (16 x 16) = A^T B, A and B long x 16 */
        ta = 'T';
        m = n = W;
        k = (int)long_dim;
        lda = ldb = k;
        ldc = W;
    } else if (!strcmp(s->cls, "tsmm")) {  /* C (long x 16) = A (long x 16) B (16 x 16) */
        m = (int)long_dim;
        n = k = W;
        lda = ldc = m;
        ldb = W;
    } else {                               /* C (m x 16) = A (m x k) B (k x 16), m = k */
        m = k = 2048;
        n = W;
        lda = ldc = m;
        ldb = k;
    }
    size_t a_bytes = (size_t)lda * (size_t)(ta == 'N' ? k : m) * es;
    size_t b_bytes = (size_t)ldb * (size_t)n * es, c_bytes = (size_t)ldc * (size_t)n * es;
    void *a = malloc(a_bytes), *b = malloc(b_bytes), *c = malloc(c_bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "bench_midsize: out of memory\n");
        exit(1);
    }
    srand(7);
    if (s->prec == 's')
        for (size_t i = 0; i < a_bytes / 4; i++)
            ((float *)a)[i] = (float)rand() / (float)RAND_MAX;
    else
        for (size_t i = 0; i < a_bytes / 8; i++)
            ((double *)a)[i] = (double)rand() / RAND_MAX;
    memcpy(b, a, b_bytes < a_bytes ? b_bytes : a_bytes);
    static const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
    static const float onef[2] = { 1, 0 }, zerof[2] = { 0, 0 };
    const void *alpha = s->prec == 's' ? (const void *)onef : one, *beta = s->prec == 's' ? (const void *)zerof : zero;
    gemm_fn *gemm = s->prec == 's' ? sgemm_ : s->prec == 'd' ? dgemm_ : zgemm_;
    double t[TIMED];
    for (int i = 0; i < WARM + TIMED; i++) {
        bench_rewrite(a, a_bytes, s->prec == 's', i);
        bench_rewrite(b, b_bytes, s->prec == 's', i);
        double t0 = bench_now();
        gemm(&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
        if (i >= WARM)
            t[i - WARM] = bench_now() - t0;
    }
    double median = bench_median(t, TIMED);
    double bound = bench_link_us((double)(a_bytes + b_bytes), (double)c_bytes, h2d, d2h);
    printf("%s_%c_%zumb,%zu,%.1f,%.1f,%.1f,%.1f\n", s->cls, s->prec, (a_bytes + (1 << 19)) >> 20, a_bytes + b_bytes + c_bytes,
           median * 1e6, bound, h2d, d2h);
    fflush(stdout);
    free(a);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "";
    double h2d, d2h;
    bench_link_rates(&h2d, &d2h);
    printf("case,bytes,us,bound_us,h2d_gbs,d2h_gbs\n");
    static const char *const classes[] = { "gram", "tsmm", "tsm2" };
    static const char precs[] = { 's', 'd', 'z' };
    static const int mbs[] = { 1, 4, 16 };
    for (int ci = 0; ci < 3; ci++)
        for (int pi = 0; pi < 3; pi++)
            for (int mi = 0; mi < (ci == 2 ? 1 : 3); mi++) {
                shape s = { classes[ci], precs[pi], ci == 2 ? 0 : mbs[mi] };
                char name[32]; /* the case's name, but TSM2's size */
                snprintf(name, sizeof name, "%s_%c_%dmb", s.cls, s.prec, s.mb);
                if (strstr(name, only))
                    run(&s, h2d, d2h);
            }
    return 0;
}
