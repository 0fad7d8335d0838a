#include "util/stats.h"

#include <stdatomic.h>
#include <stdio.h>

#include "util/configuration.h"
#include "common/mpi_launcher.h"
#include "util/json.h"
#include "util/log.h"

typedef struct {
    atomic_ullong calls, offloaded, fallbacks, gpu_ns, h2d, d2h, split;
} routine_stats;

/* Work per device: slot 0 is the home device (a call with device -1), slot
 * d + 1 device d, so that a report shows where each rank's or each split
 * part's work ran. */
typedef struct {
    atomic_ullong runs, gpu_ns, h2d, d2h;
} device_stats;

/* The counters: per routine, and per device (slot 0 the home device). */
static struct {
    routine_stats routines[TS_NROUTINE];
    device_stats devices[TS_MAX_DEVICES + 1];
} counts;

void ts_stats_device(int device, double seconds, uint64_t h2d, uint64_t d2h)
{
    device_stats *s = &counts.devices[device >= 0 && device < TS_MAX_DEVICES ? device + 1 : 0];
    atomic_fetch_add_explicit(&s->runs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->gpu_ns, (unsigned long long)(seconds * 1e9), memory_order_relaxed);
    atomic_fetch_add_explicit(&s->h2d, h2d, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->d2h, d2h, memory_order_relaxed);
}

void ts_stats_record(const ts_call *c, int fell_back)
{
    routine_stats *s = &counts.routines[c->routine];
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    if (fell_back)
        atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    if (c->decision != TS_RUN_GPU || fell_back)
        return;
    atomic_fetch_add_explicit(&s->offloaded, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->gpu_ns, (unsigned long long)(c->gpu_seconds * 1e9), memory_order_relaxed);
    atomic_fetch_add_explicit(&s->h2d, c->bytes_h2d, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->d2h, c->bytes_d2h, memory_order_relaxed);
    /* A split call's parts were counted on their devices (src/multigpu/split_run.c). */
    if (c->split)
        atomic_fetch_add_explicit(&s->split, 1, memory_order_relaxed);
    else
        ts_stats_device(c->device, c->gpu_seconds, c->bytes_h2d, c->bytes_d2h);
}

void ts_stats_reset(void)
{
    for (int r = 0; r < TS_NROUTINE; r++) {
        routine_stats *s = &counts.routines[r];
        atomic_store(&s->calls, 0);
        atomic_store(&s->offloaded, 0);
        atomic_store(&s->fallbacks, 0);
        atomic_store(&s->gpu_ns, 0);
        atomic_store(&s->h2d, 0);
        atomic_store(&s->d2h, 0);
        atomic_store(&s->split, 0);
    }
    for (int d = 0; d <= TS_MAX_DEVICES; d++) {
        device_stats *s = &counts.devices[d];
        atomic_store(&s->runs, 0);
        atomic_store(&s->gpu_ns, 0);
        atomic_store(&s->h2d, 0);
        atomic_store(&s->d2h, 0);
    }
}

/* Device d's runs, GPU nanoseconds and bytes each way; the home device's
 * include the calls that ran there without naming it. */
static void device_totals(int d, int home, unsigned long long v[4])
{
    const device_stats *s[2] = { &counts.devices[d + 1], d == home ? &counts.devices[0] : NULL };
    v[0] = v[1] = v[2] = v[3] = 0;
    for (int i = 0; i < 2 && s[i]; i++) {
        v[0] += atomic_load(&s[i]->runs);
        v[1] += atomic_load(&s[i]->gpu_ns);
        v[2] += atomic_load(&s[i]->h2d);
        v[3] += atomic_load(&s[i]->d2h);
    }
}

/* One line per device that ran work. */
static void report_devices(int home)
{
    for (int d = 0; d < TS_MAX_DEVICES; d++) {
        unsigned long long v[4];
        device_totals(d, home, v);
        if (v[0])
            ts_log(1, "device %d runs=%llu gpu_s=%.6f h2d_bytes=%llu d2h_bytes=%llu", d, v[0], (double)v[1] * 1e-9,
                   v[2], v[3]);
    }
}

void ts_stats_report(int home)
{
    int any = 0;
    for (int r = 0; r < TS_NROUTINE; r++) {
        routine_stats *s = &counts.routines[r];
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
    report_devices(home);
}

void ts_stats_json(ts_json *j, int home)
{
    ts_json_add(j, "{\"routines\": {");
    int first = 1;
    for (int r = 0; r < TS_NROUTINE; r++) {
        routine_stats *s = &counts.routines[r];
        unsigned long long calls = atomic_load(&s->calls);
        if (!calls)
            continue;
        ts_json_add(j, first ? "" : ", ");
        first = 0;
        ts_json_string(j, ts_routine_symbol((ts_routine)r));
        ts_json_add(j,
                    ": {\"calls\": %llu, \"offloaded\": %llu, \"fallbacks\": %llu, \"gpu_s\": %.9f, "
                    "\"h2d_bytes\": %llu, \"d2h_bytes\": %llu, \"split\": %llu}",
                    calls, atomic_load(&s->offloaded), atomic_load(&s->fallbacks),
                    (double)atomic_load(&s->gpu_ns) * 1e-9, atomic_load(&s->h2d), atomic_load(&s->d2h),
                    atomic_load(&s->split));
    }
    ts_json_add(j, "}, \"devices\": {");
    first = 1;
    for (int d = 0; d < TS_MAX_DEVICES; d++) {
        unsigned long long v[4];
        device_totals(d, home, v);
        if (!v[0])
            continue;
        ts_json_add(j, "%s\"%d\": {\"runs\": %llu, \"gpu_s\": %.9f, \"h2d_bytes\": %llu, \"d2h_bytes\": %llu}",
                    first ? "" : ", ", d, v[0], (double)v[1] * 1e-9, v[2], v[3]);
        first = 0;
    }
    ts_json_add(j, "}}");
}
