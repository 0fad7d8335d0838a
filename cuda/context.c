#include "context.h"

#include <pthread.h>
#include <stdlib.h>

#include "tsk_pool.h"

typedef struct {
    ts_gpu_context dev[TS_MAX_DEVICES];
    unsigned char ready[TS_MAX_DEVICES];
} thread_contexts;

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void destroy_thread(void *p)
{
    thread_contexts *t = p;
    for (int d = 0; d < TS_MAX_DEVICES; d++) {
        if (!t->ready[d])
            continue;
        if (t->dev[d].cublas)
            cublasDestroy(t->dev[d].cublas);
        cudaFree(t->dev[d].small_dev);
        cudaFreeHost(t->dev[d].small_host);
        cudaStreamDestroy(t->dev[d].stream);
    }
    free(t);
}

static void make_key(void) { pthread_key_create(&key, destroy_thread); }

ts_gpu_context *ts_gpu_context_get(int device, cudaError_t *err)
{
    *err = cudaSuccess;
    if (device < 0 || device >= TS_MAX_DEVICES) {
        *err = cudaErrorInvalidDevice;
        return NULL;
    }
    pthread_once(&key_once, make_key);
    thread_contexts *t = pthread_getspecific(key);
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t || pthread_setspecific(key, t)) {
            free(t);
            *err = cudaErrorMemoryAllocation;
            return NULL;
        }
    }
    ts_gpu_context *c = &t->dev[device];
    if (t->ready[device])
        return c;
    int major = 0, minor = 0;
    c->device = device;
    if ((*err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device)) ||
        (*err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device)) ||
        /* The device's pool, shared by all threads and the kernels. */
        (*err = (c->pool = tsk_device_pool(device)) ? cudaSuccess : cudaErrorMemoryAllocation) ||
        /* A blocking stream: a CUDA-aware caller's earlier work on the
         * legacy default stream (a cudaMemcpy to device returns before its
         * DMA ends) completes before our kernels read the operands. */
        (*err = cudaStreamCreateWithFlags(&c->stream, cudaStreamDefault)))
        return NULL;
    c->sm = major * 10 + minor;
    t->ready[device] = 1;
    return c;
}

cublasHandle_t ts_gpu_cublas(ts_gpu_context *c)
{
    if (c->cublas)
        return c->cublas;
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return NULL;
    cublasSetStream(h, c->stream);
    c->cublas = h;
    return h;
}

ts_device_scope ts_device_enter(int device)
{
    /* Not one initializer: cudaGetDevice's write to prev would be unordered
     * with the initialization of prev. */
    ts_device_scope s = { -1, device, cudaSuccess };
    s.err = cudaGetDevice(&s.prev);
    if (!s.err && s.prev != device)
        s.err = cudaSetDevice(device);
    return s;
}

void ts_device_leave(ts_device_scope s)
{
    if (s.prev >= 0 && s.prev != s.device)
        cudaSetDevice(s.prev);
    cudaGetLastError();
}
