#include "backend/gpu_backend.h"

#include <glob.h>

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/thread.h"
#include "util/reentry.h"
#include "util/log.h"

/* The start: IDLE until a caller claims it, RUNNING while the libraries
 * load and the device starts (on the claiming thread, the device part of
 * a background start on the starter thread), DONE once `loaded` says how
 * it went. */
enum { START_IDLE, START_RUNNING, START_DONE };
static atomic_int start_state;
static const ts_gpu_ops *loaded;
static atomic_int forked;

/* A caller that needs the backend while another thread starts it waits this
 * long at most (a deadlock, e.g. a caller holding the loader's lock, ends in
 * the CPU path); an exit waits EXIT_WAIT_S at most. */
#define CALL_WAIT_S 60.0
#define EXIT_WAIT_S 5.0

/* The plugin sits in the directory this library was loaded from, unless a
 * program that links the core itself (tsshim-doctor) named the directory. */
static char plugin_dir[4096];

void ts_gpu_set_plugin_dir(const char *dir)
{
    snprintf(plugin_dir, sizeof plugin_dir, "%s", dir ? dir : "");
}

int ts_gpu_plugin_path(char *out, size_t size)
{
    if (plugin_dir[0]) {
        int n = snprintf(out, size, "%s/%s", plugin_dir, TS_GPU_PLUGIN);
        return n > 0 && (size_t)n < size ? 0 : -1;
    }
    Dl_info info;
    if (!dladdr((void *)ts_gpu_plugin_path, &info) || !info.dli_fname)
        return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 1;
    int n = snprintf(out, size, "%.*s/%s", dir, slash ? info.dli_fname : ".", TS_GPU_PLUGIN);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Why the backend is not usable, as the log said it (ts_gpu_why). */
static char why_not[512];

const char *ts_gpu_why(void) { return why_not; }

/* When the start began, and how long loading the libraries took: the log
 * line of the device start reports both parts. */
static double start_t0, load_s;

/* The core's ops the plugin is handed (ts_gpu_bind_core). */
static const ts_core_ops *core;

void ts_gpu_bind_core(const ts_core_ops *ops) { core = ops; }

/* Loads the CUDA driver and the plugin (with cudart, cuBLAS, cublasLt) on
 * the calling thread and returns the plugin's ops table, or NULL, logged.
 * The driver comes first, and stays loaded, so that its initialisers run
 * here too rather than when cudart loads it during the device start. */
static const ts_gpu_ops *load_backend(void)
{
    char path[4096];
    start_t0 = ts_now();
    if (ts_gpu_plugin_path(path, sizeof path)) {
        snprintf(why_not, sizeof why_not, "cannot locate libtsshim.so");
        ts_log(1, "GPU backend not found: cannot locate libtsshim.so; every call runs on the CPU");
        return NULL;
    }
    if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
        snprintf(why_not, sizeof why_not, "%s", dlerror());
        ts_log(1, "no usable GPU (%s); every call runs on the CPU", why_not);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why_not, sizeof why_not, "%s", dlerror());
        ts_log(1, "GPU backend unavailable (%s); every call runs on the CPU", why_not);
        return NULL;
    }
    const ts_gpu_ops *ops = dlsym(h, TS_GPU_OPS_SYMBOL);
    if (!ops || ops->abi != TS_GPU_ABI) {
        snprintf(why_not, sizeof why_not, "%.400s does not match this libtsshim.so", path);
        ts_log(1, "GPU backend %s does not match this libtsshim.so; every call runs on the CPU", path);
        return NULL;
    }
    ops->bind(core);
    load_s = ts_now() - start_t0;
    return ops;
}

/* Starts the device: the CUDA context and a stream, so the first offloaded
 * call finds them made (cuBLAS and the pinned staging are made by the first
 * call that needs them: cuda/plugin.c). */
static void start_device(const ts_gpu_ops *ops, const char *where)
{
    char why[256] = "";
    double t1 = ts_now();
    if (ops->init(ts_config_get(), why, sizeof why)) {
        snprintf(why_not, sizeof why_not, "no usable GPU: %s", why);
        ts_log(1, "no usable GPU (%s); every call runs on the CPU", why);
        return;
    }
    /* What a program pays once for the GPU, and which thread paid it. */
    double t2 = ts_now();
    ts_log(2, "GPU started in %.3f s: backend loaded in %.3f s on the calling thread, device context in %.3f s %s",
           t2 - start_t0, load_s, t2 - t1, where);
    loaded = ops;
}

/* Moves the start from IDLE to RUNNING: true for the one caller that then
 * loads the backend. */
static int claim_start(void)
{
    int idle = START_IDLE;
    return atomic_compare_exchange_strong(&start_state, &idle, START_RUNNING);
}

