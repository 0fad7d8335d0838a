/* Cases whose big operand is the same host memory in every call, as in
 * iterative programs (issue 21: a device copy kept across calls sends it
 * once).  Each call is timed alone and checked (e2e_check.c) between
 * calls, untimed: the first call, with a cold cache, apart from the mean
 * of the later ones.  Before the first, e2e_start_gpu has started the GPU
 * on other memory, so the first call shows the cache's miss and not the
 * GPU's start (the program cases show that). */
#include <math.h>
#include <stdlib.h>

#include "e2e.h"

typedef struct {
    double first, later, steady;
    int calls;
    const char *check;
} series;

/* Calls (iterations) before the steady state: the cache's first copy, and
 * auto mode's rent-or-buy choice, which keeps a new operand's first calls
 * on the CPU. */
enum { SETTLING_CALLS = 3 };

static void add(series *s, double seconds, const char *check)
{
    if (s->calls == 0)
        s->first = seconds;
    else
        s->later += seconds;
    if (s->calls >= SETTLING_CALLS && (s->steady < 0 || seconds < s->steady))
        s->steady = seconds;
    s->calls++;
    s->check = e2e_worse(s->check, check);
}

static void report(const series *s, e2e_result *res)
{
    res->first_s = s->first;
    res->seconds = s->calls > 1 ? s->later / (s->calls - 1) : s->first;
    res->steady_s = s->steady;
    res->check = s->check;
}

static double *vector(long doubles)
{
    double *v = calloc((size_t)doubles, sizeof *v);
    if (!v)
        e2e_die("out of host memory");
    return v;
}

static double timed_dgemm(char ta, char tb, int m, int n, int k, const double *a, int lda, const double *b, int ldb,
                          double *c, int ldc)
{
    double t0 = e2e_now();
    dgemm_(&ta, &tb, &m, &n, &k, e2e_one('d'), a, &lda, b, &ldb, e2e_zero('d'), c, &ldc, 1, 1);
    return e2e_now() - t0;
}

/* C = A B with the same m x k A in every call.  rewrite 0: a new B each
 * call, written by the program before it (untimed); rewrite 1: the same B,
 * and before each call after the first the program rewrites one column of
 * A, timed with the call (the write is where a write tracker costs). */
static void same_a(const e2e_case *s, e2e_result *res, int rewrite)
{
    int m = (int)e2e_dim(s->m), n = (int)e2e_dim(s->n), k = (int)e2e_dim(s->k);
    double *a = e2e_host_operand((size_t)m * k, 'd', 1), *b = e2e_host_operand((size_t)k * n, 'd', 2),
           *c = e2e_host_operand((size_t)m * n, 'd', 3);
    /* e^T A once, then per call its product with B: the check costs O(k n). */
    double *u = vector(3L * k), *want = vector(3L * n);
    e2e_op_sums('d', 'N', m, k, a, m, u, u + 2 * k);
    e2e_start_gpu();
    series t = { 0, 0, -1, 0, "ok" };
    for (int call = 0; call < s->calls; call++) {
        if (!rewrite && call > 0)
            e2e_fill(b, (size_t)k * n, 'd', 100 + call);
        long col = (call * 7919L) % k;
        double t0 = e2e_now();
        if (rewrite && call > 0)
            for (long i = 0; i < m; i++)
                a[col * m + i] = (double)((i * 31 + call) % 1000) / 1000 - 0.5;
        double took = e2e_now() - t0 + timed_dgemm('N', 'N', m, n, k, a, m, b, k, c, m);
        if (rewrite && call > 0)
            e2e_op_sums('d', 'N', m, 1, a + col * m, m, u + 2 * col, u + 2 * k + col);
        e2e_sums_times('d', 'N', k, n, u, u + 2 * k, b, k, want, want + 2 * n);
        add(&t, took, e2e_check_c(s->name, 'd', m, n, c, m, k, 1, want, want + 2 * n));
    }
    report(&t, res);
    free(a), free(b), free(c), free(u), free(want);
}

void e2e_run_reuse(const e2e_case *s, e2e_result *res) { same_a(s, res, 0); }

void e2e_run_rewrite(const e2e_case *s, e2e_result *res) { same_a(s, res, 1); }

/* G = A^T A of the same k x w block, again and again (both operands are
 * the same memory). */
void e2e_run_gram(const e2e_case *s, e2e_result *res)
{
    int w = (int)e2e_dim(s->m), k = (int)e2e_dim(s->k);
    double *a = e2e_host_operand((size_t)k * w, 'd', 1), *g = vector((long)w * w), *want = vector(3L * w);
    e2e_product_sums('d', 'T', 'N', w, w, k, a, k, a, k, want, want + 2 * w);
    e2e_start_gpu();
    series t = { 0, 0, -1, 0, "ok" };
    for (int call = 0; call < s->calls; call++) {
        double took = timed_dgemm('T', 'N', w, w, k, a, k, a, k, g, w);
        add(&t, took, e2e_check_c(s->name, 'd', w, w, g, w, k, 1, want, want + 2 * w));
    }
    report(&t, res);
    free(a), free(g), free(want);
}

/* Block power iteration, as the demo and subspace methods run it:
 * W = A V (A n x n, V n x b), G = V^T W, V = W Q (Q b x b), `calls`
 * iterations; the time of an iteration is its three calls'.  Q scales by
 * sqrt(12 / n), the inverse of A's gain on random data, so V keeps its size. */
void e2e_run_chain(const e2e_case *s, e2e_result *res)
{
    int n = (int)e2e_dim(s->m), b = (int)s->n;
    double *a = e2e_host_operand((size_t)n * n, 'd', 1), *v = e2e_host_operand((size_t)n * b, 'd', 2),
           *w = vector((long)n * b), *g = vector((long)b * b), *q = e2e_host_operand((size_t)b * b, 'd', 4);
    for (int i = 0; i < b * b; i++)
        q[i] = sqrt(12.0 / n) * ((i % (b + 1) == 0) + 0.1 * q[i]);
    double *u = vector(3L * n), *want = vector(3L * n);
    e2e_op_sums('d', 'N', n, n, a, n, u, u + 2 * n);
    e2e_start_gpu();
    series t = { 0, 0, -1, 0, "ok" };
    for (int it = 0; it < s->calls; it++) {
        double took = timed_dgemm('N', 'N', n, b, n, a, n, v, n, w, n);
        e2e_sums_times('d', 'N', n, b, u, u + 2 * n, v, n, want, want + 2 * b);
        const char *check = e2e_check_c("chain W = A V", 'd', n, b, w, n, n, 1, want, want + 2 * b);
        took += timed_dgemm('T', 'N', b, b, n, v, n, w, n, g, b);
        e2e_product_sums('d', 'T', 'N', b, b, n, v, n, w, n, want, want + 2 * b);
        check = e2e_worse(check, e2e_check_c("chain G = V^T W", 'd', b, b, g, b, n, 1, want, want + 2 * b));
        took += timed_dgemm('N', 'N', n, b, b, w, n, q, b, v, n);
        e2e_product_sums('d', 'N', 'N', n, b, b, w, n, q, b, want, want + 2 * b);
        check = e2e_worse(check, e2e_check_c("chain V = W Q", 'd', n, b, v, n, b, 1, want, want + 2 * b));
        add(&t, took, check);
    }
    report(&t, res);
    free(a), free(v), free(w), free(g), free(q), free(u), free(want);
}
