/* The memory pool of a device that the GPU code takes its scratch from:
 * the kernels' partial-sum workspaces (tsk_run_parts) and the backend's
 * device buffers (cuda/context.c).  One per device, made on first use, never
 * the program's own: it keeps what is freed into it for the next call.  The
 * device's default pool gives its memory back at every synchronisation
 * (release threshold 0), so a call that took its scratch there mapped it
 * again each time (docs/performance.md, SYRK and TRSM on device data). */
#ifndef TSK_POOL_H
#define TSK_POOL_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The pool of `device`, or NULL when it cannot be made (or the device
 * index is beyond TS_MAX_DEVICES). */
cudaMemPool_t tsk_device_pool(int device);

#ifdef __cplusplus
}
#endif

#endif
