#include "common/thread.h"

#include <signal.h>

int ts_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr))
        return -1;
    if (!tid)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* The new thread inherits the mask in force when it is made.  Faults
     * stay deliverable: a synchronous SIGSEGV, SIGBUS, SIGFPE or SIGILL
     * that is blocked kills the process without running any handler, so a
     * crash on a shim thread would bypass AddressSanitizer's report and the
     * program's own crash handler (an ASan build's bench_e2e once died so,
     * with no report: docs/testing.md). */
    sigset_t all, old;
    sigfillset(&all);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t ignored;
    int err = pthread_create(tid ? tid : &ignored, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return err;
}
