/* The monotonic clock in seconds, for the shim's own timings (call times,
 * phases, the GPU start). */
#ifndef TS_CLOCK_H
#define TS_CLOCK_H

#include <time.h>

static inline double ts_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
