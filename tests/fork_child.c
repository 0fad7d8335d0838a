/* fork() in a process that already ran GEMMs on the GPU: the child's calls
 * must be correct and run on the CPU (a CUDA context does not survive fork),
 * the parent's later calls must be correct and still run on the GPU.
 * The script runs this under the shim with TSSHIM_MODE=gpu, TSSHIM_VERBOSE=3
 * and TSSHIM_LOG=DIR/log.%p, so each process traces its calls to its own file.
 * Usage: fork_child gpu|nogpu   (whether a CUDA device is present)
 * With TS_CHILD_QUICK_EXIT set, the child leaves through _exit() after
 * flushing its streams: compute-sanitizer hangs any CUDA process whose forked
 * child calls exit() (reproduced without tsshim), and the tool's run is
 * about the parent's kernels. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checked_gemm.h"
#include "gemm_cases.h"
#include "tap.h"

enum { NCASES = 2, WATCHDOG_S = 300 };

static checked_gemm cases[NCASES];

/* Runs every case through the shim; returns how many differ from OpenBLAS. */
static int run_cases(void)
{
    int bad = 0;
    for (int i = 0; i < NCASES; i++)
        bad += !cg_ratio_ok(&cases[i], cg_run_host(&cases[i], cg_tested(cases[i].prec)));
    return bad;
}

/* TSSHIM_LOG with %p replaced by pid, as the shim names its log. */
static void log_path(pid_t pid, char *out, size_t len)
{
    const char *pattern = getenv("TSSHIM_LOG");
    const char *mark = pattern ? strstr(pattern, "%p") : NULL;
    if (!mark) {
        snprintf(out, len, "%s", pattern ? pattern : "");
        return;
    }
    snprintf(out, len, "%.*s%ld%s", (int)(mark - pattern), pattern, (long)pid, mark + 2);
}

typedef struct {
    int traces, on_gpu, on_cpu;
} trace_count;

/* Counts the per-call trace lines of a log and where they ran. */
static trace_count count_traces(const char *path)
{
    trace_count t = { 0, 0, 0 };
    char line[2048];
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        if (!strstr(line, "gemm_ ") || !strstr(line, " run="))
            continue;
        t.traces++;
        t.on_gpu += strstr(line, " run=gpu ") != NULL;
        t.on_cpu += strstr(line, " run=cpu ") != NULL;
    }
    if (f)
        fclose(f);
    return t;
}

static void on_alarm(int sig)
{
    static const char msg[] = "Bail out! watchdog: fork test did not finish (deadlock in parent or child?)\n";
    (void)sig;
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
        _exit(2);
    _exit(1);
}

int main(int argc, char **argv)
{
    char err[512], parent_log[1200], child_log[1200];
    int gpu = argc > 1 && !strcmp(argv[1], "gpu");
    if (ref_blas_open(err, sizeof err)) {
        printf("Bail out! reference BLAS: %s\n", err);
        return 1;
    }
    if (!getenv("TSSHIM_LOG") || !strstr(getenv("TSSHIM_LOG"), "%p")) {
        printf("Bail out! run with TSSHIM_LOG=DIR/log.%%p and TSSHIM_VERBOSE=3\n");
        return 1;
    }
    signal(SIGALRM, on_alarm);
    alarm(WATCHDOG_S);
    gc_seed(2);
    /* Tall enough to be offloaded with the script's TSSHIM_MIN_LONG. */
    cg_prepare(&cases[0], "tsm2", TS_D, 'N', 'N', 300, 4, 300, 1);
    cg_prepare(&cases[1], "tsmttsm", TS_Z, 'C', 'N', 4, 4, 300, 1);
    log_path(getpid(), parent_log, sizeof parent_log);

    tap_ok(run_cases() == 0, "parent, before fork: results match OpenBLAS");
    trace_count before = count_traces(parent_log);
    if (gpu)
        tap_ok(before.on_gpu == NCASES, "parent, before fork: %d of %d calls ran on the GPU", before.on_gpu, NCASES);
    else
        tap_skip("no CUDA device");

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        printf("Bail out! fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        int code = run_cases() == 0 ? 0 : 1;
        if (getenv("TS_CHILD_QUICK_EXIT")) {
            fflush(NULL);
            _exit(code);
        }
        exit(code);
    }
    int status = 0;
    pid_t waited = waitpid(pid, &status, 0);
    tap_ok(waited == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "child: results match OpenBLAS and it exits normally (status 0x%x)", status);
    log_path(pid, child_log, sizeof child_log);
    trace_count child = count_traces(child_log);
    tap_ok(child.traces == NCASES && child.on_cpu == NCASES,
           "child: its own log %s traces %d calls, %d on the CPU (want %d, %d)", child_log, child.traces,
           child.on_cpu, NCASES, NCASES);

    tap_ok(run_cases() == 0, "parent, after fork: results match OpenBLAS");
    trace_count after = count_traces(parent_log);
    if (gpu)
        tap_ok(after.on_gpu - before.on_gpu == NCASES, "parent, after fork: %d of %d calls ran on the GPU",
               after.on_gpu - before.on_gpu, NCASES);
    else
        tap_skip("no CUDA device");
    tap_ok(after.traces - before.traces == NCASES, "parent's log holds only the parent's %d calls after fork (got %d)",
           NCASES, after.traces - before.traces);
    for (int i = 0; i < NCASES; i++)
        cg_free(&cases[i]);
    return tap_done();
}
