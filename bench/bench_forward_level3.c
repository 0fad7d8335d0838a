/* Cost of the shim on forwarded SYRK, HERK and TRSM calls of the smallest
 * size (n = k = 8, m = n = 8), Fortran and CBLAS: bench_forward's method
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
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void syrk_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, void *, const int *, size_t, size_t);
typedef void trsm_f(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                    const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
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
                                     "cblas_dtrsm", "cblas_ztrsm" };
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
#define FN(f) ((void (*)(void))(f))
static void (*routine[NROUTINES])(void) = {
    FN(ssyrk_),      FN(dsyrk_),      FN(csyrk_),      FN(zsyrk_),      FN(cherk_),      FN(zherk_),
    FN(strsm_),      FN(dtrsm_),      FN(ctrsm_),      FN(ztrsm_),      FN(cblas_ssyrk), FN(cblas_dsyrk),
    FN(cblas_zsyrk), FN(cblas_zherk), FN(cblas_strsm), FN(cblas_dtrsm), FN(cblas_ztrsm)
};

static int use_null_blas(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    for (int r = 0; r < NROUTINES; r++) {
        void *sym = h ? dlsym(h, names[r]) : NULL;
        if (!sym) {
            fprintf(stderr, "bench_forward_level3: %s not found in %s\n", names[r], path);
            return -1;
        }
        memcpy(&routine[r], &sym, sizeof sym);
    }
    return 0;
}

#define AS(type, r) ((type *)routine[r])
static void call(int r)
{
    static const int n = N;
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
    }
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The fastest of a few batches: the least disturbed by the rest of the machine. */
static double measure(int r)
{
    for (int i = 0; i < 2 * N * N; i++) {
        a[i] = 0.01 * (double)(i % 7) - 0.03;
        c[i] = (double)(i % 5) - 2.0;
    }
    double best = 1e30;
    for (int batch = 0; batch < BATCHES; batch++) {
        double t0 = now_ns();
        for (int i = 0; i < CALLS; i++)
            call(r);
        double ns = (now_ns() - t0) / CALLS;
        if (ns < best)
            best = ns;
    }
    return best;
}

/* Runs this program with --measure under the shim; reads ns/call per routine. */
static int measure_preloaded(const char *self, const char *shim, double *ns)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        setenv("LD_PRELOAD", shim, 1);
        setenv("TSSHIM_MODE", "auto", 1);
        execl(self, self, "--measure", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = pid > 0 ? fdopen(fd[0], "r") : NULL;
    int got = 0;
    while (in && got < NROUTINES && fscanf(in, "%lf", &ns[got]) == 1)
        got++;
    if (in)
        fclose(in);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || got != NROUTINES)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--measure")) {
        for (int r = 0; r < NROUTINES; r++)
            printf("%.3f\n", measure(r));
        return 0;
    }
    const char *null_blas = NULL;
    if (argc > 2 && !strcmp(argv[1], "--null")) {
        null_blas = argv[2];
        argc -= 2, argv += 2;
    }
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_forward_level3 [--null libnullblas.so] /path/to/libtsshim.so [ROUNDS]\n");
        return 2;
    }
    if (null_blas && use_null_blas(null_blas))
        return 1;
    /* The child preloads the null BLAS after the shim: the shim forwards to it. */
    char preload[4096];
    snprintf(preload, sizeof preload, "%s%s%s", argv[1], null_blas ? " " : "", null_blas ? null_blas : "");
    int rounds = argc == 3 ? atoi(argv[2]) : 5;
    double plain[NROUTINES], shim[NROUTINES], s[NROUTINES];
    for (int r = 0; r < NROUTINES; r++)
        plain[r] = shim[r] = 1e30;
    for (int round = 0; round < rounds; round++) {
        for (int r = 0; r < NROUTINES; r++) {
            double p = measure(r);
            plain[r] = p < plain[r] ? p : plain[r];
        }
        if (measure_preloaded("/proc/self/exe", preload, s)) {
            fprintf(stderr, "bench_forward_level3: the run under LD_PRELOAD=%s failed\n", preload);
            return 1;
        }
        for (int r = 0; r < NROUTINES; r++)
            shim[r] = s[r] < shim[r] ? s[r] : shim[r];
    }
    printf("SYRK/HERK n=k=8, TRSM m=n=8%s; best of %d rounds of %d x %d calls\n",
           null_blas ? ", forwarded to a BLAS that does nothing" : "", rounds, BATCHES, CALLS);
    printf("%-12s %10s %10s %9s %7s\n", "routine", "plain ns", "tsshim ns", "overhead", "ratio");
    for (int r = 0; r < NROUTINES; r++)
        printf("%-12s %10.1f %10.1f %9.1f %7.3f\n", names[r], plain[r], shim[r], shim[r] - plain[r], shim[r] / plain[r]);
    printf(null_blas ? "the overhead column is the shim's cost per call\n" : "target: ratio <= 1.02\n");
    return 0;
}
