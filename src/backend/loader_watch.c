/* The loader watch: which objects were loaded since startup, and whether
 * the CUDA driver is in the process (so that an operand may be device
 * memory). */
#include "backend/gpu_backend.h"

#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend_state.h"
#include "util/log.h"

/* dl_iterate_phdr callback: stops at once, reporting the loader's count of
 * objects ever added, so an unchanged count means nothing new was loaded. */
static int read_adds(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

unsigned long long ts_backend_loader_adds(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(read_adds, &adds);
    return adds;
}

int ts_gpu_driver_part(const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    return base && !strncmp(base, "libnvidia-", 10);
}

/* The walk of the loader's list (in load order) that both need. */
typedef struct {
    int objects, from, others;
    unsigned long long adds, subs;
    char other[256]; /* the first object that is not the driver's */
} list_walk;

static int walk_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    list_walk *w = data;
    w->adds = info->dlpi_adds;
    w->subs = info->dlpi_subs;
    if (w->objects++ >= w->from && !ts_gpu_driver_part(info->dlpi_name) && !w->others++)
        snprintf(w->other, sizeof w->other, "%s", info->dlpi_name ? info->dlpi_name : "?");
    return 0;
}

void ts_backend_loader_snapshot(void)
{
    list_walk w = { 0, INT_MAX, 0, 0, 0, "" };
    dl_iterate_phdr(walk_object, &w);
    atomic_store(&ts_backend.own_objects, w.objects);
    atomic_store(&ts_backend.own_subs, w.subs);
    atomic_store(&ts_backend.own_adds, w.adds);
}

/* Every object loaded since the snapshot is a part of the driver's, and
 * none was removed (which would shift the list).  Those parts are the
 * start's own, so the snapshot moves past them: later calls take the
 * count's fast path again instead of walking the list. */
int ts_backend_only_driver_parts_added(void)
{
    list_walk w = { 0, atomic_load(&ts_backend.own_objects), 0, 0, 0, "" };
    dl_iterate_phdr(walk_object, &w);
    if (w.subs != atomic_load(&ts_backend.own_subs) || w.others) {
        /* Calls now wait for the start: say once what made them. */
        if (!atomic_exchange(&ts_backend.said_wait, 1))
            ts_log(2, "calls wait for the GPU start: %s%s", w.others ? w.other : "an object was unloaded",
                   w.others ? " was loaded after its libraries" : "");
        return 0;
    }
    atomic_store(&ts_backend.own_objects, w.objects);
    atomic_store(&ts_backend.own_adds, w.adds);
    return 1;
}

static int is_cuda_driver(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    return info->dlpi_name && strstr(info->dlpi_name, "libcuda.so") != NULL;
}

/* What the loader's list held when the watch started. */
typedef struct {
    unsigned long long objects, adds, subs;
} loader_counts;

/* dl_iterate_phdr callback, called once: the loader's lock is held, so the
 * list can be walked. */
static int find_startup_tail(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    loader_counts *n = data;
    struct link_map *tail = NULL;
    for (struct link_map *l = _r_debug.r_map; l; l = l->l_next, n->objects++)
        tail = l;
    n->adds = info->dlpi_adds;
    n->subs = info->dlpi_subs;
    if (n->subs == 0 && n->adds == n->objects)
        ts_backend.startup_tail = tail;
    return 1;
}

static void watch_startup_objects(void)
{
    loader_counts n = { 0, 0, 0 };
    dl_iterate_phdr(find_startup_tail, &n);
    if (dl_iterate_phdr(is_cuda_driver, NULL))
        atomic_store(&ts_backend.cuda_seen, 1);
    /* Which way calls look for the CUDA driver: the cost of a forwarded call
     * depends on it. */
    ts_log(2, "loader watch: %llu objects listed, %llu added, %llu removed: %s", n.objects, n.adds, n.subs,
           ts_backend.startup_tail ? "calls check without the loader's lock"
                                   : "every call asks the loader (under its lock)");
}

void ts_gpu_watch_init(void)
{
    pthread_once(&ts_backend.startup_once, watch_startup_objects);
}

struct link_map *ts_gpu_startup_tail(void)
{
    ts_gpu_watch_init();
    return atomic_load(&ts_backend.cuda_seen) ? NULL : ts_backend.startup_tail;
}

/* Device pointers can only exist once the CUDA driver is in the process.
 * Asking the dynamic loader by name costs far more than a forwarded call
 * and even the loader's count takes its lock (docs/performance.md): the
 * walk runs only when the set of loaded objects changed. */
int ts_gpu_cuda_loaded(void)
{
    if (atomic_load_explicit(&ts_backend.cuda_seen, memory_order_relaxed))
        return 1;
    /* Nothing was loaded after the startup objects, which had no CUDA
     * driver.  Other namespaces (dlmopen) are not watched: the backend
     * could not read their device pointers anyway. */
    if (ts_gpu_nothing_loaded_since(ts_gpu_startup_tail()))
        return 0;
    unsigned long long adds = ts_backend_loader_adds();
    if (adds == atomic_load_explicit(&ts_backend.checked_adds, memory_order_relaxed))
        return 0;
    int found = dl_iterate_phdr(is_cuda_driver, NULL);
    atomic_store_explicit(&ts_backend.checked_adds, adds, memory_order_relaxed);
    if (found)
        atomic_store_explicit(&ts_backend.cuda_seen, 1, memory_order_relaxed);
    return found;
}
