#include "gpu_backend.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "log.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const ts_gpu_ops *loaded;
static atomic_int forked, ready;

/* The plugin sits in the directory this library was loaded from. */
static int plugin_path(char *out, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)plugin_path, &info) || !info.dli_fname)
        return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 1;
    int n = snprintf(out, size, "%.*s/%s", dir, slash ? info.dli_fname : ".", TS_GPU_PLUGIN);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Loads the plugin and starts the GPU: the CUDA context and a stream, so
 * the first offloaded call finds them made (cuBLAS and the pinned staging
 * are made by the first call that needs them: cuda/plugin.c). */
static void load(void)
{
    char path[4096], why[256] = "";
    double t0 = ts_now();
    if (plugin_path(path, sizeof path)) {
        ts_log(1, "GPU backend not found: cannot locate libtsshim.so; every call runs on the CPU");
        return;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        ts_log(1, "GPU backend unavailable (%s); every call runs on the CPU", dlerror());
        return;
    }
    double t1 = ts_now();
    const ts_gpu_ops *ops = dlsym(h, TS_GPU_OPS_SYMBOL);
    if (!ops || ops->abi != TS_GPU_ABI) {
        ts_log(1, "GPU backend %s does not match this libtsshim.so; every call runs on the CPU", path);
        return;
    }
    if (ops->init(ts_config_get(), why, sizeof why)) {
        ts_log(1, "no usable GPU (%s); every call runs on the CPU", why);
        return;
    }
    /* What a program pays once for the GPU, on the call that starts it. */
    double t2 = ts_now();
    ts_log(2, "GPU started in %.3f s: backend loaded in %.3f s, device context in %.3f s",
           t2 - t0, t1 - t0, t2 - t1);
    loaded = ops;
}

static void load_and_mark(void)
{
    load();
    atomic_store_explicit(&ready, 1, memory_order_release);
}

const ts_gpu_ops *ts_gpu(void)
{
    if (atomic_load_explicit(&forked, memory_order_relaxed))
        return NULL;
    pthread_once(&load_once, load_and_mark);
    return loaded;
}

int ts_gpu_ready(void)
{
    return atomic_load_explicit(&ready, memory_order_acquire) || atomic_load_explicit(&forked, memory_order_relaxed);
}

void ts_gpu_after_fork(void)
{
    atomic_store(&forked, 1);
}


/* dl_iterate_phdr callback: stops at once, reporting the loader's count of
 * objects ever added, so an unchanged count means nothing new was loaded. */
static int read_adds(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

static int is_cuda_driver(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    return info->dlpi_name && strstr(info->dlpi_name, "libcuda.so") != NULL;
}

static atomic_int cuda_seen;

/* The last object of the loader's list while every loaded object was loaded
 * at startup (none ever added by dlopen).  Startup objects are never
 * unloaded, and dlopen appends to the list, so its l_next stays NULL until
 * some object is added: one load, no lock. */
static struct link_map *startup_tail;
static pthread_once_t startup_once = PTHREAD_ONCE_INIT;

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
        startup_tail = tail;
    return 1;
}

static void watch_startup_objects(void)
{
    loader_counts n = { 0, 0, 0 };
    dl_iterate_phdr(find_startup_tail, &n);
    if (dl_iterate_phdr(is_cuda_driver, NULL))
        atomic_store(&cuda_seen, 1);
    /* Which way calls look for the CUDA driver: the cost of a forwarded call
     * depends on it. */
    ts_log(2, "loader watch: %llu objects listed, %llu added, %llu removed: %s", n.objects, n.adds, n.subs,
           startup_tail ? "calls check without the loader's lock" : "every call asks the loader (under its lock)");
}

void ts_gpu_watch_init(void)
{
    pthread_once(&startup_once, watch_startup_objects);
}

struct link_map *ts_gpu_startup_tail(void)
{
    ts_gpu_watch_init();
    return atomic_load(&cuda_seen) ? NULL : startup_tail;
}

/* Device pointers can only exist once the CUDA driver is in the process.
 * Asking the dynamic loader by name costs far more than a forwarded call
 * and even the loader's count takes its lock (docs/performance.md): the
 * walk runs only when the set of loaded objects changed. */
int ts_gpu_cuda_loaded(void)
{
    static _Atomic unsigned long long checked_adds;
    if (atomic_load_explicit(&cuda_seen, memory_order_relaxed))
        return 1;
    /* Nothing was loaded after the startup objects, which had no CUDA
     * driver.  Other namespaces (dlmopen) are not watched: the backend
     * could not read their device pointers anyway. */
    if (ts_gpu_nothing_loaded_since(ts_gpu_startup_tail()))
        return 0;
    unsigned long long adds = 0;
    dl_iterate_phdr(read_adds, &adds);
    if (adds == atomic_load_explicit(&checked_adds, memory_order_relaxed))
        return 0;
    int found = dl_iterate_phdr(is_cuda_driver, NULL);
    atomic_store_explicit(&checked_adds, adds, memory_order_relaxed);
    if (found)
        atomic_store_explicit(&cuda_seen, 1, memory_order_relaxed);
    return found;
}

void ts_gpu_residency(ts_call *c)
{
    c->res_a = c->res_b = c->res_c = TS_MEM_HOST;
    c->device = -1;
    if (!ts_gpu_cuda_loaded())
        return;
    const ts_gpu_ops *g = ts_gpu();
    if (g)
        g->residency(c);
}
