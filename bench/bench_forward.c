/* Cost of the shim on a call it forwards: many 8x8x8 dgemm_ calls, timed in
 * this process (linked against the CPU BLAS, no shim) and in a copy of it
 * started with LD_PRELOAD of the shim in auto mode.  Rounds alternate between
 * the two so that drift of the machine's speed hits both alike; each side
 * keeps its fastest batch.
 *
 *   bench_forward /path/to/libtsshim.so [ROUNDS]
 *
 * prints ns per call without and with the shim and their ratio (the target:
 * at most 1.05).  With --measure it only times the calls in the
 * current process and prints ns per call (what the child runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward_timing.h"

extern void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
                   const double *, const int *, const double *, const int *, const double *, double *,
                   const int *, size_t, size_t);

enum { N = 8, CALLS = 200000, BATCHES = 5 };

static double a[N * N], b[N * N], c[N * N];

static void fill(void)
{
    for (int i = 0; i < N * N; i++) {
        a[i] = (double)(i % 7) - 3.0;
        b[i] = (double)(i % 5) - 2.0;
    }
}

/* CALLS calls of the one routine (r = 0). */
static void batch(int r, int calls)
{
    static const int n = N;
    static const double alpha = 1.0, beta = 0.0;
    (void)r;
    for (int i = 0; i < calls; i++)
        dgemm_("N", "N", &n, &n, &n, &alpha, a, &n, b, &n, &beta, c, &n, 1, 1);
}

static const ft_bench bench = { "bench_forward", fill, batch, 1, BATCHES, CALLS };

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--measure"))
        return ft_measure_main(&bench);
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s /path/to/libtsshim.so [ROUNDS]\n", argv[0]);
        return 2;
    }
    int rounds = argc == 3 ? atoi(argv[2]) : 5;
    double plain, shim;
    if (ft_rounds(&bench, argv[1], rounds, &plain, &shim))
        return 1;
    printf("dgemm_ 8x8x8, best of %d rounds of %d x %d calls\n", rounds, BATCHES, CALLS);
    printf("plain CPU BLAS   %8.1f ns/call\n", plain);
    printf("tsshim auto      %8.1f ns/call\n", shim);
    printf("overhead         %8.1f ns/call, ratio %.3f (target <= 1.05)\n", shim - plain, shim / plain);
    return 0;
}