static void finish_start(void) { atomic_store_explicit(&start_state, START_DONE, memory_order_release); }

/* Sleeps a millisecond unless the deadline passed: waits poll the start's
 * state, which keeps them free of locks a forked child could inherit held. */
static int pause_until(double deadline)
{
    if (ts_now() >= deadline)
        return 0;
    nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    return 1;
}

const ts_gpu_ops *ts_gpu(void)
{
    if (atomic_load_explicit(&forked, memory_order_relaxed))
        return NULL;
    double deadline = 0;
    for (;;) {
        int s = atomic_load_explicit(&start_state, memory_order_acquire);
        if (s == START_DONE)
            return loaded;
        if (s == START_IDLE && claim_start()) {
            const ts_gpu_ops *ops = load_backend();
            if (ops)
                start_device(ops, "on the calling thread");
            finish_start();
            return loaded;
        }
        if (deadline == 0)
            deadline = ts_now() + CALL_WAIT_S;
        if (s == START_RUNNING && !pause_until(deadline))
            return NULL;
    }
}

int ts_gpu_starting(void)
{
    return atomic_load_explicit(&start_state, memory_order_acquire) == START_RUNNING &&
           !atomic_load_explicit(&forked, memory_order_relaxed);
}

int ts_gpu_ready(void)
{
    return atomic_load_explicit(&start_state, memory_order_acquire) == START_DONE ||
           atomic_load_explicit(&forked, memory_order_relaxed);
}

int ts_gpu_started(void)
{
    return atomic_load_explicit(&start_state, memory_order_acquire) == START_DONE && loaded &&
           !atomic_load_explicit(&forked, memory_order_relaxed);
}

void ts_gpu_after_fork(void)
{
    atomic_store(&forked, 1);
}

/* The background start's thread: created joinable, and joined at exit, so
 * that it has ended, its own thread-exit work in the CUDA runtime included,
 * before the CUDA libraries' exit handlers run. */
enum { STARTER_NONE, STARTER_JOINABLE, STARTER_JOINED };
static atomic_int starter_state;
static pthread_t starter;
static atomic_int exiting;

/* The loader's count of objects ever added once a background start loaded
 * its libraries into a process that had no CUDA driver before, else 0.
 * While the count stays so and the start runs, every CUDA object in the
 * process is the start's own, so no operand can be device memory and no
 * call need wait for the start (ts_gpu_residency); a later load, the
 * program's own CUDA say, makes calls wait for it. */
static _Atomic unsigned long long own_adds;

/* The loader's list as the start left it (own_adds): its length and the
 * count of objects ever removed.  While the device starts, the CUDA driver
 * loads parts of its own (libnvidia-*); those are still the start's, so
 * calls need not wait for it (ts_gpu_residency). */
static _Atomic int own_objects;
static _Atomic unsigned long long own_subs;

/* dl_iterate_phdr callback: stops at once, reporting the loader's count of
 * objects ever added, so an unchanged count means nothing new was loaded. */
