#include "common/thread.h"

#include <signal.h>

int ts_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr))
        return -1;
    if (!tid)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* The new thread inherits the mask in force when it is made. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t ignored;
    int err = pthread_create(tid ? tid : &ignored, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return err;
}
