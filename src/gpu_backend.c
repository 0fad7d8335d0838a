#include "gpu_backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "gemm_entry.h"
#include "log.h"

/* The start: IDLE until a caller claims it, RUNNING while the plugin loads
 * and the device starts (on the claiming thread, or on the starter thread
 * of the background start), DONE once `loaded` says how it went. */
enum { START_IDLE, START_RUNNING, START_DONE };
static atomic_int start_state;
static const ts_gpu_ops *loaded;
static atomic_int forked;

/* A caller that needs the backend while another thread starts it waits this
 * long at most (a deadlock, e.g. a caller holding the loader's lock, ends in
 * the CPU path); the exit hooks wait EXIT_WAIT_S at most. */
#define CALL_WAIT_S 60.0
#define EXIT_WAIT_S 5.0

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
static void load(const char *where)
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
    /* What a program pays once for the GPU: on the call that starts it, or
     * on the starter thread. */
    double t2 = ts_now();
    ts_log(2, "GPU started in %.3f s (%s): backend loaded in %.3f s, device context in %.3f s", t2 - t0, where,
           t1 - t0, t2 - t1);
    loaded = ops;
}

/* Moves the start from IDLE to RUNNING: true for the one caller that then
 * loads (or has the starter thread load) the backend. */
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

/* The background start's thread: created joinable, joined by the exit hooks
 * (or by a later ts_gpu(), once it ended) so that it has ended, its own
 * thread-exit work in the CUDA runtime included, before a process exits. */
enum { STARTER_NONE, STARTER_JOINABLE, STARTER_JOINING, STARTER_JOINED };
static atomic_int starter_state;
static pthread_t starter;
static atomic_int exiting, in_background, cuda_before_start;

/* Joins the starter thread if it has ended, trying until the deadline. */
static void reap_starter(double deadline)
{
    int joinable = STARTER_JOINABLE;
    if (!atomic_compare_exchange_strong(&starter_state, &joinable, STARTER_JOINING))
        return;
    int err;
    while ((err = pthread_tryjoin_np(starter, NULL)) == EBUSY && pause_until(deadline))
        ;
    atomic_store(&starter_state, err ? STARTER_JOINABLE : STARTER_JOINED);
}

const ts_gpu_ops *ts_gpu(void)
{
    if (atomic_load_explicit(&forked, memory_order_relaxed))
        return NULL;
    double deadline = 0;
    for (;;) {
        int s = atomic_load_explicit(&start_state, memory_order_acquire);
        if (s == START_DONE)
            break;
        if (s == START_IDLE && claim_start()) {
            load("on the calling thread");
            finish_start();
            break;
        }
        if (deadline == 0)
            deadline = ts_now() + CALL_WAIT_S;
        if (s == START_RUNNING && !pause_until(deadline))
            return NULL;
    }
    if (atomic_load_explicit(&starter_state, memory_order_relaxed) == STARTER_JOINABLE)
        reap_starter(0);
    return loaded;
}

int ts_gpu_ready(void)
{
    return atomic_load_explicit(&start_state, memory_order_acquire) == START_DONE ||
           atomic_load_explicit(&forked, memory_order_relaxed);
}

void ts_gpu_after_fork(void)
{
    atomic_store(&forked, 1);
}

/* Why exiting during the background start is safe (an earlier starter
 * thread crashed in cublasLt: a library's initialiser ran inside dlopen
 * while exit() ran the exit handlers, among them the static destructors
 * that the CUDA libraries' initialisers had just registered).
 *
 * exit() first runs the exiting thread's thread_local destructors
 * (__cxa_thread_atexit_impl), then the atexit list, newest first, and last
 * _dl_fini, which takes the loader's lock (so it waits for a dlopen in
 * flight) and then runs the libraries' destructors.  Handlers the CUDA
 * libraries register while they load are newer than anything we could have
 * registered before, so only the first step comes early enough: a
 * thread-exit hook makes the exiting thread wait, before any exit handler
 * runs, until the start is done and the starter thread has ended.  The hook
 * is set on the initial thread (the constructor) and on every thread whose
 * call reaches the cost model before a start begins; the starter only
 * starts once the claiming thread is hooked.  Registering takes the
 * loader's lock, which the starter holds inside dlopen, and calls must not
 * wait: so a thread whose first such call comes during the start is not
 * hooked, nor is one that made none.  If such a thread calls exit() during
 * the start, the CUDA libraries' handlers may still run during their
 * initialisers (the old crash, reproduced without a GPU by making a device
 * "visible": CUDA_VISIBLE_DEVICES=0).  For those threads an atexit handler
 * registered when the start begins (so newer than the program's earlier
 * handlers and than _dl_fini) waits before any older handler and before
 * any library destructor, and keeps a starter that has not begun loading
 * from loading at all.  Both the
 * atexit handler and the shim's destructor set `exiting`, which a starter
 * that has not begun loading obeys (it loads nothing), and wait at most
 * EXIT_WAIT_S.  quick_exit and _exit run none of the libraries' handlers:
 * the starter simply ends with the process.  In a child forked meanwhile
 * (`forked`) the hooks do nothing: the starter does not exist there. */
