/* Many threads calling dgemm_ and zgemm_ at once, as OpenMP codes do: every
 * thread runs every shape each round, the shapes cover the shim's classes
 * (the scripts lower TSSHIM_MIN_LONG to 256, so LONG below is long) and a
 * small regular one, and every C must match OpenBLAS.  Built with
 * -DTS_WITH_CUDA the operands also rotate through pinned and device memory.
 * An alarm turns a deadlock into a failure.
 * Usage: threads_stress [THREADS [ROUNDS [SECONDS]]] (default 16 3 600) */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TS_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "checked_gemm.h"
#include "gemm_cases.h"
#include "tap.h"

enum { LONG = 384, W = 8 };

/* Where an operand lives during one call. */
typedef enum { MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE } mem_kind;
static const char *const mem_names[] = { "pageable", "pinned", "device" };

typedef struct {
    mem_kind a, b, c;
} residency;

#ifdef TS_WITH_CUDA
static const residency residencies[] = {
    { MEM_PAGEABLE, MEM_PAGEABLE, MEM_PAGEABLE },
    { MEM_PINNED, MEM_PINNED, MEM_PINNED },
    { MEM_DEVICE, MEM_DEVICE, MEM_DEVICE },
    { MEM_DEVICE, MEM_PAGEABLE, MEM_PINNED },
};
#else
static const residency residencies[] = { { MEM_PAGEABLE, MEM_PAGEABLE, MEM_PAGEABLE } };
#endif
enum { NRES = sizeof residencies / sizeof residencies[0] };

/* A copy of src in memory of the given kind; NULL when it cannot be had. */
static void *copy_in(mem_kind kind, const void *src, size_t bytes)
{
    void *p = NULL;
#ifdef TS_WITH_CUDA
    if (kind == MEM_DEVICE)
        return cudaMalloc(&p, bytes) || cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice) ? NULL : p;
    if (kind == MEM_PINNED && cudaMallocHost(&p, bytes))
        return NULL;
#endif
    if (kind == MEM_PAGEABLE)
        p = malloc(bytes);
    if (p)
        memcpy(p, src, bytes);
    return p;
}

static int copy_out(mem_kind kind, void *dst, const void *src, size_t bytes)
{
#ifdef TS_WITH_CUDA
    if (kind == MEM_DEVICE)
        return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) ? -1 : 0;
#endif
    (void)kind;
    memcpy(dst, src, bytes);
    return 0;
}

static void release(mem_kind kind, void *p)
{
#ifdef TS_WITH_CUDA
    if (kind == MEM_DEVICE) {
        cudaFree(p);
        return;
    }
    if (kind == MEM_PINNED) {
        cudaFreeHost(p);
        return;
    }
#endif
    (void)kind;
    free(p);
}

static checked_gemm cases[10];
static int ncases;

typedef struct {
    int calls, failed;
    double worst;
    char first[160];
} tally;

static tally tallies[sizeof cases / sizeof cases[0]][NRES];
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static int rounds;

static void record(int ci, int ri, double ratio, const char *why, int thread, int round)
{
    tally *t = &tallies[ci][ri];
    pthread_mutex_lock(&tally_lock);
    t->calls++;
    if (ratio > t->worst)
        t->worst = ratio;
    if ((why || !cg_ratio_ok(&cases[ci], ratio)) && t->failed++ == 0)
        snprintf(t->first, sizeof t->first, "thread %d round %d: %s", thread, round,
                 why ? why : "result differs from OpenBLAS");
    pthread_mutex_unlock(&tally_lock);
}

/* One call with the operands placed as r says; A and B stay shared between
 * the threads where pageable, as in a program whose threads share inputs. */
