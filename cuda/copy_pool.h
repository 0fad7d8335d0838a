/* Host-side copies between pageable memory and the pinned staging buffers,
 * run by a small persistent pool of threads: one thread copies well below
 * the PCIe link's rate (docs/performance.md), so it takes several to keep
 * up with it.  Copies are asynchronous jobs in one FIFO; each job is cut
 * into a part per thread, of 64 KB at least, that idle threads (and a
 * waiter, helping) claim one at a time, so several jobs (packing ahead,
 * unpacking) proceed at once and a job finishes soon after it is queued.
 * A job under 768 KB is copied by its submitter at once.
 * The pool threads never call CUDA.  Plain C. */
#ifndef TS_GPU_COPY_POOL_H
#define TS_GPU_COPY_POOL_H

#include <stdatomic.h>
#include <stddef.h>

/* One 2D copy in flight.  The submitter owns it: it may reuse or free it
 * once ts_copy_done says so, never before.  Zero-filled: done. */
typedef struct ts_copy_job {
    char *dst;
    const char *src;
    size_t dld, sld;        /* bytes */
    size_t rows, cols;      /* rows in bytes */
    int parts, claimed;     /* claimed: under the pool's lock */
    atomic_int left;        /* parts not copied yet */
    atomic_llong busy_ns;   /* thread time spent on it */
    struct ts_copy_job *next;
} ts_copy_job;

/* Queues the copy of a rows x cols matrix of elem-byte elements from src
 * (leading dimension sld, in elements) to dst (leading dimension dld); a
 * copy under 768 KB is made before it returns, on the calling thread. */
void ts_copy_submit(ts_copy_job *j, void *dst, size_t dld, const void *src, size_t sld, size_t rows, size_t cols,
                    size_t elem);

static inline int ts_copy_done(ts_copy_job *j) { return atomic_load_explicit(&j->left, memory_order_acquire) == 0; }

/* Seconds of thread time a finished job took. */
static inline double ts_copy_busy(ts_copy_job *j) { return 1e-9 * (double)atomic_load(&j->busy_ns); }

/* Counts finished jobs.  To wait without missing one: read the epoch, check
 * what you wait for, then ts_copy_wait: it returns when a job finished
 * after the epoch was read, or after timeout_us; *epoch is updated. */
unsigned long ts_copy_epoch(void);
void ts_copy_wait(unsigned long *epoch, long timeout_us);

/* Copies one part of a queued job on the calling thread, which would
 * otherwise wait for it: 1 if there was one.  A waiter that helps does not
 * wait for workers to wake. */
int ts_copy_help(void);

/* Returns once j is done, helping meanwhile. */
void ts_copy_finish(ts_copy_job *j);

/* Whether a job of `bytes` goes to the pool's threads (else its submitter
 * copies it). */
int ts_copy_pooled(size_t bytes);

/* Wakes the workers ahead of jobs about to come: they watch for work a
 * short while before sleeping again. */
void ts_copy_wake(void);

/* Synchronous ts_copy_submit: returns when the copy is done.  Thread-safe. */
void ts_copy_2d(void *dst, size_t dld, const void *src, size_t sld, size_t rows, size_t cols, size_t elem);

/* Threads of the pool: min(16, online cores - 1), at least 1, until
 * ts_copy_devices asks for more; starts it. */
int ts_copy_threads(void);

/* `devices` devices move data at once (one call split among them): the
 * pool grows to min(16 per device, online cores less one per device). */
void ts_copy_devices(int devices);

#endif
