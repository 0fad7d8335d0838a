/* The multigpu subsystem's mutable state, in one struct (split_run.c owns
 * it).  Internal to src/multigpu/: the layers above include
 * multigpu/split.h only. */
#ifndef TS_SPLIT_STATE_H
#define TS_SPLIT_STATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "common/call.h"

struct split_part; /* one part in flight (split_run.c) */

typedef struct {
    /* The decision (split_plan.c): TSSHIM_SPLIT_DEVICES named a device that
     * is not visible, and it was said. */
    atomic_int warned_devices;

    /* The crew (split_run.c): threads that run parts 1, 2, ... of split
     * calls; the calling thread runs part 0.  Worker i always runs part i, on
     * the same device, so it makes that device's context once and keeps it
     * (threads made per call would make a cuBLAS handle per call).  One split
     * call uses them at a time. */
    pthread_mutex_t call; /* held by the split call using the workers */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    struct split_part *job[TS_MAX_DEVICES]; /* worker i's part; NULL when it is idle */
    int workers;                            /* workers 1 .. workers exist */
    pthread_mutex_t pulling; /* held by the split call in its pulls' round (pull_round) */
} ts_split_state;

extern ts_split_state ts_split;

#endif
