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
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int64_t i64;
typedef void gemm_f(const char *, const char *, const i64 *, const i64 *, const i64 *, const void *, const void *,
                    const i64 *, const void *, const i64 *, const void *, void *, const i64 *, size_t, size_t);
typedef void syrk_f(const char *, const char *, const i64 *, const i64 *, const void *, const void *, const i64 *,
                    const void *, void *, const i64 *, size_t, size_t);
typedef void trsm_f(const char *, const char *, const char *, const char *, const i64 *, const i64 *, const void *,
                    const void *, const i64 *, void *, const i64 *, size_t, size_t, size_t, size_t);
typedef void cgemm_d(int, int, int, i64, i64, i64, double, const void *, i64, const void *, i64, double, void *, i64);
typedef void cgemm_z(int, int, int, i64, i64, i64, const void *, const void *, i64, const void *, i64, const void *,
                     void *, i64);
typedef void csyrk_d(int, int, int, i64, i64, double, const void *, i64, double, void *, i64);
typedef void ctrsm_d(int, int, int, int, int, i64, i64, double, const void *, i64, void *, i64);

enum { N = 8, CALLS = 100000, BATCHES = 5 };

static double a[2 * N * N], b[2 * N * N], c[2 * N * N];
static const double one[2] = { 1.0, 0.0 }, zero[2] = { 0.0, 0.0 };

static const char *const names[] = { "dgemm_64_",       "zgemm_64_",       "cblas_dgemm64_", "cblas_zgemm64_",
                                     "dsyrk_64_",       "zherk_64_",       "dtrsm_64_",      "cblas_dsyrk64_",
                                     "cblas_dtrsm64_",  "scipy_dgemm_64_", "scipy_cblas_dgemm64_",
                                     "scipy_cblas_dsyrk64_" };
enum { NROUTINES = sizeof names / sizeof names[0] };
static void (*routine[NROUTINES])(void);

/* The routines from HANDLE (RTLD_DEFAULT: the process's, the shim's when preloaded). */
static int find_routines(void *handle, const char *where)
{
    for (int r = 0; r < NROUTINES; r++) {
        void *sym = dlsym(handle, names[r]);
        if (!sym) {
            fprintf(stderr, "bench_forward_ilp64: %s not found in %s\n", names[r], where);
            return -1;
        }
        memcpy(&routine[r], &sym, sizeof sym);
    }
    return 0;
}

#define AS(type, r) ((type *)routine[r])
static void call(int r)
{
    static const i64 n = N;
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

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The fastest of a few batches: the least disturbed by the rest of the
 * machine.  TRSM's triangle has a unit diagonal: repeated solves stay finite. */
static double measure(int r)
{
    for (int i = 0; i < 2 * N * N; i++) {
        a[i] = 0.01 * (double)(i % 7) - 0.03;
        b[i] = 0.1 * (double)(i % 5) - 0.2;
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

/* Runs this program with --measure under the shim and PROVIDER; reads ns/call per routine. */
static int measure_preloaded(const char *self, const char *preload, double *ns)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        setenv("LD_PRELOAD", preload, 1);
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
        if (find_routines(RTLD_DEFAULT, "the process"))
            return 1;
        for (int r = 0; r < NROUTINES; r++)
            printf("%.3f\n", measure(r));
        return 0;
    }
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_forward_ilp64 PROVIDER /path/to/libtsshim.so [ROUNDS]\n");
        return 2;
    }
    void *provider = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!provider) {
        fprintf(stderr, "bench_forward_ilp64: %s\n", dlerror());
        return 1;
    }
    if (find_routines(provider, argv[1]))
        return 1;
    char preload[4096];
    snprintf(preload, sizeof preload, "%s %s", argv[2], argv[1]);
    int rounds = argc == 4 ? atoi(argv[3]) : 5;
    double plain[NROUTINES], shim[NROUTINES], s[NROUTINES];
    for (int r = 0; r < NROUTINES; r++)
        plain[r] = shim[r] = 1e30;
    for (int round = 0; round < rounds; round++) {
        for (int r = 0; r < NROUTINES; r++) {
            double p = measure(r);
            plain[r] = p < plain[r] ? p : plain[r];
        }
        if (measure_preloaded("/proc/self/exe", preload, s)) {
            fprintf(stderr, "bench_forward_ilp64: the run under LD_PRELOAD=%s failed\n", preload);
            return 1;
        }
        for (int r = 0; r < NROUTINES; r++)
            shim[r] = s[r] < shim[r] ? s[r] : shim[r];
    }
    printf("ILP64 names, m=n=k=8 (TRSM m=n=8), forwarded to %s; best of %d rounds of %d x %d calls\n", argv[1], rounds,
           BATCHES, CALLS);
    printf("%-21s %10s %10s %9s %7s\n", "routine", "plain ns", "tsshim ns", "overhead", "ratio");
    for (int r = 0; r < NROUTINES; r++)
        printf("%-21s %10.1f %10.1f %9.1f %7.3f\n", names[r], plain[r], shim[r], shim[r] - plain[r],
               shim[r] / plain[r]);
    printf("target: ratio <= 1.02\n");
    return 0;
}
