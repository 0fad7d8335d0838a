/* The one way the core and the GPU plugin make threads: with every signal
 * blocked but the faults, so that a program's signal handlers run only on
 * its own threads (a handler on a shim thread could interrupt a lock the
 * program holds), while a fault on a shim thread still reaches the handler
 * that reports it. */
#ifndef TS_THREAD_H
#define TS_THREAD_H

#include <pthread.h>

/* pthread_create with every signal but the faults blocked in the new thread; detached when
 * tid is NULL.  0, or pthread_create's error. */
int ts_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg);

#endif
