/* Starting the device: in the foreground on the first call that needs it,
 * or on the background starter thread, and settling a start in flight at
 * exit. */
#include "backend/gpu_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend_state.h"
#include "common/clock.h"
#include "common/thread.h"
#include "util/reentry.h"
#include "util/log.h"

/* A caller that needs the backend while another thread starts it waits this
 * long at most (a deadlock, e.g. a caller holding the loader's lock, ends in
 * the CPU path); an exit waits EXIT_WAIT_S at most. */
#define CALL_WAIT_S 60.0
#define EXIT_WAIT_S 5.0

/* Starts the device: the CUDA context and a stream, so the first offloaded
 * call finds them made (cuBLAS and the pinned staging are made by the first
 * call that needs them: cuda/plugin.c). */
static void start_device(const ts_gpu_ops *ops, const char *where)
{
    char why[256] = "";
    double t1 = ts_now();
    if (ops->init(ts_config_get(), why, sizeof why)) {
        snprintf(ts_backend.why_not, sizeof ts_backend.why_not, "no usable GPU: %s", why);
        ts_log(1, "no usable GPU (%s); every call runs on the CPU", why);
        return;
    }
    /* What a program pays once for the GPU, and which thread paid it. */
    double t2 = ts_now();
    ts_log(2, "GPU started in %.3f s: backend loaded in %.3f s on the calling thread, device context in %.3f s %s",
           t2 - ts_backend.start_t0, ts_backend.load_s, t2 - t1, where);
    ts_backend.loaded = ops;
}

/* Moves the start from IDLE to RUNNING: true for the one caller that then
 * loads the backend. */
static int claim_start(void)
{
    int idle = START_IDLE;
    return atomic_compare_exchange_strong(&ts_backend.start_state, &idle, START_RUNNING);
}

static void finish_start(void) { atomic_store_explicit(&ts_backend.start_state, START_DONE, memory_order_release); }

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
    if (atomic_load_explicit(&ts_backend.forked, memory_order_relaxed))
        return NULL;
    double deadline = 0;
    for (;;) {
        int s = atomic_load_explicit(&ts_backend.start_state, memory_order_acquire);
        if (s == START_DONE)
            return ts_backend.loaded;
        if (s == START_IDLE && claim_start()) {
            const ts_gpu_ops *ops = ts_backend_load();
            if (ops)
                start_device(ops, "on the calling thread");
            finish_start();
            return ts_backend.loaded;
        }
        if (deadline == 0)
            deadline = ts_now() + CALL_WAIT_S;
        if (s == START_RUNNING && !pause_until(deadline))
            return NULL;
    }
}

int ts_gpu_starting(void)
{
    return atomic_load_explicit(&ts_backend.start_state, memory_order_acquire) == START_RUNNING &&
           !atomic_load_explicit(&ts_backend.forked, memory_order_relaxed);
}

int ts_gpu_ready(void)
{
    return atomic_load_explicit(&ts_backend.start_state, memory_order_acquire) == START_DONE ||
           atomic_load_explicit(&ts_backend.forked, memory_order_relaxed);
}

int ts_gpu_started(void)
{
    return atomic_load_explicit(&ts_backend.start_state, memory_order_acquire) == START_DONE && ts_backend.loaded &&
           !atomic_load_explicit(&ts_backend.forked, memory_order_relaxed);
}

void ts_gpu_after_fork(void)
{
    atomic_store(&ts_backend.forked, 1);
}

/* Why exiting during the background start is safe.  The CUDA libraries'
 * initialisers register exit handlers (static destructors); exit() runs the
 * atexit list newest first, then _dl_fini the libraries' destructors.  Run
 * while one of those initialisers was still running on a thread of ours,
 * they crashed in cublasLt.  So the start loads every library on the
 * calling thread (ts_backend_load), before any thread of ours exists: once
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
    atomic_store(&ts_backend.exiting, 1);
    if (atomic_load(&ts_backend.forked) || atomic_load(&ts_backend.starter_state) == STARTER_NONE)
        return;
    double deadline = ts_now() + EXIT_WAIT_S;
    while (atomic_load(&ts_backend.start_state) == START_RUNNING && pause_until(deadline))
        ;
    int joinable = STARTER_JOINABLE;
    if (atomic_load(&ts_backend.start_state) == START_DONE &&
        atomic_compare_exchange_strong(&ts_backend.starter_state, &joinable, STARTER_JOINED))
        pthread_join(ts_backend.starter, NULL);
}

static void *start_thread(void *ops)
{
    /* BLAS calls made during the device start go straight to the CPU BLAS. */
    ts_reentry_shim_thread();
    if (atomic_load(&ts_backend.exiting))
        ts_log(2, "GPU start skipped: the program is exiting");
    else
        start_device(ops, "on a background thread");
    /* Calls wait on the CPU until this is done too, so the first one the
     * model sends to the GPU finds all it needs made. */
    if (ts_backend.loaded && !atomic_load(&ts_backend.exiting)) {
        double t0 = ts_now();
        ts_backend.loaded->prepare(ts_config_get());
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
    atomic_store(&ts_backend.starter_state, STARTER_JOINABLE);
    if (!atomic_exchange(&ts_backend.exit_wait_set, 1))
        atexit(settle);
    int err = ts_thread_start(&ts_backend.starter, start_thread, (void *)ops);
    if (err)
        atomic_store(&ts_backend.starter_state, STARTER_NONE);
    return err;
}

int ts_gpu_start_background(void)
{
    if (atomic_load(&ts_backend.start_state) != START_IDLE)
        return 1;
    if (atomic_load(&ts_backend.forked) || atomic_load(&ts_backend.exiting))
        return 0;
    if (!claim_start())
        return 1;
    int had_cuda = ts_gpu_cuda_loaded();
    const ts_gpu_ops *ops = ts_backend_load();
    if (!ops) {
        finish_start();
        return 1;
    }
    if (!had_cuda)
        ts_backend_loader_snapshot();
    ts_log(2, "GPU backend loaded in %.3f s on the calling thread; the device context starts on a background "
           "thread, calls run on the CPU until it is done", ts_backend.load_s);
    int err = begin_starter(ops);
    if (err) {
        /* No thread: the call that earns the start makes it, as without a
         * background start (loading the libraries again finds them loaded). */
        ts_log(2, "no thread for the GPU start (%s); the call that earns it starts it", strerror(err));
        atomic_store(&ts_backend.own_adds, 0);
        atomic_store(&ts_backend.start_state, START_IDLE);
        return 0;
    }
    return 1;
}

void ts_gpu_stop(void) { settle(); }
