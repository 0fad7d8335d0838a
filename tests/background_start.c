/* Programs for the GPU's background start in auto mode (background_start.sh
 * runs them under the shim).  Each makes a square D GEMM (512, short on any
 * CPU) that the model sends to the GPU, which begins the start on a thread
 * of the shim's own; every
 * result is compared with OpenBLAS, and the exit status says whether all
 * matched.
 *   background_start main|exit|thread|other DELAY_MS
 *       one such call, DELAY_MS of sleep, then the program ends while the
 *       start may still run: by returning from main, by exit(), by exit()
 *       from the thread that made the call, or by exit() from a thread that
 *       made no BLAS call (the call on the initial thread).
 *   background_start fork
 *       one such call, then fork() at once: the child makes another (on the
 *       CPU) and exits; the parent prints "parent PID child PID", waits and
 *       makes one more.
 *   background_start hidden
 *       one such call of 4096, a second of CPU work (small GEMMs, which
 *       stay on the CPU), then HIDDEN_CALLS more: by then the start is done
 *       and they can run on the GPU.
 *   background_start prelude
 *       a second of CPU work first, then one call of 4096: a short program
 *       whose one GPU-worthy call comes last (TSSHIM_BACKGROUND_START=2
 *       starts the GPU at load, so that call can run there). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checked_gemm.h"
#include "gemm_cases.h"

enum { EXIT_N = 512, HIDDEN_N = 4096, HIDDEN_CALLS = 3, SMALL_N = 64, WATCHDOG_S = 120 };

static checked_gemm big;
static long delay_ms;

static int big_call_ok(void) { return cg_ratio_ok(&big, cg_run_host(&big, cg_tested(TS_D))); }

static void sleep_ms(long ms) { nanosleep(&(struct timespec){ ms / 1000, ms % 1000 * 1000000 }, NULL); }

static void *call_then_exit(void *unused)
{
    (void)unused;
    int ok = big_call_ok();
    sleep_ms(delay_ms);
    exit(ok ? 0 : 1);
}

static void *wait_then_exit(void *ok)
{
    sleep_ms(delay_ms);
    exit(*(int *)ok ? 0 : 1);
}

/* Runs body on a new thread, which ends the process. */
static int exit_from_thread(void *(*body)(void *), void *arg)
{
    pthread_t t;
    if (pthread_create(&t, NULL, body, arg))
        return 2;
    pthread_join(t, NULL);
    return 2; /* not reached */
}

static int end_during_start(const char *how)
{
    if (!strcmp(how, "thread"))
        return exit_from_thread(call_then_exit, NULL);
    int ok = big_call_ok();
    if (!strcmp(how, "other"))
        return exit_from_thread(wait_then_exit, &ok);
    sleep_ms(delay_ms);
    if (!strcmp(how, "exit"))
        exit(ok ? 0 : 1);
    return ok ? 0 : 1;
}

static int fork_during_start(void)
{
    int ok = big_call_ok();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        alarm(WATCHDOG_S);
        exit(big_call_ok() ? 0 : 1);
    }
    printf("parent %ld child %ld\n", (long)getpid(), (long)pid);
    int status = 0;
    ok &= waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ok &= big_call_ok();
    return ok ? 0 : 1;
}

/* A second of small GEMMs (which stay on the CPU); whether all matched. */
static int cpu_work(void)
{
    checked_gemm small;
    cg_prepare(&small, "small", TS_D, 'N', 'N', SMALL_N, SMALL_N, SMALL_N, 0);
    int ok = 1;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        ok &= cg_ratio_ok(&small, cg_run_host(&small, cg_tested(TS_D)));
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < 1.0);
    cg_free(&small);
    return ok;
}

static int start_hidden(void)
{
    int ok = big_call_ok();
    ok &= cpu_work();
    for (int i = 0; i < HIDDEN_CALLS; i++)
        ok &= big_call_ok();
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    char err[512];
    const char *what = argc > 1 ? argv[1] : "";
    if (ref_blas_open(err, sizeof err)) {
        printf("reference BLAS: %s\n", err);
        return 2;
    }
    alarm(WATCHDOG_S);
    delay_ms = argc > 2 ? atol(argv[2]) : 0;
    gc_seed(7);
    int hidden = !strcmp(what, "hidden"), prelude = !strcmp(what, "prelude");
    int n = hidden || prelude ? HIDDEN_N : EXIT_N;
    cg_prepare(&big, "square", TS_D, 'N', 'N', n, n, n, 0);
    if (hidden)
        return start_hidden();
    if (prelude)
        return cpu_work() && big_call_ok() ? 0 : 1;
    if (!strcmp(what, "fork"))
        return fork_during_start();
    if (!strcmp(what, "main") || !strcmp(what, "exit") || !strcmp(what, "thread") || !strcmp(what, "other"))
        return end_during_start(what);
    printf("usage: background_start main|exit|thread|other DELAY_MS | fork | hidden | prelude\n");
    return 2;
}
