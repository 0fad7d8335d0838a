/* The timing harness of the forwarding benchmarks (bench_forward,
 * bench_forward_level3, bench_forward_ilp64): each routine is timed in this
 * process and in a copy of it started with --measure under LD_PRELOAD of
 * the shim in auto mode; rounds alternate between the two so that drift of
 * the machine's speed hits both alike, and each side keeps its fastest
 * batch.  Header-only, as tests/tap.h. */
#ifndef TS_FORWARD_TIMING_H
#define TS_FORWARD_TIMING_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One benchmark of routines 0 to count - 1: batch(r, calls) makes CALLS
 * calls of routine r, timed after fill() has set the operands.  The loop is
 * the program's so that the compiler inlines the call into it: a call
 * through a pointer per iteration would add to both sides. */
typedef struct {
    const char *prog; /* for messages */
    void (*fill)(void);
    void (*batch)(int r, int calls);
    int count, batches, calls;
} ft_bench;

static inline double ft_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The fastest of a few batches: the least disturbed by the rest of the machine. */
static inline double ft_measure(const ft_bench *b, int r)
{
    b->fill();
    double best = 1e30;
    for (int batch = 0; batch < b->batches; batch++) {
        double t0 = ft_now_ns();
        b->batch(r, b->calls);
        double ns = (ft_now_ns() - t0) / b->calls;
        if (ns < best)
            best = ns;
    }
    return best;
}

/* What --measure prints: ns per call, one line per routine. */
static inline int ft_measure_main(const ft_bench *b)
{
    for (int r = 0; r < b->count; r++)
        printf("%.3f\n", ft_measure(b, r));
    return 0;
}

/* Runs this program with --measure under PRELOAD; reads ns/call per routine. */
static inline int ft_measure_preloaded(const ft_bench *b, const char *preload, double *ns)
{
    const char *self = "/proc/self/exe";
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
    while (in && got < b->count && fscanf(in, "%lf", &ns[got]) == 1)
        got++;
    if (in)
        fclose(in);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || got != b->count)
        return -1;
    return 0;
}

/* ROUNDS rounds of both sides; the best ns/call per routine in PLAIN and
 * SHIM (count entries each).  -1, said on stderr, when the child failed. */
static inline int ft_rounds(const ft_bench *b, const char *preload, int rounds, double *plain, double *shim)
{
    double *s = malloc(sizeof *s * (size_t)b->count);
    if (!s)
        return -1;
    for (int r = 0; r < b->count; r++)
        plain[r] = shim[r] = 1e30;
    for (int round = 0; round < rounds; round++) {
        for (int r = 0; r < b->count; r++) {
            double p = ft_measure(b, r);
            plain[r] = p < plain[r] ? p : plain[r];
        }
        if (ft_measure_preloaded(b, preload, s)) {
            fprintf(stderr, "%s: the run under LD_PRELOAD=%s failed\n", b->prog, preload);
            free(s);
            return -1;
        }
        for (int r = 0; r < b->count; r++)
            shim[r] = s[r] < shim[r] ? s[r] : shim[r];
    }
    free(s);
    return 0;
}

/* The per-routine table, names WIDTH wide. */
static inline void ft_print_table(const char *const *names, int count, int width, const double *plain,
                                  const double *shim)
{
    printf("%-*s %10s %10s %9s %7s\n", width, "routine", "plain ns", "tsshim ns", "overhead", "ratio");
    for (int r = 0; r < count; r++)
        printf("%-*s %10.1f %10.1f %9.1f %7.3f\n", width, names[r], plain[r], shim[r], shim[r] - plain[r],
               shim[r] / plain[r]);
}

/* Fills ROUTINE from HANDLE (RTLD_DEFAULT: the process's, the shim's when
 * preloaded) by NAMES; WHERE names HANDLE in the message. */
static inline int ft_find_routines(const ft_bench *b, void *handle, const char *where, const char *const *names,
                                   void (**routine)(void))
{
    for (int r = 0; r < b->count; r++) {
        void *sym = dlsym(handle, names[r]);
        if (!sym) {
            fprintf(stderr, "%s: %s not found in %s\n", b->prog, names[r], where);
            return -1;
        }
        memcpy(&routine[r], &sym, sizeof sym);
    }
    return 0;
}

/* ft_find_routines from the library at PATH, opened privately. */
static inline int ft_open_routines(const ft_bench *b, const char *path, const char *const *names,
                                   void (**routine)(void))
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s: %s\n", b->prog, dlerror());
        return -1;
    }
    return ft_find_routines(b, h, path, names, routine);
}

#endif
