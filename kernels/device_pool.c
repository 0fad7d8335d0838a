/* tsk_device_pool (kernels/tsk_pool.h). */
#include "tsk_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/call.h" /* TS_MAX_DEVICES */

static _Atomic(cudaMemPool_t) pools[TS_MAX_DEVICES];
static pthread_mutex_t making = PTHREAD_MUTEX_INITIALIZER;

/* A pool of `device`'s memory that keeps freed memory, or NULL. */
static cudaMemPool_t make_pool(int device)
{
    struct cudaMemPoolProps props = { 0 };
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = NULL;
    uint64_t keep = UINT64_MAX;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess)
        return NULL;
    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
        cudaMemPoolDestroy(pool);
        return NULL;
    }
    return pool;
}

cudaMemPool_t tsk_device_pool(int device)
{
    if (device < 0 || device >= TS_MAX_DEVICES)
        return NULL;
    cudaMemPool_t pool = atomic_load_explicit(&pools[device], memory_order_acquire);
    if (pool != NULL)
        return pool;
    pthread_mutex_lock(&making);
    pool = atomic_load_explicit(&pools[device], memory_order_relaxed);
    if (pool == NULL) {
        pool = make_pool(device);
        atomic_store_explicit(&pools[device], pool, memory_order_release);
    }
    pthread_mutex_unlock(&making);
    return pool;
}
