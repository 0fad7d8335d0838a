#define _POSIX_C_SOURCE 200809L
#include "copy_pool.h"

#include "common/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Threads per device that moves data: 16 packed pageable memory at 42 GB/s
 * on the H200 host, about its link's pinned rate (../shared/GPU.md). */
enum { THREADS_PER_DEVICE = 16, MAX_PARTS = 64 };

/* A job is cut into a part per thread, of PART_BYTES at least: long
 * enough to amortise the claim, and a job of a few hundred kilobytes (a
 * mid-size call's piece) is spread over several threads. */
#define PART_BYTES ((size_t)64 << 10)

/* Jobs below this are copied by the thread that submits them: waking the
 * pool costs more, and in a busy program (a SciPy one, where two OpenBLAS
 * thread pools spin between calls) a worker that claimed a part can be
 * descheduled for a time slice while the caller waits for it. */
#define SERIAL_BYTES ((size_t)768 << 10)

static struct {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    ts_copy_job *head, *tail; /* jobs with parts left to claim */
    unsigned long finished;
    atomic_int threads; /* grows (ts_copy_devices) while others read it */
    atomic_int work;    /* head != NULL, for threads that watch without the lock */
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0, 0 };

static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Runs at least this long are copied with streaming stores. */
#define STREAM_BYTES ((size_t)16 << 10)

#ifdef __SSE2__
#include <emmintrin.h>

/* memcpy with non-temporal stores: the destination is not read first and
 * does not evict the cache, which is a third less memory traffic on a copy
 * that is bound by it (glibc streams only copies larger than most of the
 * last-level cache, far above one part).  Fenced, so the stores are
 * visible before the part is counted as done. */
static void copy_run(char *d, const char *s, size_t n)
{
    if (n < STREAM_BYTES) {
        memcpy(d, s, n);
        return;
    }
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i x0 = _mm_loadu_si128((const __m128i *)s), x1 = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i x2 = _mm_loadu_si128((const __m128i *)(s + 32)), x3 = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, x0);
        _mm_stream_si128((__m128i *)(d + 16), x1);
        _mm_stream_si128((__m128i *)(d + 32), x2);
        _mm_stream_si128((__m128i *)(d + 48), x3);
    }
    memcpy(d, s, n);
    _mm_sfence();
}
#else
static void copy_run(char *d, const char *s, size_t n) { memcpy(d, s, n); }
#endif

/* Part `part` of `parts`: whole columns when there are enough, else a band
 * of rows (cut at 64-byte lines) across every column. */
static void copy_part(const ts_copy_job *j, int part, int parts)
{
    if (j->cols >= (size_t)parts) {
        size_t c0 = j->cols * (size_t)part / (size_t)parts, c1 = j->cols * (size_t)(part + 1) / (size_t)parts;
        for (size_t c = c0; c < c1; c++)
            copy_run(j->dst + c * j->dld, j->src + c * j->sld, j->rows);
        return;
    }
    size_t r0 = (j->rows * (size_t)part / (size_t)parts) & ~(size_t)63;
    size_t r1 = part + 1 == parts ? j->rows : (j->rows * (size_t)(part + 1) / (size_t)parts) & ~(size_t)63;
    for (size_t c = 0; c < j->cols && r1 > r0; c++)
        copy_run(j->dst + c * j->dld + r0, j->src + c * j->sld + r0, r1 - r0);
}

/* Called with the lock held: the next part to copy, taking its job off
 * the queue when that was its last part. */
static ts_copy_job *claim(int *part)
{
    ts_copy_job *j = pool.head;
    *part = j->claimed++;
    if (j->claimed == j->parts) {
        pool.head = j->next;
        if (!pool.head) {
            pool.tail = NULL;
            atomic_store_explicit(&pool.work, 0, memory_order_relaxed);
        }
    }
    return j;
}

/* Copies a claimed part, without the lock. */
static void run_part(ts_copy_job *j, int part)
{
    long long t0 = now_ns();
    copy_part(j, part, j->parts);
    atomic_fetch_add(&j->busy_ns, now_ns() - t0);
    /* After the last decrement the job belongs to its submitter again. */
    if (atomic_fetch_sub_explicit(&j->left, 1, memory_order_acq_rel) == 1) {
        pthread_mutex_lock(&pool.lock);
        pool.finished++;
        pthread_cond_broadcast(&pool.done);
        pthread_mutex_unlock(&pool.lock);
    }
}

/* A sleeping thread takes tens of microseconds to wake, several times what
 * a mid-size call's part takes to copy: an idle worker first watches for
 * work this long. */
#define SPIN_NS 100000LL

static void spin_for_work(void)
{
    for (long long t0 = now_ns(); !atomic_load_explicit(&pool.work, memory_order_relaxed) && now_ns() - t0 < SPIN_NS;) {
#ifdef __SSE2__
        _mm_pause();
#endif
    }
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.head) {
            pthread_mutex_unlock(&pool.lock);
            spin_for_work();
            pthread_mutex_lock(&pool.lock);
            if (!pool.head)
                pthread_cond_wait(&pool.go, &pool.lock);
        }
        int part;
        ts_copy_job *j = claim(&part);
        pthread_mutex_unlock(&pool.lock);
        run_part(j, part);
        pthread_mutex_lock(&pool.lock);
    }
    return NULL;
}

