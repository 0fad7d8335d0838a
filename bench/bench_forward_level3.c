/* Cost of the shim on forwarded SYRK, HERK, TRSM, SYMM, HEMM, TRMM, SYR2K
 * and HER2K calls of the smallest size (n = k = 8, m = n = 8), Fortran and
 * CBLAS: bench_forward's method
 * (bench/bench_forward.c) per routine.  Each routine is timed in this
 * process (linked against the CPU BLAS, no shim) and in a copy of it started
 * with LD_PRELOAD of the shim in auto mode; rounds alternate between the
 * two, each side keeps its fastest batch.
 *
 *   bench_forward_level3 /path/to/libtsshim.so [ROUNDS]
 *   bench_forward_level3 --null /path/to/libnullblas.so /path/to/libtsshim.so [ROUNDS]
 *
 * prints per routine ns per call without and with the shim and their ratio
 * (the target: at most 1.02).  With --null both sides call a BLAS that does
 * nothing (bench/null_blas.c, preloaded after the shim): the difference is
 * the shim's own cost, free of the real BLAS's variation from run to run.
 * --measure times the calls in the current process only, one line per
 * routine (what the child runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward_timing.h"

typedef void syrk_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, void *, const int *, size_t, size_t);
typedef void trsm_f(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                    const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
typedef void symm_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void syr2k_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                     const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void cblas_symm_d(int, int, int, int, int, double, const void *, int, const void *, int, double, void *, int);
typedef void cblas_symm_z(int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                          void *, int);
typedef void cblas_syr2k_d(int, int, int, int, int, double, const void *, int, const void *, int, double, void *, int);
typedef void cblas_her2k_z(int, int, int, int, int, const void *, const void *, int, const void *, int, double, void *,
                           int);
typedef void cblas_syrk_s(int, int, int, int, int, float, const void *, int, float, void *, int);
typedef void cblas_syrk_d(int, int, int, int, int, double, const void *, int, double, void *, int);
typedef void cblas_syrk_z(int, int, int, int, int, const void *, const void *, int, const void *, void *, int);
typedef void cblas_trsm_s(int, int, int, int, int, int, int, float, const void *, int, void *, int);
typedef void cblas_trsm_d(int, int, int, int, int, int, int, double, const void *, int, void *, int);
typedef void cblas_trsm_z(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);

enum { N = 8, CALLS = 100000, BATCHES = 5 };

/* Operands big enough for any precision; A well conditioned for TRSM.  B is
 * restored from B0 by nothing: repeated solves with alpha = 1 stay finite
 * (the triangle's diagonal is 1). */
static double a[2 * N * N], c[2 * N * N];
static const double one[2] = { 1.0, 0.0 }, zero[2] = { 0.0, 0.0 };
static const float onef[2] = { 1.0f, 0.0f }, zerof[2] = { 0.0f, 0.0f };

static const char *const names[] = { "ssyrk_",      "dsyrk_",      "csyrk_",      "zsyrk_",      "cherk_",
                                     "zherk_",      "strsm_",      "dtrsm_",      "ctrsm_",      "ztrsm_",
                                     "cblas_ssyrk", "cblas_dsyrk", "cblas_zsyrk", "cblas_zherk", "cblas_strsm",
                                     "cblas_dtrsm", "cblas_ztrsm", "dsymm_",      "zhemm_",      "dtrmm_",
                                     "ztrmm_",      "dsyr2k_",     "zher2k_",     "cblas_dsymm", "cblas_zhemm",
                                     "cblas_dtrmm", "cblas_dsyr2k", "cblas_zher2k" };
enum { NROUTINES = sizeof names / sizeof names[0] };

/* Each routine: the program's (the CPU BLAS it links, or the shim when
 * preloaded) or, with --null on the plain side, the null BLAS's. */
extern syrk_f ssyrk_, dsyrk_, csyrk_, zsyrk_, cherk_, zherk_;
extern trsm_f strsm_, dtrsm_, ctrsm_, ztrsm_;
extern cblas_syrk_s cblas_ssyrk;
extern cblas_syrk_d cblas_dsyrk, cblas_zherk;
extern cblas_syrk_z cblas_zsyrk;
extern cblas_trsm_s cblas_strsm;
extern cblas_trsm_d cblas_dtrsm;
extern cblas_trsm_z cblas_ztrsm;
extern symm_f dsymm_, zhemm_;
extern trsm_f dtrmm_, ztrmm_;
extern syr2k_f dsyr2k_, zher2k_;
extern cblas_symm_d cblas_dsymm;
extern cblas_symm_z cblas_zhemm;
extern cblas_trsm_d cblas_dtrmm;
extern cblas_syr2k_d cblas_dsyr2k;
extern cblas_her2k_z cblas_zher2k;
#define FN(f) ((void (*)(void))(f))
static void (*routine[NROUTINES])(void) = {
    FN(ssyrk_),      FN(dsyrk_),      FN(csyrk_),      FN(zsyrk_),      FN(cherk_),      FN(zherk_),
    FN(strsm_),      FN(dtrsm_),      FN(ctrsm_),      FN(ztrsm_),      FN(cblas_ssyrk), FN(cblas_dsyrk),
    FN(cblas_zsyrk), FN(cblas_zherk), FN(cblas_strsm), FN(cblas_dtrsm), FN(cblas_ztrsm), FN(dsymm_),
    FN(zhemm_),      FN(dtrmm_),      FN(ztrmm_),      FN(dsyr2k_),     FN(zher2k_),     FN(cblas_dsymm),
    FN(cblas_zhemm), FN(cblas_dtrmm), FN(cblas_dsyr2k), FN(cblas_zher2k)
};

