/* The backend: loading the GPU plugin (src/common/gpu_plugin.h) and starting
 * it, on the first call that could run on the GPU or in the background; the
 * loader watch, the residency probe and the devices seen.  One file per job:
 *   plugin_loader.c  finds and loads libtsshim-cuda.so, binds the core's ops
 *   gpu_start.c      the device start (foreground, background starter, exit)
 *   loader_watch.c   objects loaded since startup; is the CUDA driver in?
 *   residency.c      where a call's operands live
 *   devices.c        the devices the process can see before the plugin says
 * Their mutable state is one struct, backend_state.h (internal). */
#ifndef TS_GPU_BACKEND_H
#define TS_GPU_BACKEND_H

#include <link.h>
#include <stddef.h>
#include "common/gpu_plugin.h"
#include "util/configuration.h"

/* --- The start (gpu_start.c) and the plugin loader (plugin_loader.c). --- */

/* The backend when a GPU is usable in this process, else NULL (no plugin, no
 * device, or a child after fork of a process that used CUDA).  The first
 * caller starts it; a caller that finds a start in flight (the background
 * start, or another thread's) waits for it. */
const ts_gpu_ops *ts_gpu(void);

/* The plugin's path: libtsshim-cuda.so beside the object holding the core
 * (libtsshim.so), or in the directory set by ts_gpu_set_plugin_dir (a
 * program that links the core, such as tsshim-doctor).  0 on success. */
int ts_gpu_plugin_path(char *out, size_t size);
void ts_gpu_set_plugin_dir(const char *dir);

/* Why ts_gpu() found no usable GPU ("" while it did, or was not asked). */
const char *ts_gpu_why(void);

/* What the plugin gets to call back (set before the first load; the layer
 * above, which owns the CPU BLAS, hands it over). */
void ts_gpu_bind_core(const ts_core_ops *ops);

/* True while a start is under way (claimed, not done) in this process. */
int ts_gpu_starting(void);

/* True once ts_gpu() returns at once: the backend's start (plugin, CUDA
 * context) is done, whether or not a GPU proved usable, or this is a child
 * after fork (no GPU). */
int ts_gpu_ready(void);

/* True once this process's start is done with a usable GPU (not in a child
 * after fork). */
int ts_gpu_started(void);

/* Begins the start, if none was begun: loads the CUDA libraries on the
 * calling thread (about 0.075 s), then starts the device on a thread of its
 * own.  True while a start is under way or done (no GPU included), false
 * where none can begin in the background (a child after fork, the process
 * exiting, no thread): then the caller decides when to start it. */
int ts_gpu_start_background(void);

/* At the shim's destructor: no background start begins any more, and one
 * in flight is waited for (bounded). */
void ts_gpu_stop(void);

/* fork() child handler: the child may not use the parent's CUDA context. */
void ts_gpu_after_fork(void);

/* --- The residency probe (residency.c). --- */

/* Fills the residency of the operands.  Only once ts_gpu_cuda_loaded()
 * said so: without CUDA in the process every operand is host memory. */
void ts_gpu_residency(ts_call *c);

/* --- The loader watch (loader_watch.c). --- */

/* True once the CUDA driver is (or may be) in the process; until then no
 * operand can be device memory.  Cheap: no lock while no object was loaded
 * after startup. */
int ts_gpu_cuda_loaded(void);

/* Notes the objects loaded at startup (from the constructor, or on first
 * use); later loads are detected against them. */
void ts_gpu_watch_init(void);

/* The loader list's last object while every object was loaded at startup
 * and none is the CUDA driver: as long as its l_next stays NULL, nothing
 * was loaded since and the driver is not in the process.  NULL when the
 * watch cannot tell (objects added before it started, or the driver seen). */
struct link_map *ts_gpu_startup_tail(void);

/* Whether nothing was loaded after the startup objects, given
 * ts_gpu_startup_tail's answer: one load, no lock (inline for the
 * forwarding path). */
static inline int ts_gpu_nothing_loaded_since(const struct link_map *tail)
{
    return tail && !__atomic_load_n(&tail->l_next, __ATOMIC_ACQUIRE);
}

/* Whether a loaded object's path names a part of the CUDA driver's own
 * (libnvidia-*: its JIT compiler and the like, which it loads as it
 * starts), not a library of the program's. */
int ts_gpu_driver_part(const char *path);

/* --- The devices seen (devices.c). --- */

/* Devices named by CUDA_VISIBLE_DEVICES (visible, when set: its entries),
 * else the driver's device nodes (nodes): what the process can see before
 * the plugin can say; 0 when none. */
int ts_gpu_devices_listed(const char *visible, int nodes);

/* ts_gpu_devices_listed of this process (/dev/nvidia[0-9]*), read once. */
int ts_gpu_devices_seen(void);

#endif