static void run_one(int ci, int ri, int thread, int round)
{
    const checked_gemm *g = &cases[ci];
    const residency *r = &residencies[ri];
    void *a = r->a == MEM_PAGEABLE ? g->a : copy_in(r->a, g->a, g->bytes_a);
    void *b = r->b == MEM_PAGEABLE ? g->b : copy_in(r->b, g->b, g->bytes_b);
    void *c = copy_in(r->c, g->c0, g->bytes_c);
    void *got = malloc(g->bytes_c);
    const char *why = NULL;
    double ratio = INFINITY;
    if (!a || !b || !c || !got)
        why = "cannot allocate the operands";
    else {
        cg_call(g, cg_tested(g->prec), a, b, c);
        if (copy_out(r->c, got, c, g->bytes_c))
            why = "cannot copy C back";
        else
            ratio = cg_ratio(g, got);
    }
    record(ci, ri, ratio, why, thread, round);
    if (a && a != g->a)
        release(r->a, a);
    if (b && b != g->b)
        release(r->b, b);
    if (c)
        release(r->c, c);
    free(got);
}

static void *worker(void *arg)
{
    int id = (int)(size_t)arg;
    pthread_barrier_wait(&start);
    for (int round = 0; round < rounds; round++)
        for (int ci = 0; ci < ncases; ci++)
            run_one(ci, (id + round + ci) % NRES, id, round);
    return NULL;
}

static void on_alarm(int sig)
{
    static const char msg[] = "Bail out! watchdog: the threads did not finish in time (deadlock?)\n";
    (void)sig;
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
        _exit(2);
    _exit(1);
}

static void report(int ci, int ri)
{
    const checked_gemm *g = &cases[ci];
    const residency *r = &residencies[ri];
    const tally *t = &tallies[ci][ri];
    tap_ok(!t->failed,
           "%s %s %c%c m=%d n=%d k=%d, A/B/C %s/%s/%s: %d of %d calls match OpenBLAS (worst ratio %.3g)%s%s",
           gemm_symbol(g->prec), g->name, g->transa, g->transb, g->m, g->n, g->k, mem_names[r->a], mem_names[r->b],
           mem_names[r->c], t->calls - t->failed, t->calls, t->worst, t->failed ? "; first failure: " : "", t->first);
}

static void add_case(const char *name, ts_prec p, char ta, char tb, int m, int n, int k)
{
    cg_prepare(&cases[ncases++], name, p, ta, tb, m, n, k, 3);
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 16;
    int seconds = argc > 3 ? atoi(argv[3]) : 600;
    char err[512];
    rounds = argc > 2 ? atoi(argv[2]) : 3;
    if (threads < 1 || rounds < 1 || seconds < 1) {
        printf("Bail out! usage: threads_stress [THREADS [ROUNDS [SECONDS]]]\n");
        return 1;
    }
    if (ref_blas_open(err, sizeof err)) {
        printf("Bail out! reference BLAS: %s\n", err);
        return 1;
    }
    signal(SIGALRM, on_alarm);
    alarm((unsigned)seconds);

    gc_seed(16);
    add_case("tsm2", TS_D, 'N', 'N', LONG, W, LONG);
    add_case("tsm2 mirror", TS_D, 'N', 'T', W, LONG, LONG);
    add_case("ism2", TS_D, 'N', 'N', LONG, W, W);
    add_case("tsmttsm", TS_D, 'T', 'N', W, W, LONG);
    add_case("rankk", TS_D, 'N', 'T', LONG, LONG, W);
    add_case("regular", TS_D, 'T', 'T', 37, 29, 23);
    add_case("tsm2", TS_Z, 'N', 'N', LONG, W, LONG);
    add_case("ism2", TS_Z, 'T', 'N', LONG, W, W);
    add_case("tsmttsm", TS_Z, 'C', 'N', W, W, LONG);
    add_case("regular", TS_Z, 'N', 'C', 19, 23, 17);

    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    int started = 0;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (; tid && started < threads; started++)
        if (pthread_create(&tid[started], NULL, worker, (void *)(size_t)started))
            break;
    if (started < threads) {
        printf("Bail out! could start only %d of %d threads\n", started, threads);
        return 1;
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    alarm(0);
    tap_diag("%d threads x %d rounds x %d shapes finished within the %d s watchdog", threads, rounds, ncases, seconds);

    for (int ci = 0; ci < ncases; ci++)
        for (int ri = 0; ri < NRES; ri++)
            if (tallies[ci][ri].calls)
                report(ci, ri);
    for (int ci = 0; ci < ncases; ci++)
        cg_free(&cases[ci]);
    free(tid);
    return tap_done();
}
