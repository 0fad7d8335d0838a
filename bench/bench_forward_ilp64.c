/* Cost of the shim on forwarded calls of the ILP64 names (dgemm_64_,
 * scipy_cblas_dgemm64_, ...) of the smallest size (8 x 8, k = 8):
 * bench_forward_level3's method.  Each routine is timed in this process,
 * taken from PROVIDER (opened with dlopen, no shim), and in a copy of it
 * started with LD_PRELOAD of the shim and PROVIDER in auto mode, where the
 * name binds to the shim, which forwards to PROVIDER; rounds alternate,
 * each side keeps its fastest batch.
 *
 *   bench_forward_ilp64 PROVIDER /path/to/libtsshim.so [ROUNDS]
 *
 * PROVIDER: an ILP64 BLAS under these names (tests/.libs/libilp64_provider.so
 * gives Debian's libopenblas64 them), or bench/.libs/libnullblas.so, which
 * does nothing: then the difference is the shim's own cost per call.
 * Prints per routine ns per call without and with the shim and their ratio
 * (the target: at most 1.02).  --measure times the calls in the current
 * process only (what the child runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward_timing.h"
#include "ilp64_types.h"

enum { N = 8, CALLS = 100000, BATCHES = 5 };

static double a[2 * N * N], b[2 * N * N], c[2 * N * N];
static const double one[2] = { 1.0, 0.0 }, zero[2] = { 0.0, 0.0 };

static const char *const names[] = { "dgemm_64_",       "zgemm_64_",       "cblas_dgemm64_", "cblas_zgemm64_",
                                     "dsyrk_64_",       "zherk_64_",       "dtrsm_64_",      "cblas_dsyrk64_",
                                     "cblas_dtrsm64_",  "scipy_dgemm_64_", "scipy_cblas_dgemm64_",
                                     "scipy_cblas_dsyrk64_" };
enum { NROUTINES = sizeof names / sizeof names[0] };
static void (*routine[NROUTINES])(void);

#define AS(type, r) ((type *)routine[r])
/* CALLS calls of routine r. */
static void batch(int r, int calls)
{
    static const i64 n = N;
    for (int i = 0; i < calls; i++) {
        switch (r) {
        case 0: case 9: AS(gemm_f, r)("N", "N", &n, &n, &n, one, a, &n, b, &n, zero, c, &n, 1, 1); break;
        case 1: AS(gemm_f, r)("N", "N", &n, &n, &n, one, a, &n, b, &n, zero, c, &n, 1, 1); break;
        case 2: case 10: AS(cgemm_d, r)(102, 111, 111, n, n, n, 1.0, a, n, b, n, 0.0, c, n); break;
        case 3: AS(cgemm_z, r)(102, 111, 111, n, n, n, one, a, n, b, n, zero, c, n); break;
        case 4: case 5: AS(syrk_f, r)("U", "N", &n, &n, one, a, &n, zero, c, &n, 1, 1); break;
        case 6: AS(trsm_f, r)("L", "U", "N", "U", &n, &n, one, a, &n, c, &n, 1, 1, 1, 1); break;
        case 7: case 11: AS(csyrk_d, r)(102, 121, 111, n, n, 1.0, a, n, 0.0, c, n); break;
        case 8: AS(ctrsm_d, r)(102, 141, 121, 111, 132, n, n, 1.0, a, n, c, n); break;
        }
    }
}

/* TRSM's triangle has a unit diagonal: repeated solves stay finite. */
static void fill(void)
{
    for (int i = 0; i < 2 * N * N; i++) {
        a[i] = 0.01 * (double)(i % 7) - 0.03;
        b[i] = 0.1 * (double)(i % 5) - 0.2;
        c[i] = (double)(i % 5) - 2.0;
    }
}

static const ft_bench bench = { "bench_forward_ilp64", fill, batch, NROUTINES, BATCHES, CALLS };

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--measure")) {
        if (ft_find_routines(&bench, RTLD_DEFAULT, "the process", names, routine))
            return 1;
        return ft_measure_main(&bench);
    }
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_forward_ilp64 PROVIDER /path/to/libtsshim.so [ROUNDS]\n");
        return 2;
    }
    if (ft_open_routines(&bench, argv[1], names, routine))
        return 1;
    char preload[4096];
    snprintf(preload, sizeof preload, "%s %s", argv[2], argv[1]);
    int rounds = argc == 4 ? atoi(argv[3]) : 5;
    double plain[NROUTINES], shim[NROUTINES];
    if (ft_rounds(&bench, preload, rounds, plain, shim))
        return 1;
    printf("ILP64 names, m=n=k=8 (TRSM m=n=8), forwarded to %s; best of %d rounds of %d x %d calls\n", argv[1], rounds,
           BATCHES, CALLS);
    ft_print_table(names, NROUTINES, 21, plain, shim);
    printf("target: ratio <= 1.02\n");
    return 0;
}
