/* The end-to-end benchmark's result check: the column sums of C, e^T C,
 * against e^T op(A) op(B) computed in double precision without BLAS, so a
 * stale or wrong operand on the GPU (a device copy the program had
 * changed) shows up as an error, not as a speedup.  Cheap: one pass over
 * the operands and O(k n) arithmetic, where the GEMM does O(m n k).  In
 * double precision it sees a single changed element of A; in single
 * precision a changed column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "e2e.h"

/* Element (i, l) of op(X) as (re, im). */
static void get(char prec, char trans, const void *x, long ld, long i, long l, double *re, double *im)
{
    size_t at = trans == 'N' ? (size_t)i + (size_t)l * (size_t)ld : (size_t)l + (size_t)i * (size_t)ld;
    if (prec == 's') {
        *re = ((const float *)x)[at];
        *im = 0;
    } else if (prec == 'd') {
        *re = ((const double *)x)[at];
        *im = 0;
    } else {
        *re = ((const double *)x)[2 * at];
        *im = ((const double *)x)[2 * at + 1];
    }
}

typedef struct {
    char prec, trans;
    long rows;
    const void *a;
    long lda;
    double *u, *uabs;
} op_job;

static void op_part(long l0, long l1, int part, void *arg)
{
    (void)part;
    const op_job *j = arg;
    for (long l = l0; l < l1; l++) {
        double re = 0, im = 0, abs = 0, r, i;
        for (long row = 0; row < j->rows; row++) {
            get(j->prec, j->trans, j->a, j->lda, row, l, &r, &i);
            re += r;
            im += i;
            abs += fabs(r) + fabs(i);
        }
        j->u[2 * l] = re;
        j->u[2 * l + 1] = im;
        j->uabs[l] = abs;
    }
}

void e2e_op_sums(char prec, char trans, long rows, long cols, const void *a, long lda, double *u, double *uabs)
{
    if (trans != 'N' && trans != 'T')
        e2e_die("the checks know op 'N' and 'T' only");
    op_job j = { prec, trans, rows, a, lda, u, uabs };
    e2e_parallel(cols, op_part, &j);
}

typedef struct {
    char prec, tb;
    long n;
    const double *u, *uabs;
    const void *b;
    long ldb;
    double *partial; /* per part: 2n sums, then n scales */
} times_job;

static void times_part(long l0, long l1, int part, void *arg)
{
    const times_job *j = arg;
    double *x = j->partial + (size_t)part * 3 * (size_t)j->n, *scale = x + 2 * j->n;
    for (long l = l0; l < l1; l++) {
        double ur = j->u[2 * l], ui = j->u[2 * l + 1], ua = j->uabs[l], br, bi;
        for (long c = 0; c < j->n; c++) {
            get(j->prec, j->tb, j->b, j->ldb, l, c, &br, &bi);
            x[2 * c] += ur * br - ui * bi;
            x[2 * c + 1] += ur * bi + ui * br;
            scale[c] += ua * (fabs(br) + fabs(bi));
        }
    }
}

void e2e_sums_times(char prec, char tb, long k, long n, const double *u, const double *uabs, const void *b, long ldb,
                    double *x, double *scale)
{
    if (tb != 'N' && tb != 'T')
        e2e_die("the checks know op 'N' and 'T' only");
    double *partial = calloc((size_t)E2E_MAX_PARTS * 3 * (size_t)n, sizeof *partial);
    if (!partial)
        e2e_die("out of host memory");
    times_job j = { prec, tb, n, u, uabs, b, ldb, partial };
    int parts = e2e_parallel(k, times_part, &j);
    for (long c = 0; c < 3 * n; c++) {
        double s = 0;
        for (int p = 0; p < parts; p++)
            s += partial[(size_t)p * 3 * (size_t)n + (size_t)c];
        if (c < 2 * n)
            x[c] = s;
        else
            scale[c - 2 * n] = s;
    }
    free(partial);
}

void e2e_product_sums(char prec, char ta, char tb, long m, long n, long k, const void *a, long lda, const void *b,
                      long ldb, double *x, double *scale)
{
    double *u = malloc(3 * (size_t)k * sizeof *u);
    if (!u)
        e2e_die("out of host memory");
    e2e_op_sums(prec, ta, m, k, a, lda, u, u + 2 * k);
    e2e_sums_times(prec, tb, k, n, u, u + 2 * k, b, ldb, x, scale);
    free(u);
}

const char *e2e_compare(const char *what, char prec, long m, long n, long k, long adds, const double *got,
                        const double *want, const double *scale)
{
    /* Rounding errors of random data add up like a random walk: about
     * eps sqrt(k) of the scale in the GEMM, eps sqrt(m) in the sum over
     * rows, eps per update of C; 16 times that leaves room for any
     * summation order and still sees a wrong operand. */
    double eps = prec == 's' ? ldexp(1, -24) : ldexp(1, -53);
    double bound = 16 * eps * (sqrt((double)k) + sqrt((double)m) + (double)adds);
    for (long c = 0; c < n; c++)
        for (int part = 0; part < (prec == 'z' ? 2 : 1); part++) {
            double g = got[2 * c + part], w = want[2 * c + part], tol = bound * scale[c] + 1e-300;
            if (!(fabs(g - w) <= tol)) {
                fprintf(stderr, "bench_e2e: %s: WRONG RESULT: column %ld checksum %.17g, expected %.17g (tolerance %.3g)\n",
                        what, c, g, w, tol);
                return "FAIL";
            }
        }
    return "ok";
}

const char *e2e_check_c(const char *what, char prec, long m, long n, const void *c, long ldc, long k, long adds,
                        const double *want, const double *scale)
{
    double *got = malloc(3 * (size_t)n * sizeof *got);
    if (!got)
        e2e_die("out of host memory");
    e2e_op_sums(prec, 'N', m, n, c, ldc, got, got + 2 * n);
    const char *r = e2e_compare(what, prec, m, n, k, adds, got, want, scale);
    free(got);
    return r;
}

const char *e2e_worse(const char *a, const char *b)
{
    return a[0] == 'F' ? a : b[0] == 'F' ? b : a[0] == 'o' ? a : b;
}