#define AS(type, r) ((type *)routine[r])
/* CALLS calls of routine r. */
static void batch(int r, int calls)
{
    static const int n = N;
    for (int i = 0; i < calls; i++) {
        switch (r) {
        case 0: case 2: case 4: AS(syrk_f, r)("U", "N", &n, &n, onef, a, &n, zerof, c, &n, 1, 1); break;
        case 1: case 3: case 5: AS(syrk_f, r)("U", "N", &n, &n, one, a, &n, zero, c, &n, 1, 1); break;
        case 6: case 8: AS(trsm_f, r)("L", "U", "N", "U", &n, &n, onef, a, &n, c, &n, 1, 1, 1, 1); break;
        case 7: case 9: AS(trsm_f, r)("L", "U", "N", "U", &n, &n, one, a, &n, c, &n, 1, 1, 1, 1); break;
        case 10: AS(cblas_syrk_s, r)(102, 121, 111, n, n, 1.0f, a, n, 0.0f, c, n); break;
        case 11: AS(cblas_syrk_d, r)(102, 121, 111, n, n, 1.0, a, n, 0.0, c, n); break;
        case 12: AS(cblas_syrk_z, r)(102, 121, 111, n, n, one, a, n, zero, c, n); break;
        case 13: AS(cblas_syrk_d, r)(102, 121, 111, n, n, 1.0, a, n, 0.0, c, n); break;
        case 14: AS(cblas_trsm_s, r)(102, 141, 121, 111, 132, n, n, 1.0f, a, n, c, n); break;
        case 15: AS(cblas_trsm_d, r)(102, 141, 121, 111, 132, n, n, 1.0, a, n, c, n); break;
        case 16: AS(cblas_trsm_z, r)(102, 141, 121, 111, 132, n, n, one, a, n, c, n); break;
        case 17: case 18: AS(symm_f, r)("L", "U", &n, &n, one, a, &n, a, &n, zero, c, &n, 1, 1); break;
        case 19: case 20: AS(trsm_f, r)("L", "U", "N", "U", &n, &n, one, a, &n, c, &n, 1, 1, 1, 1); break;
        case 21: case 22: AS(syr2k_f, r)("U", "N", &n, &n, one, a, &n, a, &n, zero, c, &n, 1, 1); break;
        case 23: AS(cblas_symm_d, r)(102, 141, 121, n, n, 1.0, a, n, a, n, 0.0, c, n); break;
        case 24: AS(cblas_symm_z, r)(102, 141, 121, n, n, one, a, n, a, n, zero, c, n); break;
        case 25: AS(cblas_trsm_d, r)(102, 141, 121, 111, 132, n, n, 1.0, a, n, c, n); break;
        case 26: AS(cblas_syr2k_d, r)(102, 121, 111, n, n, 1.0, a, n, a, n, 0.0, c, n); break;
        case 27: AS(cblas_her2k_z, r)(102, 121, 111, n, n, one, a, n, a, n, 0.0, c, n); break;
        }
    }
}

static void fill(void)
{
    for (int i = 0; i < 2 * N * N; i++) {
        a[i] = 0.01 * (double)(i % 7) - 0.03;
        c[i] = (double)(i % 5) - 2.0;
    }
}

static const ft_bench bench = { "bench_forward_level3", fill, batch, NROUTINES, BATCHES, CALLS };

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--measure"))
        return ft_measure_main(&bench);
    const char *null_blas = NULL;
    if (argc > 2 && !strcmp(argv[1], "--null")) {
        null_blas = argv[2];
        argc -= 2, argv += 2;
    }
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_forward_level3 [--null libnullblas.so] /path/to/libtsshim.so [ROUNDS]\n");
        return 2;
    }
    if (null_blas && ft_open_routines(&bench, null_blas, names, routine))
        return 1;
    /* The child preloads the null BLAS after the shim: the shim forwards to it. */
    char preload[4096];
    snprintf(preload, sizeof preload, "%s%s%s", argv[1], null_blas ? " " : "", null_blas ? null_blas : "");
    int rounds = argc == 3 ? atoi(argv[2]) : 5;
    double plain[NROUTINES], shim[NROUTINES];
    if (ft_rounds(&bench, preload, rounds, plain, shim))
        return 1;
    printf("SYRK/HERK/SYR2K/HER2K n=k=8, TRSM/TRMM/SYMM/HEMM m=n=8%s; best of %d rounds of %d x %d calls\n",
           null_blas ? ", forwarded to a BLAS that does nothing" : "", rounds, BATCHES, CALLS);
    ft_print_table(names, NROUTINES, 12, plain, shim);
    printf(null_blas ? "the overhead column is the shim's cost per call\n" : "target: ratio <= 1.02\n");
    return 0;
}