int ts_copy_help(void)
{
    if (!atomic_load_explicit(&pool.work, memory_order_relaxed))
        return 0;
    int part = 0;
    pthread_mutex_lock(&pool.lock);
    ts_copy_job *j = pool.head ? claim(&part) : NULL;
    pthread_mutex_unlock(&pool.lock);
    if (j)
        run_part(j, part);
    return j != NULL;
}

void ts_copy_wake(void)
{
    if (ts_copy_threads() == 0)
        return;
    pthread_mutex_lock(&pool.lock);
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.lock);
}

/* Starts workers until `want` run (as many as can be made); under
 * pool.lock. */
static void hire(int want)
{
    while (pool.threads < want && !ts_thread_start(NULL, worker, NULL))
        pool.threads++;
}

/* Workers for `devices` devices moving data at once: THREADS_PER_DEVICE
 * each, but one core is left to each thread that drives a GPU. */
static int wanted(int devices)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN), room = cores - devices;
    long want = (long)THREADS_PER_DEVICE * devices;
    return (int)(room < 1 ? 1 : want < room ? want : room);
}

/* The workers live as long as the process; a fork child never copies (it
 * does not use the GPU), so it does not miss them. */
static void start(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&pool.done, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_lock(&pool.lock);
    hire(wanted(1));
    pthread_mutex_unlock(&pool.lock);
}

void ts_copy_devices(int devices)
{
    pthread_once(&start_once, start);
    pthread_mutex_lock(&pool.lock);
    hire(wanted(devices));
    pthread_mutex_unlock(&pool.lock);
}

int ts_copy_threads(void)
{
    pthread_once(&start_once, start);
    return atomic_load(&pool.threads);
}

static void describe(ts_copy_job *j, void *dst, size_t dld, const void *src, size_t sld, size_t rows, size_t cols,
                     size_t elem)
{
    j->dst = dst;
    j->src = src;
    j->dld = dld * elem;
    j->sld = sld * elem;
    j->rows = rows * elem;
    j->cols = cols;
    /* A contiguous matrix is one long column: it splits evenly. */
    if (j->dld == j->rows && j->sld == j->rows) {
        j->rows *= cols;
        j->cols = 1;
    }
    size_t parts = j->rows * j->cols / PART_BYTES, most = (size_t)atomic_load(&pool.threads);
    most = most < 1 ? 1 : most > MAX_PARTS ? MAX_PARTS : most;
    j->parts = parts < 1 ? 1 : parts > most ? (int)most : (int)parts;
    j->claimed = 0;
    j->next = NULL;
    atomic_store(&j->busy_ns, 0);
}

int ts_copy_pooled(size_t bytes) { return bytes >= SERIAL_BYTES; }

/* Small jobs, or without threads (none could be started): the submitter copies it. */
static void run_inline(ts_copy_job *j)
{
    j->parts = 1;
    long long t0 = now_ns();
    copy_part(j, 0, 1);
    atomic_store(&j->busy_ns, now_ns() - t0);
    atomic_store(&j->left, 0);
}

void ts_copy_submit(ts_copy_job *j, void *dst, size_t dld, const void *src, size_t sld, size_t rows, size_t cols,
                    size_t elem)
{
    int threads = ts_copy_threads(); /* started before the job is cut in parts for them */
    describe(j, dst, dld, src, sld, rows, cols, elem);
    if (threads == 0 || !ts_copy_pooled(rows * cols * elem)) {
        run_inline(j);
        return;
    }
    atomic_store(&j->left, j->parts);
    pthread_mutex_lock(&pool.lock);
    if (pool.tail)
        pool.tail->next = j;
    else
        pool.head = j;
    pool.tail = j;
    atomic_store_explicit(&pool.work, 1, memory_order_relaxed);
    if (j->parts > 1)
        pthread_cond_broadcast(&pool.go);
    else
        pthread_cond_signal(&pool.go);
    pthread_mutex_unlock(&pool.lock);
}

/* Both start the pool first: its condition variable is set up there. */
unsigned long ts_copy_epoch(void)
{
    ts_copy_threads();
    pthread_mutex_lock(&pool.lock);
    unsigned long e = pool.finished;
    pthread_mutex_unlock(&pool.lock);
    return e;
}

void ts_copy_wait(unsigned long *epoch, long timeout_us)
{
    ts_copy_threads();
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long long ns = until.tv_nsec + timeout_us * 1000LL;
    until.tv_sec += (time_t)(ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    pthread_mutex_lock(&pool.lock);
    int rc = 0;
    while (pool.finished == *epoch && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&pool.done, &pool.lock, &until);
    *epoch = pool.finished;
    pthread_mutex_unlock(&pool.lock);
}

void ts_copy_finish(ts_copy_job *j)
{
    unsigned long epoch = ts_copy_epoch();
    while (!ts_copy_done(j))
        if (!ts_copy_help())
            ts_copy_wait(&epoch, 1000);
}

void ts_copy_2d(void *dst, size_t dld, const void *src, size_t sld, size_t rows, size_t cols, size_t elem)
{
    ts_copy_job j;
    memset(&j, 0, sizeof j);
    ts_copy_submit(&j, dst, dld, src, sld, rows, cols, elem);
    ts_copy_finish(&j);
}
