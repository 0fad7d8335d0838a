/* The write tracker's long ranges on several threads: see parallel_scan.h. */
#include "cache/parallel_scan.h"

#include "cache/write_protect.h"
#include "common/clock.h"
#include "common/thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* A scan goes parallel only when its first PARALLEL_BYTES took long:
 * starting a thread costs tens of microseconds. */
enum { PARALLEL_BYTES = 256 << 20, MAX_PARTS = 8 };
#define PARALLEL_AFTER_S 200e-6

typedef struct part part;
struct part {
    const ts_scan_fds *fds;
    uintptr_t s, e;
    int (*work)(part *p);
    int status;
    found_list found;                   /* scans: the written pages */
    struct page_region vec[SCAN_BATCH]; /* scans: the kernel's answer */
};

static void *part_run(void *arg)
{
    part *p = arg;
    p->status = p->work(p);
    return NULL;
}

static int scan_part(part *p) { return ts_scan_range(p->fds, p->s, p->e, p->vec, &p->found); }

static int protect_part(part *p) { return ts_wp_protect(p->fds->uffd, p->s, p->e); }

/* Runs work on [s, e) cut into up to MAX_PARTS page-aligned parts, the
 * calling thread taking the first, and gathers the parts' written pages
 * into out (in address order).  The helpers start with every signal
 * blocked, so the program's handlers only ever run on its own threads; a
 * helper that cannot start leaves its part to the calling thread. */
static int in_parts(const ts_scan_fds *fds, uintptr_t page, uintptr_t s, uintptr_t e, int (*work)(part *),
                    found_list *out)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = (e - s) / PARALLEL_BYTES;
    n = n > MAX_PARTS ? MAX_PARTS : n;
    n = cores > 0 && n > (size_t)cores ? (size_t)cores : n;
    part *p = calloc(n > 1 ? n : 1, sizeof *p);
    if (!p)
        return -1;
    if (n < 2)
        n = 1;
    pthread_t tid[MAX_PARTS];
    int started[MAX_PARTS] = { 0 };
    uintptr_t step = ((e - s) / n + page - 1) / page * page;
    for (size_t i = 0; i < n; i++) {
        p[i].fds = fds;
        p[i].s = s + i * step < e ? s + i * step : e;
        p[i].e = i + 1 == n || s + (i + 1) * step > e ? e : s + (i + 1) * step;
        p[i].work = work;
    }
    for (size_t i = 1; i < n; i++)
        started[i] = ts_thread_start(&tid[i], part_run, &p[i]) == 0;
    part_run(&p[0]);
    int status = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && started[i])
            pthread_join(tid[i], NULL);
        else if (i)
            part_run(&p[i]);
        status |= p[i].status;
        for (size_t j = 0; !status && out && j < p[i].found.n; j += 2)
            status |= ts_found_add(out, p[i].found.pairs[j], p[i].found.pairs[j + 1]);
        free(p[i].found.pairs);
    }
    free(p);
    return status ? -1 : 0;
}

int ts_scan_range_parallel(const ts_scan_fds *fds, uintptr_t page, uintptr_t s, uintptr_t e,
                           struct page_region *vec, found_list *f)
{
    uintptr_t first = e - s > 2 * (uintptr_t)PARALLEL_BYTES ? s + PARALLEL_BYTES : e;
    double t0 = ts_now();
    int status = ts_scan_range(fds, s, first, vec, f);
    double took = ts_now() - t0;
    if (!status && first < e)
        status = took * (double)(e - first) / (double)(first - s) > PARALLEL_AFTER_S
                     ? in_parts(fds, page, first, e, scan_part, f)
                     : ts_scan_range(fds, first, e, vec, f);
    return status;
}

int ts_protect_range_parallel(const ts_scan_fds *fds, uintptr_t page, uintptr_t s, uintptr_t e)
{
    return e - s >= 2 * (uintptr_t)PARALLEL_BYTES ? in_parts(fds, page, s, e, protect_part, NULL)
                                                  : ts_wp_protect(fds->uffd, s, e);
}
