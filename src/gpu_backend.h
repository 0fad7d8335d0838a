/* The one interface between the plain-C core and the CUDA backend.  The
 * backend is a plugin (libtsshim-cuda.so, beside libtsshim.so) loaded on the
 * first call that could run on the GPU, so programs that never offload never
 * load CUDA, and a machine without CUDA still runs the shim. */
#ifndef TS_GPU_BACKEND_H
#define TS_GPU_BACKEND_H

#include <link.h>
#include <stddef.h>
#include "configuration.h"
#include "slicing.h"
#include "ts_call.h"

#define TS_GPU_ABI 8
#define TS_GPU_PLUGIN "libtsshim-cuda.so"
#define TS_GPU_OPS_SYMBOL "tsshim_gpu_ops"

/* gemm's answer when a cached operand proved stale (see its comment). */
enum { TS_GPU_STALE = 2 };

typedef struct {
    int abi; /* TS_GPU_ABI */
    /* Selects the device and starts it (the context and a stream); 0 when
     * one is usable, else fills why. */
    int (*init)(const ts_config *cfg, char *why, size_t why_len);
    /* Makes on the home device what the first large call would otherwise
     * make on its own time: the pinned staging ring with its packing
     * threads, and cuBLAS's first handle.  The background start calls it
     * after init, off the program's threads; a failure is left to the
     * calls. */
    void (*prepare)(const ts_config *cfg);
    /* Sets res_a, res_b, res_c. */
    void (*residency)(ts_call *c);
    /* Runs the call to completion (BLAS is synchronous): 0 on success;
     * TS_GPU_STALE when c->prove said a cached operand's copy was not
     * current (C untouched: the caller refreshes the copy and runs the call
     * again); else C is untouched when the inputs were host memory, and why
     * is filled. */
    int (*gemm)(ts_call *c, const ts_config *cfg, char *why, size_t why_len);
    /* The operand cache's device memory, on the home device: bytes it may
     * hold (TSSHIM_CACHE_MB, else its share of the free memory), an
     * allocation (NULL when none), its release, and a copy of host bytes
     * into it through the pinned staging (0 on success). */
    size_t (*cache_budget)(const ts_config *cfg);
    void *(*cache_alloc)(size_t bytes);
    void (*cache_free)(void *dev);
    int (*cache_upload)(void *dev, const void *host, size_t bytes, const ts_config *cfg);
    /* A SYRK, HERK or TRSM call (src/level3_entry.h) run to completion, as
     * gemm: cuBLAS, or the small-triangle TRSM kernel. */
    int (*level3)(ts_call *c, const ts_config *cfg, char *why, size_t why_len);
    /* The devices this process sees (CUDA_VISIBLE_DEVICES applies), and the
     * home device's free memory now in bytes (0 when unknown): what
     * src/split.c shares a call among, and when one device is too small. */
    int (*device_count)(void);
    size_t (*home_free)(void);
    /* A host matrix that every part of a split call reads whole
     * (src/split.c): device memory on `device` for a copy of it (NULL when
     * it would not leave the part room to run), its release, a region of
     * the host matrix copied into the same place of the copy (pinned
     * memory by DMA, pageable through the staging ring), and `bytes` from
     * another device's copy into this one's.  Synchronous; 0 on success.
     * peer_on lets `device` reach `peer`'s memory, so that those copies
     * run peer to peer (NVLink, PCIe) instead of through host memory: 1
     * when it turned that on (peer_off turns it off again, once no copy
     * runs), 0 when it was on already (the program's) or cannot be. */
    void *(*replica_alloc)(int device, size_t bytes);
    void (*replica_free)(int device, void *dev);
    int (*replica_upload)(int device, void *dev, const void *host, const ts_region *r, size_t elem,
                          ts_residency res, const ts_config *cfg);
    int (*replica_pull)(int device, void *dst, int src_device, const void *src, size_t bytes);
    int (*peer_on)(int device, int peer);
    void (*peer_off)(int device, int peer);
} ts_gpu_ops;

/* The backend when a GPU is usable in this process, else NULL (no plugin, no
 * device, or a child after fork of a process that used CUDA).  The first
 * caller starts it; a caller that finds a start in flight (the background
 * start, or another thread's) waits for it. */
const ts_gpu_ops *ts_gpu(void);

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

/* Fills the residency of the operands; all host unless CUDA is loaded in
 * the process (no CUDA, no device pointers). */
void ts_gpu_residency(ts_call *c);

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

/* fork() child handler: the child may not use the parent's CUDA context. */
void ts_gpu_after_fork(void);

#endif
