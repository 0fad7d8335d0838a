#include "stats.h"

#include <stdatomic.h>
#include <stdio.h>

#include "configuration.h"
#include "log.h"

typedef struct {
    atomic_ullong calls, offloaded, fallbacks, gpu_ns, h2d, d2h, split;
} routine_stats;

static routine_stats stats[TS_NROUTINE];

void ts_stats_record(const ts_call *c, int fell_back)
{
    routine_stats *s = &stats[c->routine];
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    if (fell_back)
        atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    if (c->decision != TS_RUN_GPU || fell_back)
        return;
    atomic_fetch_add_explicit(&s->offloaded, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->gpu_ns, (unsigned long long)(c->gpu_seconds * 1e9), memory_order_relaxed);
    atomic_fetch_add_explicit(&s->h2d, c->bytes_h2d, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->d2h, c->bytes_d2h, memory_order_relaxed);
    if (c->split)
        atomic_fetch_add_explicit(&s->split, 1, memory_order_relaxed);
}

void ts_stats_reset(void)
{
    for (int r = 0; r < TS_NROUTINE; r++) {
        routine_stats *s = &stats[r];
        atomic_store(&s->calls, 0);
        atomic_store(&s->offloaded, 0);
        atomic_store(&s->fallbacks, 0);
        atomic_store(&s->gpu_ns, 0);
        atomic_store(&s->h2d, 0);
        atomic_store(&s->d2h, 0);
        atomic_store(&s->split, 0);
    }
}

void ts_stats_report(void)
{
    int any = 0;
    for (int r = 0; r < TS_NROUTINE; r++) {
        routine_stats *s = &stats[r];
        unsigned long long calls = atomic_load(&s->calls);
        if (!calls)
            continue;
        any = 1;
        /* split= only where calls were split: the line stays as it was
         * for the scripts that match it whole (a rank under MPI never splits). */
        unsigned long long split = atomic_load(&s->split);
        char split_field[40] = "";
        if (split)
            snprintf(split_field, sizeof split_field, " split=%llu", split);
        ts_log(1, "%s calls=%llu offloaded=%llu fallbacks=%llu gpu_s=%.6f h2d_bytes=%llu d2h_bytes=%llu%s",
               ts_routine_symbol((ts_routine)r), calls, atomic_load(&s->offloaded), atomic_load(&s->fallbacks),
               (double)atomic_load(&s->gpu_ns) * 1e-9, atomic_load(&s->h2d), atomic_load(&s->d2h), split_field);
    }
    /* A process that made no call still says the shim was there: an MPI
     * rank left without work, or a program whose BLAS calls bypass it. */
    if (!any)
        ts_log(1, "no BLAS calls reached the shim");
}