static void settle(void)
{
    if (atomic_load(&forked) || atomic_load(&starter_state) == STARTER_NONE)
        return;
    double deadline = ts_now() + EXIT_WAIT_S;
    while (atomic_load(&start_state) == START_RUNNING && pause_until(deadline))
        ;
    reap_starter(deadline);
}

static void process_exit_hook(void)
{
    atomic_store(&exiting, 1);
    settle();
}

/* On the initial thread the hook runs when the process exits (or the
 * thread calls pthread_exit, after which background starts are not begun
 * either): no start begins on a thread of its own once exit() is under way,
 * since the CUDA libraries' handlers would then be newer than every hook. */
static void thread_exit_hook(void *unused)
{
    (void)unused;
    if (getpid() == (pid_t)syscall(SYS_gettid))
        atomic_store(&exiting, 1);
    settle();
}

extern int __cxa_thread_atexit_impl(void (*fn)(void *), void *arg, void *dso) __attribute__((weak));
extern void *__dso_handle;
static _Thread_local int exit_hooked __attribute__((tls_model("initial-exec")));

int ts_gpu_hook_thread_exit(void)
{
    if (exit_hooked)
        return 1;
    if (atomic_load(&start_state) != START_IDLE || !__cxa_thread_atexit_impl ||
        __cxa_thread_atexit_impl(thread_exit_hook, NULL, &__dso_handle))
        return 0;
    exit_hooked = 1;
    return 1;
}

static void *start_thread(void *unused)
{
    (void)unused;
    /* BLAS calls made by the libraries it loads go straight to the CPU BLAS. */
    ts_shim_thread();
    if (atomic_load(&exiting))
        ts_log(2, "GPU start skipped: the program is exiting");
    else
        load("on a background thread");
    finish_start();
    return NULL;
}

int ts_gpu_start_background(void)
{
    if (atomic_load(&start_state) != START_IDLE)
        return 1;
    if (atomic_load(&forked) || atomic_load(&exiting) || !ts_gpu_hook_thread_exit())
        return 0;
    if (!claim_start())
        return 1;
    static atomic_int atexit_set;
    if (!atomic_exchange(&atexit_set, 1))
        atexit(process_exit_hook);
    atomic_store(&cuda_before_start, ts_gpu_cuda_loaded());
    atomic_store(&in_background, 1);
    ts_log(2, "GPU start begun on a background thread; calls run on the CPU until it is done");
    /* The thread takes no signal of the program's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int err = pthread_create(&t, NULL, start_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        /* No thread: the caller starts it the old way. */
        ts_log(2, "no thread for the GPU start (%s); the call that earns it starts it", strerror(err));
        atomic_store(&in_background, 0);
        atomic_store(&start_state, START_IDLE);
        return 0;
    }
    starter = t;
    atomic_store(&starter_state, STARTER_JOINABLE);
    return 1;
}

void ts_gpu_stop(void) { process_exit_hook(); }

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
    /* While the background start runs, the CUDA driver in the process may be
     * the start's own: a program that had none when it began holds no
     * device pointer, and its calls do not wait for the start. */
    if (!ts_gpu_ready() && atomic_load(&in_background) && !atomic_load(&cuda_before_start))
        return;
    const ts_gpu_ops *g = ts_gpu();
    if (g)
        g->residency(c);
}
