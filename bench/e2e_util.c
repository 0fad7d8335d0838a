/* Timing, sizes, operand filling and a parallel loop for the end-to-end
 * benchmark.  Operands are filled and checked by one thread per core: the
 * whole case list has to run three times within minutes on the GPU host. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

double e2e_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void e2e_die(const char *what)
{
    fprintf(stderr, "bench_e2e: %s\n", what);
    exit(1);
}

long e2e_env_long(const char *name, long fallback)
{
    const char *s = getenv(name);
    return s && *s ? atol(s) : fallback;
}

long e2e_shrink(void)
{
    long v = e2e_env_long("E2E_SHRINK", 1);
    return v > 1 ? v : 1;
}

long e2e_dim(long v)
{
    long d = v >= 1024 ? v / e2e_shrink() : v;
    return d > 1 ? d : 1;
}

size_t e2e_elem_size(char prec) { return prec == 's' ? 4 : prec == 'd' ? 8 : 16; }

gemm_fn *e2e_gemm(char prec) { return prec == 's' ? sgemm_ : prec == 'd' ? dgemm_ : zgemm_; }

static const double one_d[2] = { 1, 0 }, zero_d[2] = { 0, 0 };
static const float one_s[2] = { 1, 0 }, zero_s[2] = { 0, 0 };

const void *e2e_one(char prec) { return prec == 's' ? (const void *)one_s : one_d; }
const void *e2e_zero(char prec) { return prec == 's' ? (const void *)zero_s : zero_d; }

typedef struct {
    void (*fn)(long, long, int, void *);
    void *arg;
    long i0, i1;
    int part;
} part_job;

static void *run_part(void *p)
{
    part_job *j = p;
    j->fn(j->i0, j->i1, j->part, j->arg);
    return NULL;
}

int e2e_parallel(long count, void (*fn)(long, long, int, void *), void *arg)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int parts = cores < 1 ? 1 : cores > E2E_MAX_PARTS ? E2E_MAX_PARTS : (int)cores;
    if (parts > count)
        parts = count > 0 ? (int)count : 1;
    part_job jobs[E2E_MAX_PARTS];
    pthread_t threads[E2E_MAX_PARTS];
    for (int p = 0; p < parts; p++) {
        jobs[p] = (part_job){ fn, arg, count * p / parts, count * (p + 1) / parts, p };
        if (p > 0 && pthread_create(&threads[p], NULL, run_part, &jobs[p]))
            e2e_die("cannot start a thread");
    }
    run_part(&jobs[0]);
    for (int p = 1; p < parts; p++)
        pthread_join(threads[p], NULL);
    return parts;
}

typedef struct {
    void *mem;
    char prec;
    unsigned seed;
} fill_job;

/* Each part seeds a generator of its own: the values depend on the number
 * of cores, which is harmless since the checks read the values written. */
static void fill_part(long i0, long i1, int part, void *arg)
{
    const fill_job *f = arg;
    uint32_t x = f->seed * 2654435761u + 12345u + 7919u * (uint32_t)part;
    for (long i = i0; i < i1; i++) {
        x = x * 1664525u + 1013904223u;
        double v = (double)(x >> 8) / 16777216.0 - 0.5;
        if (f->prec == 's')
            ((float *)f->mem)[i] = (float)v;
        else
            ((double *)f->mem)[i] = v;
    }
}

void e2e_fill(void *mem, size_t elems, char prec, unsigned seed)
{
    fill_job f = { mem, prec, seed };
    e2e_parallel((long)(elems * (prec == 'z' ? 2 : 1)), fill_part, &f);
}

void *e2e_host_operand(size_t elems, char prec, unsigned seed)
{
    void *p = malloc(elems ? elems * e2e_elem_size(prec) : 1);
    if (!p)
        e2e_die("out of host memory");
    e2e_fill(p, elems, prec, seed);
    return p;
}

void e2e_start_gpu(void)
{
    /* A Gram matrix of a 2^22 x 16 block: GPU-worthy in auto mode (its
     * savings repay the start within a few calls), on memory no case uses,
     * in single precision so that the exit report's dgemm_ line counts
     * the cases' calls alone. */
    int w = 16, k = (int)e2e_dim(1L << 22);
    float *a = e2e_host_operand((size_t)k * w, 's', 99), g[16 * 16];
    const char *warm = getenv("E2E_WARMUP_S");
    double until = e2e_now() + (warm ? atof(warm) : 0.0);
    do
        sgemm_("T", "N", &w, &w, &k, e2e_one('s'), a, &k, a, &k, e2e_zero('s'), g, &w, 1, 1);
    while (e2e_now() < until);
    free(a);
}
