/* A short program timed whole (issue 22's R session): CPU work of its own
 * for about a second, then ONE GEMM, then exit.  The benchmark runs it as
 * a child process (this program again, `--child CASE`) and times it from
 * fork to exit, so whatever the shim does at load, at its first GPU call
 * and at exit (starting CUDA, waiting for a start) is in the figure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

/* Dependent integer steps on one core, no memory traffic: a fixed amount
 * of work, so plain and shim runs do the same (0.87 s on the development
 * machine's 2.6 GHz core), divided by E2E_SHRINK. */
static uint64_t cpu_work(void)
{
    long steps = 800000000L / e2e_shrink();
    uint64_t x = 1;
    for (long i = 0; i < steps; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    return x;
}

int e2e_program_child(const e2e_case *s)
{
    volatile uint64_t sink = cpu_work();
    (void)sink;
    int m = (int)e2e_dim(s->m), n = (int)e2e_dim(s->n), k = (int)e2e_dim(s->k);
    int lda = s->ta == 'N' ? m : k, ldb = s->tb == 'N' ? k : n;
    void *a = e2e_host_operand((size_t)m * k, s->prec, 1), *b = e2e_host_operand((size_t)k * n, s->prec, 2),
         *c = e2e_host_operand((size_t)m * n, s->prec, 3);
    double *want = calloc(6 * (size_t)n, sizeof *want), *c0 = want + 3 * n;
    if (!want)
        e2e_die("out of host memory");
    if (s->beta_one)
        e2e_op_sums(s->prec, 'N', m, n, c, m, c0, c0 + 2 * n);
    double t0 = e2e_now();
    e2e_gemm(s->prec)(&s->ta, &s->tb, &m, &n, &k, e2e_one(s->prec), a, &lda, b, &ldb,
                      s->beta_one ? e2e_one(s->prec) : e2e_zero(s->prec), c, &m, 1, 1);
    double took = e2e_now() - t0;
    e2e_product_sums(s->prec, s->ta, s->tb, m, n, k, a, lda, b, ldb, want, want + 2 * n);
    for (int j = 0; j < 3 * n; j++)
        want[j] += c0[j];
    printf("%.9g %s\n", took, e2e_check_c(s->name, s->prec, m, n, c, m, k, 1, want, want + 2 * n));
    return 0; /* through exit(), as a program ends: the shim's exit handlers run */
}

void e2e_run_program(const e2e_case *s, e2e_result *res)
{
    int fd[2];
    if (pipe(fd))
        e2e_die("cannot make a pipe");
    fflush(stdout);
    double t0 = e2e_now();
    pid_t pid = fork();
    if (pid < 0)
        e2e_die("cannot fork");
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        char *argv[] = { "bench_e2e", "--child", (char *)s->name, NULL };
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fd[1]);
    char line[256] = "", check[16] = "";
    FILE *from = fdopen(fd[0], "r");
    if (!from || !fgets(line, sizeof line, from))
        line[0] = 0;
    int status = 0;
    waitpid(pid, &status, 0);
    res->seconds = e2e_now() - t0;
    if (from)
        fclose(from);
    if (!WIFEXITED(status) || WEXITSTATUS(status) || sscanf(line, "%lf %15s", &res->first_s, check) != 2)
        e2e_die("the program case's child process failed");
    res->check = !strcmp(check, "ok") ? "ok" : "FAIL";
}