static int read_adds(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

/* The loader's count of objects ever added (under the loader's lock). */
static unsigned long long loader_adds(void)
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

static void loader_snapshot(void)
{
    list_walk w = { 0, INT_MAX, 0, 0, 0, "" };
    dl_iterate_phdr(walk_object, &w);
    atomic_store(&own_objects, w.objects);
    atomic_store(&own_subs, w.subs);
    atomic_store(&own_adds, w.adds);
}

/* Every object loaded since the snapshot is a part of the driver's, and
 * none was removed (which would shift the list).  Those parts are the
 * start's own, so the snapshot moves past them: later calls take the
 * count's fast path again instead of walking the list. */
static int only_driver_parts_added(void)
{
    list_walk w = { 0, atomic_load(&own_objects), 0, 0, 0, "" };
    dl_iterate_phdr(walk_object, &w);
    if (w.subs != atomic_load(&own_subs) || w.others) {
        /* Calls now wait for the start: say once what made them. */
        static atomic_int said;
        if (!atomic_exchange(&said, 1))
            ts_log(2, "calls wait for the GPU start: %s%s", w.others ? w.other : "an object was unloaded",
                   w.others ? " was loaded after its libraries" : "");
        return 0;
    }
    atomic_store(&own_objects, w.objects);
    atomic_store(&own_adds, w.adds);
    return 1;
}

/* Why exiting during the background start is safe.  The CUDA libraries'
 * initialisers register exit handlers (static destructors); exit() runs the
 * atexit list newest first, then _dl_fini the libraries' destructors.  Run
 * while one of those initialisers was still running on a thread of ours,
 * they crashed in cublasLt.  So the start loads every library on the
 * calling thread (load_backend), before any thread of ours exists: once
 * dlopen returns, every initialiser has run and every handler they register
 * is registered.  This handler is registered only then, so it is newer than
 * theirs and exit() runs it first, whichever thread calls exit(): it waits
 * (at most EXIT_WAIT_S) for the device start and joins the starter.  The
 * shim's destructor waits the same way (dlclose, _dl_fini).  quick_exit and
 * _exit run no handlers: the starter simply ends with the process.  Once
 * either began, no background start begins, and a starter that has not
 * begun the device start skips it.  In a child forked meanwhile nothing
 * waits: the starter does not exist there. */
static void settle(void)
{
    atomic_store(&exiting, 1);
    if (atomic_load(&forked) || atomic_load(&starter_state) == STARTER_NONE)
        return;
    double deadline = ts_now() + EXIT_WAIT_S;
    while (atomic_load(&start_state) == START_RUNNING && pause_until(deadline))
        ;
    int joinable = STARTER_JOINABLE;
    if (atomic_load(&start_state) == START_DONE &&
        atomic_compare_exchange_strong(&starter_state, &joinable, STARTER_JOINED))
        pthread_join(starter, NULL);
}

static void *start_thread(void *ops)
{
    /* BLAS calls made during the device start go straight to the CPU BLAS. */
    ts_reentry_shim_thread();
    if (atomic_load(&exiting))
        ts_log(2, "GPU start skipped: the program is exiting");
    else
        start_device(ops, "on a background thread");
    /* Calls wait on the CPU until this is done too, so the first one the
     * model sends to the GPU finds all it needs made. */
    if (loaded && !atomic_load(&exiting)) {
        double t0 = ts_now();
        loaded->prepare(ts_config_get());
        ts_log(2, "GPU prepared in %.3f s on the background thread (staging ring, cuBLAS)", ts_now() - t0);
    }
    finish_start();
    return NULL;
}

/* Starts the thread that starts the device, with no signal of the
 * program's: 0, or pthread_create's error.  It counts as started before it
 * is: an exit meanwhile then waits for the start to be done. */
static int begin_starter(const ts_gpu_ops *ops)
{
    atomic_store(&starter_state, STARTER_JOINABLE);
    static atomic_int exit_wait_set;
    if (!atomic_exchange(&exit_wait_set, 1))
        atexit(settle);
    int err = ts_thread_start(&starter, start_thread, (void *)ops);
    if (err)
        atomic_store(&starter_state, STARTER_NONE);
    return err;
}

int ts_gpu_start_background(void)
{
    if (atomic_load(&start_state) != START_IDLE)
        return 1;
    if (atomic_load(&forked) || atomic_load(&exiting))
        return 0;
    if (!claim_start())
        return 1;
    int had_cuda = ts_gpu_cuda_loaded();
    const ts_gpu_ops *ops = load_backend();
    if (!ops) {
        finish_start();
        return 1;
    }
    if (!had_cuda)
        loader_snapshot();
    ts_log(2, "GPU backend loaded in %.3f s on the calling thread; the device context starts on a background "
           "thread, calls run on the CPU until it is done", load_s);
    int err = begin_starter(ops);
    if (err) {
        /* No thread: the call that earns the start makes it, as without a
         * background start (loading the libraries again finds them loaded). */
        ts_log(2, "no thread for the GPU start (%s); the call that earns it starts it", strerror(err));
        atomic_store(&own_adds, 0);
        atomic_store(&start_state, START_IDLE);
        return 0;
    }
    return 1;
}

void ts_gpu_stop(void) { settle(); }

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
    unsigned long long adds = loader_adds();
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
    /* While the background start runs, the CUDA objects in the process may
     * all be the start's own (own_adds, and the driver's parts it loads as
     * it starts): then no operand is device memory, and the call does not
     * wait for the start.  The full walk runs only once the count moved. */
    unsigned long long own = atomic_load(&own_adds);
    if (own && !ts_gpu_ready() && (loader_adds() == own || only_driver_parts_added()))
        return;
    const ts_gpu_ops *g = ts_gpu();
    if (g)
        g->residency(c);
}

int ts_gpu_devices_listed(const char *visible, int nodes)
{
    if (!visible)
        return nodes;
    int n = *visible ? 1 : 0;
    for (; *visible; visible++)
        n += *visible == ',';
    return n;
}

int ts_gpu_devices_seen(void)
{
    static atomic_int known = -1;
    int n = atomic_load_explicit(&known, memory_order_relaxed);
    if (n >= 0)
        return n;
    int nodes = 0;
    glob_t g;
    if (!glob("/dev/nvidia[0-9]*", 0, NULL, &g))
        nodes = (int)g.gl_pathc;
    globfree(&g);
    n = ts_gpu_devices_listed(getenv("CUDA_VISIBLE_DEVICES"), nodes);
    atomic_store_explicit(&known, n, memory_order_relaxed);
    return n;
}
