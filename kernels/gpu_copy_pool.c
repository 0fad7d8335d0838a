#include "gpu_copy_pool.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

enum { MAX_THREADS = 16 };

/* Below this a copy runs on the calling thread: waking the pool costs more. */
#define SERIAL_BYTES ((size_t)256 << 10)

typedef struct {
    char *dst;
    const char *src;
    size_t dld, sld;    /* bytes */
    size_t rows, cols;  /* rows in bytes */
} copy_job;

static struct {
    pthread_mutex_t turn;  /* one copy at a time */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned long generation;
    int threads, pending;
    copy_job job;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
           PTHREAD_COND_INITIALIZER, 0, 1, 0, { 0 } };

static pthread_once_t start_once = PTHREAD_ONCE_INIT;

/* Part `part` of `parts`: whole columns when there are enough, else a band
 * of rows (cut at 64-byte lines) across every column. */
static void copy_part(const copy_job *j, int part, int parts)
{
    if (j->cols >= (size_t)parts) {
        size_t c0 = j->cols * (size_t)part / (size_t)parts, c1 = j->cols * (size_t)(part + 1) / (size_t)parts;
        for (size_t c = c0; c < c1; c++)
            memcpy(j->dst + c * j->dld, j->src + c * j->sld, j->rows);
        return;
    }
    size_t r0 = (j->rows * (size_t)part / (size_t)parts) & ~(size_t)63;
    size_t r1 = part + 1 == parts ? j->rows : (j->rows * (size_t)(part + 1) / (size_t)parts) & ~(size_t)63;
    for (size_t c = 0; c < j->cols && r1 > r0; c++)
        memcpy(j->dst + c * j->dld + r0, j->src + c * j->sld + r0, r1 - r0);
}

static void *worker(void *arg)
{
    int id = (int)(size_t)arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool.lock);
        while (pool.generation == seen)
            pthread_cond_wait(&pool.go, &pool.lock);
        seen = pool.generation;
        copy_job j = pool.job;
        int parts = pool.threads;
        pthread_mutex_unlock(&pool.lock);
        copy_part(&j, id, parts);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0)
            pthread_cond_signal(&pool.done);
        pthread_mutex_unlock(&pool.lock);
    }
    return NULL;
}

/* The workers live as long as the process; a fork child never copies (it
 * does not use the GPU), so it does not miss them. */
static void start(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 1; i < want; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, (void *)(size_t)i))
            break;
        pool.threads++;
    }
    pthread_attr_destroy(&attr);
}

int ts_copy_threads(void)
{
    pthread_once(&start_once, start);
    return pool.threads;
}

void ts_copy_2d(void *dst, size_t dld, const void *src, size_t sld, size_t rows, size_t cols, size_t elem)
{
    copy_job j = { dst, src, dld * elem, sld * elem, rows * elem, cols };
    /* A contiguous matrix is one long column: it splits evenly. */
    if (j.dld == j.rows && j.sld == j.rows) {
        j.rows *= cols;
        j.cols = 1;
    }
    if (j.rows * j.cols < SERIAL_BYTES || ts_copy_threads() == 1) {
        copy_part(&j, 0, 1);
        return;
    }
    pthread_mutex_lock(&pool.turn);
    pthread_mutex_lock(&pool.lock);
    pool.job = j;
    pool.pending = pool.threads - 1;
    pool.generation++;
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.lock);
    copy_part(&j, 0, pool.threads);
    pthread_mutex_lock(&pool.lock);
    while (pool.pending)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.turn);
}
