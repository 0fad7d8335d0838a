#include "staging.h"

#include "ts_call.h" /* TS_MAX_DEVICES */

#include <pthread.h>

#define BUF_BYTES ((size_t)16 << 20)

static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static ts_staging per_device[TS_MAX_DEVICES];
static unsigned char ready[TS_MAX_DEVICES];
static unsigned char *pinned; /* shared by all devices: allocated portable */
static int nbuf;
static size_t buf_bytes;

void ts_staging_layout(int64_t total_bytes, int *n, size_t *bytes)
{
    size_t total = total_bytes > 0 ? (size_t)total_bytes : 0;
    size_t b = total / 8 < BUF_BYTES ? total / 8 : BUF_BYTES;
    b &= ~(size_t)4095;
    if (b < 4096)
        b = 4096;
    size_t count = total / b;
    *n = count < 8 ? 8 : count > TS_STAGING_MAX_BUFS ? TS_STAGING_MAX_BUFS : (int)count;
    *bytes = b;
}

static cudaError_t make_events(cudaEvent_t *ev, int count)
{
    for (int i = 0; i < count; i++) {
        cudaError_t err = cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);
        if (err)
            return err;
    }
    return cudaSuccess;
}

/* Streams and events of one device; a failure part way leaks what was made,
 * and the next call tries again (CUDA is broken then anyway). */
static cudaError_t make_device(ts_staging *s, int device)
{
    cudaError_t err;
    s->device = device;
    if ((err = cudaStreamCreateWithFlags(&s->h2d, cudaStreamNonBlocking)) ||
        (err = cudaStreamCreateWithFlags(&s->d2h, cudaStreamNonBlocking)) ||
        (err = make_events(s->buf_copied, TS_STAGING_MAX_BUFS)) || (err = make_events(s->loaded, 2)) ||
        (err = make_events(s->computed, 2)) || (err = make_events(s->stored, 2)) ||
        (err = make_events(s->returned, TS_STAGING_PENDING)))
        return err;
    return cudaSuccess;
}

ts_staging *ts_staging_acquire(int device, int64_t total_bytes, int buffers, cudaError_t *err)
{
    *err = cudaSuccess;
    if (device < 0 || device >= TS_MAX_DEVICES) {
        *err = cudaErrorInvalidDevice;
        return NULL;
    }
    pthread_mutex_lock(&ring_lock);
    ts_staging *s = &per_device[device];
    if (!ready[device]) {
        if ((*err = make_device(s, device)))
            goto fail;
        ready[device] = 1;
    }
    if (buffers && !pinned) {
        ts_staging_layout(total_bytes, &nbuf, &buf_bytes);
        if ((*err = cudaHostAlloc((void **)&pinned, (size_t)nbuf * buf_bytes, cudaHostAllocPortable))) {
            pinned = NULL;
            goto fail;
        }
    }
    s->mem = pinned;
    s->nbuf = nbuf;
    s->buf_bytes = buf_bytes;
    return s;
fail:
    pthread_mutex_unlock(&ring_lock);
    return NULL;
}

void ts_staging_release(ts_staging *s)
{
    (void)s;
    pthread_mutex_unlock(&ring_lock);
}
