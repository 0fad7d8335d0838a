/* The plugin ABI: the one interface between the plain-C core and the CUDA
 * backend.  The backend is a plugin (libtsshim-cuda.so, beside
 * libtsshim.so) loaded on the first call that could run on the GPU, so
 * programs that never offload never load CUDA, and a machine without CUDA
 * still runs the shim.  The core hands the plugin what it may call back
 * (ts_core_ops); the plugin hands the core its ops table (ts_gpu_ops). */
#ifndef TS_GPU_PLUGIN_H
#define TS_GPU_PLUGIN_H

#include <stddef.h>
#include "common/settings.h"
#include "common/slicing.h"
#include "common/call.h"

#define TS_GPU_ABI 10
#define TS_GPU_PLUGIN "libtsshim-cuda.so"
#define TS_GPU_OPS_SYMBOL "tsshim_gpu_ops"

/* gemm's answer when a cached operand proved stale (see its comment). */
enum { TS_GPU_STALE = 2 };

/* What the core lends the plugin: the CPU BLAS, for the part of a call the
 * GPU could not finish.  The plugin never calls an exported BLAS symbol. */
typedef struct {
    /* Computes a GEMM descriptor (column-major, any interface) with the CPU
     * BLAS's Fortran GEMM of its family. */
    void (*cpu_gemm)(const ts_call *c);
} ts_core_ops;

typedef struct {
    int abi; /* TS_GPU_ABI */
    /* The core's ops, handed over once, right after loading, before init. */
    void (*bind)(const ts_core_ops *core);
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
    /* A call of a level-3 routine other than GEMM (SYRK, HERK, TRSM, SYMM,
     * HEMM, TRMM, SYR2K, HER2K: src/common/level3_args.h) run to completion,
     * as gemm: cuBLAS, or the small-triangle TRSM kernel. */
    int (*level3)(ts_call *c, const ts_config *cfg, char *why, size_t why_len);
    /* The devices this process sees (CUDA_VISIBLE_DEVICES applies), and the
     * home device's free memory now in bytes (0 when unknown): what
     * src/multigpu/split_plan.c shares a call among, and when one device is too small. */
    int (*device_count)(void);
    size_t (*home_free)(void);
    /* A host matrix that every part of a split call reads whole
     * (src/multigpu/split_run.c): device memory on `device` for a copy of it (NULL when
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

#endif
