#include "staging.h"

#include "copy_pool.h"
#include "common/call.h" /* TS_MAX_DEVICES */

#include <pthread.h>
#include <stdatomic.h>

#define BUF_BYTES ((size_t)16 << 20)
#define MIN_BUF_BYTES ((size_t)256 << 10)
#define CALL_PIECES 8

/* Pinning the whole ring at the start slowed the program's own work
 * meanwhile, and the calls of many programs (small blocks, operands that
 * stay cached) never need it; a ring of START_BYTES serves them.  Calls
 * that stream gigabytes through it every time go far faster with the whole
 * ring (docs/performance.md), so it grows once GROW_AFTER bytes went
 * through it, or for a call that streams the whole ring's size or more,
 * which on the small ring loses about what growing costs. */
#define START_BYTES ((int64_t)32 << 20)
#define GROW_AFTER ((uint64_t)1 << 30)

/* Each device's ring, under its own lock: devices have links of their own,
 * so calls on different devices (one call split among them, src/multigpu/split_run.c)
 * move data at once. */
typedef struct {
    pthread_mutex_t lock;
    ts_staging s;
    unsigned char ready; /* streams and events made */
    _Atomic uint64_t streamed; /* bytes packed and unpacked through it */
    _Atomic int64_t made;      /* bytes of s.mem (read without the lock by ts_staging_bytes) */
} device_ring;

static device_ring rings[TS_MAX_DEVICES];
static pthread_once_t locks_once = PTHREAD_ONCE_INIT;
static atomic_int devices_staging; /* devices whose ring was made */

static void init_locks(void)
{
    for (int d = 0; d < TS_MAX_DEVICES; d++)
        pthread_mutex_init(&rings[d].lock, NULL);
}

void ts_staging_layout(int64_t total_bytes, uint64_t call_bytes, int *n, size_t *bytes)
{
    size_t total = total_bytes > 0 ? (size_t)total_bytes : 0;
    size_t b = total / 8 < BUF_BYTES ? total / 8 : BUF_BYTES;
    /* A call's first DMA waits for its first buffer to be packed: a call
     * of a few megabytes moves in CALL_PIECES pieces, so that packing,
     * the link and unpacking overlap within it. */
    size_t want = (size_t)(call_bytes / CALL_PIECES);
    if (call_bytes && want < b)
        b = want > MIN_BUF_BYTES ? want : MIN_BUF_BYTES;
    b &= ~(size_t)4095;
    if (b < 4096)
        b = 4096;
    size_t count = total / b;
    *n = count < 8 ? 8 : count > TS_STAGING_MAX_BUFS ? TS_STAGING_MAX_BUFS : (int)count;
    *bytes = b;
}

static size_t layout_bytes(int64_t total)
{
    int n;
    size_t bytes;
    ts_staging_layout(total, 0, &n, &bytes);
    return (size_t)n * bytes;
}

int64_t ts_staging_bytes(int device, int64_t full, uint64_t call_bytes)
{
    if (device < 0 || device >= TS_MAX_DEVICES || full <= START_BYTES || call_bytes >= (uint64_t)full)
        return full;
    device_ring *r = &rings[device];
    int grown = (size_t)atomic_load(&r->made) >= layout_bytes(full) || atomic_load(&r->streamed) >= GROW_AFTER;
    return grown ? full : START_BYTES;
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

ts_staging *ts_staging_acquire(int device, int64_t total_bytes, uint64_t call_bytes, int buffers, cudaError_t *err)
{
    *err = cudaSuccess;
    if (device < 0 || device >= TS_MAX_DEVICES) {
        *err = cudaErrorInvalidDevice;
        return NULL;
    }
    pthread_once(&locks_once, init_locks);
    device_ring *r = &rings[device];
    pthread_mutex_lock(&r->lock);
    ts_staging *s = &r->s;
    if (!r->ready) {
        if ((*err = make_device(s, device)))
            goto fail;
        r->ready = 1;
        /* Each device that moves data needs packing threads of its own. */
        ts_copy_devices(atomic_fetch_add(&devices_staging, 1) + 1);
    }
    s->made_now = 0;
    if (buffers) {
        ts_staging_layout(total_bytes, call_bytes, &s->nbuf, &s->buf_bytes);
        size_t need = layout_bytes(total_bytes);
        /* The last holder synchronised its copies before it gave the ring
         * back, so the smaller ring can go. */
        if ((size_t)atomic_load(&r->made) < need) {
            if (s->mem)
                cudaFreeHost(s->mem);
            s->mem = NULL;
            atomic_store(&r->made, 0);
            if ((*err = cudaHostAlloc((void **)&s->mem, need, cudaHostAllocPortable))) {
                s->mem = NULL;
                goto fail;
            }
            s->made_now = 1;
            atomic_store(&r->made, (int64_t)need);
        }
    }
    return s;
fail:
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

void ts_staging_release(ts_staging *s, uint64_t streamed)
{
    atomic_fetch_add(&rings[s->device].streamed, streamed);
    pthread_mutex_unlock(&rings[s->device].lock);
}
