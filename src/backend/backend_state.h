/* The backend's mutable state, in one struct (backend_state.c owns it), and
 * what its files call of each other.  Internal to src/backend/: the layers
 * above include backend/gpu_backend.h only. */
#ifndef TS_BACKEND_STATE_H
#define TS_BACKEND_STATE_H

#include <link.h>
#include <pthread.h>
#include <stdatomic.h>

#include "common/gpu_plugin.h"

/* The start: IDLE until a caller claims it, RUNNING while the libraries
 * load and the device starts (on the claiming thread, the device part of
 * a background start on the starter thread), DONE once `loaded` says how
 * it went. */
enum { START_IDLE, START_RUNNING, START_DONE };

/* The background start's thread: created joinable, and joined at exit, so
 * that it has ended, its own thread-exit work in the CUDA runtime included,
 * before the CUDA libraries' exit handlers run. */
enum { STARTER_NONE, STARTER_JOINABLE, STARTER_JOINED };

typedef struct {
    /* The plugin loader (plugin_loader.c). */
    const ts_core_ops *core; /* the core's ops the plugin is handed (ts_gpu_bind_core) */
    /* When the start began, and how long loading the libraries took: the log
     * line of the device start reports both parts. */
    double start_t0, load_s;
    /* A directory named by a program that links the core itself
     * (tsshim-doctor), else "" (beside libtsshim.so). */
    char plugin_dir[4096];
    /* Why the backend is not usable, as the log said it (ts_gpu_why). */
    char why_not[512];

    /* The start (gpu_start.c). */
    atomic_int start_state; /* START_* */
    const ts_gpu_ops *loaded;
    atomic_int forked;
    atomic_int starter_state; /* STARTER_* */
    pthread_t starter;
    atomic_int exiting;
    atomic_int exit_wait_set; /* settle is registered with atexit */

    /* The loader watch (loader_watch.c). */
    /* The loader's count of objects ever added once a background start loaded
     * its libraries into a process that had no CUDA driver before, else 0.
     * While the count stays so and the start runs, every CUDA object in the
     * process is the start's own, so no operand can be device memory and no
     * call need wait for the start (ts_gpu_residency); a later load, the
     * program's own CUDA say, makes calls wait for it. */
    _Atomic unsigned long long own_adds;
    /* The loader's list as the start left it (own_adds): its length and the
     * count of objects ever removed.  While the device starts, the CUDA driver
     * loads parts of its own (libnvidia-*); those are still the start's, so
     * calls need not wait for it (ts_gpu_residency). */
    _Atomic int own_objects;
    _Atomic unsigned long long own_subs;
    atomic_int said_wait; /* "calls wait for the GPU start" was logged */
    atomic_int cuda_seen;
    /* The last object of the loader's list while every loaded object was loaded
     * at startup (none ever added by dlopen).  Startup objects are never
     * unloaded, and dlopen appends to the list, so its l_next stays NULL until
     * some object is added: one load, no lock. */
    struct link_map *startup_tail;
    pthread_once_t startup_once;
    _Atomic unsigned long long checked_adds; /* the loader's count at the last walk */

    /* The devices seen (devices.c): -1 until read. */
    atomic_int devices_known;
} ts_backend_state;

extern ts_backend_state ts_backend;

/* plugin_loader.c: loads the CUDA driver and the plugin on the calling
 * thread; the plugin's ops table, or NULL, logged. */
const ts_gpu_ops *ts_backend_load(void);

/* loader_watch.c: the loader's count of objects ever added (under the
 * loader's lock). */
unsigned long long ts_backend_loader_adds(void);

/* loader_watch.c: notes the loader's list as a background start left it
 * (own_adds, own_objects, own_subs). */
void ts_backend_loader_snapshot(void);

/* loader_watch.c: whether every object loaded since the snapshot is a part
 * of the driver's (and none was removed); then the snapshot moves past them. */
int ts_backend_only_driver_parts_added(void);

#endif
