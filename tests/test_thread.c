/* The one thread helper (src/common/thread.h): a shim thread starts with
 * the program's signals blocked, so that their handlers run on the
 * program's threads only, but not the faults, whose handlers (ASan's
 * report, a program's crash handler) must run on the thread that faulted;
 * the caller's mask is left as it was; detached and joinable threads. */
#include <pthread.h>
#include <signal.h>

#include "common/thread.h"
#include "tap.h"

static void *read_mask(void *arg)
{
    pthread_sigmask(SIG_SETMASK, NULL, arg);
    return NULL;
}

static sigset_t detached_mask;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int detached_ran;

static void *detached(void *arg)
{
    (void)arg;
    pthread_sigmask(SIG_SETMASK, NULL, &detached_mask);
    pthread_mutex_lock(&lock);
    detached_ran = 1;
    pthread_cond_signal(&done);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    sigset_t mask, before, after;
    pthread_sigmask(SIG_SETMASK, NULL, &before);
    pthread_t t;
    tap_ok(ts_thread_start(&t, read_mask, &mask) == 0 && pthread_join(t, NULL) == 0, "a joinable thread starts and joins");
    static const int program[] = { SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGPIPE, SIGHUP };
    int blocked = 1;
    for (size_t i = 0; i < sizeof program / sizeof program[0]; i++)
        blocked &= sigismember(&mask, program[i]) == 1;
    tap_ok(blocked, "the program's signals (INT, TERM, USR1, USR2, ALRM, CHLD, PIPE, HUP) are blocked on it");
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
    int open = 1;
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        open &= sigismember(&mask, faults[i]) == 0;
    tap_ok(open, "the faults (SEGV, BUS, FPE, ILL, TRAP, SYS) are not: their handlers run on the faulting thread");
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    int same = 1;
    for (int s = 1; s < NSIG; s++)
        same &= sigismember(&before, s) == sigismember(&after, s);
    tap_ok(same, "the caller's own mask is as it was");
    int started = ts_thread_start(NULL, detached, NULL) == 0;
    pthread_mutex_lock(&lock);
    while (started && !detached_ran)
        pthread_cond_wait(&done, &lock);
    pthread_mutex_unlock(&lock);
    tap_ok(started && sigismember(&detached_mask, SIGUSR1) == 1 && sigismember(&detached_mask, SIGSEGV) == 0,
           "a detached thread gets the same mask");
    return tap_done();
}
