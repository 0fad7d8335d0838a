/* End-to-end GEMM benchmark through the real interposition path: a program
 * that calls sgemm_/dgemm_/zgemm_ on its own data, as a legacy program does,
 * run by bench/run-e2e.sh without the shim, with it (auto) and with it
 * forced to the GPU.
 *
 *   bench_e2e --list            the shape names
 *   bench_e2e SHAPE [--direct]  one shape: a warm-up batch, repeated until
 *                               E2E_WARMUP_S seconds (default 0) have
 *                               passed, then 3 timed
 *                               batches of `calls` calls each; prints one
 *                               CSV line with the best batch's time per call
 *                               name,prec,m,n,k,memory,seconds,bytes_in,bytes_out,flops
 *
 * Host shapes use malloc'd (pageable) memory, pinned shapes cudaMallocHost.
 * Pinned, device and managed shapes get their memory from libcudart, opened
 * with dlopen so that pageable runs do not load CUDA (which would change
 * what the shim does per call); with --direct a device shape calls cuBLAS
 * itself (the baseline for the shim's overhead on device pointers).
 * Operands are filled by one thread per core: the whole shape list has to
 * run three times within a few minutes on the GPU host. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                     const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
extern gemm_fn sgemm_, dgemm_, zgemm_;

typedef enum { HOST, PINNED, DEVICE, MANAGED } memory;
static const char *const memory_names[] = { "host", "pinned", "device", "managed" };

typedef struct {
    const char *name;
    char prec; /* s, d, z */
    char ta, tb;
    long m, n, k;
    int beta_one; /* C += ... (rank-k updates); else C = ... */
    memory mem;
    int calls; /* per timed batch: enough that a batch is not lost in timer noise */
} shape;

enum { TIMED_BATCHES = 3 };

#define M24 (1L << 24)
#define M22 (1L << 22)

static const shape shapes[] = {
    { "tsm2_d_w2", 'd', 'N', 'N', 20480, 2, 20480, 0, HOST, 1 },
    { "tsm2_d_w8", 'd', 'N', 'N', 20480, 8, 20480, 0, HOST, 1 },
    { "tsm2_d_w16", 'd', 'N', 'N', 20480, 16, 20480, 0, HOST, 1 },
    { "tsm2_d_w64", 'd', 'N', 'N', 20480, 64, 20480, 0, HOST, 1 },
    { "ism2_d_w2", 'd', 'N', 'N', M24, 2, 2, 0, HOST, 1 },
    { "ism2_d_w8", 'd', 'N', 'N', M24, 8, 8, 0, HOST, 1 },
    { "ism2_d_w16", 'd', 'N', 'N', M24, 16, 16, 0, HOST, 1 },
    { "ism2_d_w64", 'd', 'N', 'N', M22, 64, 64, 0, HOST, 1 },
    { "tsmttsm_d_w2", 'd', 'T', 'N', 2, 2, M24, 0, HOST, 1 },
    { "tsmttsm_d_w8", 'd', 'T', 'N', 8, 8, M24, 0, HOST, 1 },
    { "tsmttsm_d_w16", 'd', 'T', 'N', 16, 16, M24, 0, HOST, 1 },
    { "tsmttsm_d_w64", 'd', 'T', 'N', 64, 64, M22, 0, HOST, 1 },
    { "rankk_d_w2", 'd', 'N', 'T', 8192, 8192, 2, 1, HOST, 1 },
    { "rankk_d_w8", 'd', 'N', 'T', 8192, 8192, 8, 1, HOST, 1 },
    { "rankk_d_w16", 'd', 'N', 'T', 8192, 8192, 16, 1, HOST, 1 },
    { "rankk_d_w64", 'd', 'N', 'T', 8192, 8192, 64, 1, HOST, 1 },
    { "square_d_4096", 'd', 'N', 'N', 4096, 4096, 4096, 0, HOST, 1 },
    { "tsm2_s_w16", 's', 'N', 'N', 20480, 16, 20480, 0, HOST, 1 },
    { "ism2_s_w16", 's', 'N', 'N', M24, 16, 16, 0, HOST, 1 },
    { "tsmttsm_s_w8", 's', 'T', 'N', 8, 8, M24, 0, HOST, 1 },
    { "square_s_4096", 's', 'N', 'N', 4096, 4096, 4096, 0, HOST, 1 },
    { "tsm2_z_w16", 'z', 'N', 'N', 20480, 16, 20480, 0, HOST, 1 },
    { "ism2_z_w16", 'z', 'N', 'N', 1L << 23, 16, 16, 0, HOST, 1 },
    { "tsmttsm_z_w8", 'z', 'T', 'N', 8, 8, 1L << 23, 0, HOST, 1 },
    { "square_z_2048", 'z', 'N', 'N', 2048, 2048, 2048, 0, HOST, 1 },
    { "small_d_8", 'd', 'N', 'N', 8, 8, 8, 0, HOST, 50000 },
    { "small_d_64", 'd', 'N', 'N', 64, 64, 64, 0, HOST, 5000 },
    { "small_z_32", 'z', 'N', 'N', 32, 32, 32, 1, HOST, 5000 },
    { "ism2_d_w16_pinned", 'd', 'N', 'N', M24, 16, 16, 0, PINNED, 1 },
    { "tsmttsm_d_w8_device", 'd', 'T', 'N', 8, 8, M24, 0, DEVICE, 5 },
    { "ism2_d_w16_device", 'd', 'N', 'N', M24, 16, 16, 0, DEVICE, 5 },
    { "small_d_8_device", 'd', 'N', 'N', 8, 8, 8, 0, DEVICE, 5000 },
    { "tsmttsm_d_w8_managed", 'd', 'T', 'N', 8, 8, M24, 0, MANAGED, 1 },
};

#define NSHAPES (sizeof shapes / sizeof shapes[0])

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_e2e: %s\n", what);
    exit(1);
}

/* The few CUDA runtime and cuBLAS entry points the device shapes need. */
typedef struct {
    int (*malloc_dev)(void **, size_t);
    int (*malloc_managed)(void **, size_t, unsigned);
    int (*malloc_host)(void **, size_t);
    int (*memcpy_any)(void *, const void *, size_t, int);
    int (*sync)(void);
    int (*cublas_create)(void **);
    int (*cublas_gemm)(void *, int, int, int, int, int, const double *, const double *, int, const double *, int,
                       const double *, double *, int);
} cuda_api;

static void *open_first(const char *const *names)
{
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_NOW | RTLD_GLOBAL);
        if (h)
            return h;
    }
    return NULL;
}

static void cuda_open(cuda_api *api, int cublas)
{
    static const char *const cudart[] = { "libcudart.so", "libcudart.so.13", "libcudart.so.12", NULL };
    static const char *const cublas_names[] = { "libcublas.so", "libcublas.so.13", "libcublas.so.12", NULL };
    void *rt = open_first(cudart);
    if (!rt)
        die("cannot dlopen libcudart.so");
    *(void **)&api->malloc_dev = dlsym(rt, "cudaMalloc");
    *(void **)&api->malloc_managed = dlsym(rt, "cudaMallocManaged");
    *(void **)&api->malloc_host = dlsym(rt, "cudaMallocHost");
    *(void **)&api->memcpy_any = dlsym(rt, "cudaMemcpy");
    *(void **)&api->sync = dlsym(rt, "cudaDeviceSynchronize");
    if (!api->malloc_dev || !api->malloc_managed || !api->malloc_host || !api->memcpy_any || !api->sync)
        die("libcudart.so lacks cudaMalloc/cudaMallocManaged/cudaMallocHost/cudaMemcpy/cudaDeviceSynchronize");
    if (!cublas)
        return;
    void *cb = open_first(cublas_names);
    if (!cb)
        die("cannot dlopen libcublas.so");
    *(void **)&api->cublas_create = dlsym(cb, "cublasCreate_v2");
    *(void **)&api->cublas_gemm = dlsym(cb, "cublasDgemm_v2");
    if (!api->cublas_create || !api->cublas_gemm)
        die("libcublas.so lacks cublasCreate_v2/cublasDgemm_v2");
}

static size_t elem_size(char prec) { return prec == 's' ? 4 : prec == 'd' ? 8 : 16; }

/* Part `part` of `parts` of an operand: values in [-0.5, 0.5) from a
 * generator seeded per part. */
typedef struct {
    char *mem;
    char prec;
    size_t reals;
    int part, parts;
} fill_job;

static void *fill_part(void *arg)
{
    const fill_job *f = arg;
    size_t i0 = f->reals * (size_t)f->part / (size_t)f->parts, i1 = f->reals * (size_t)(f->part + 1) / (size_t)f->parts;
    uint32_t x = 12345u + 7919u * (uint32_t)f->part;
    for (size_t i = i0; i < i1; i++) {
        x = x * 1664525u + 1013904223u;
        double v = (double)(x >> 8) / 16777216.0 - 0.5;
        if (f->prec == 's')
            ((float *)f->mem)[i] = (float)v;
        else
            ((double *)f->mem)[i] = v;
    }
    return NULL;
}

static void fill(void *mem, size_t bytes, char prec)
{
    enum { MAX_FILL = 64 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int parts = cores < 1 ? 1 : cores > MAX_FILL ? MAX_FILL : (int)cores;
    fill_job jobs[MAX_FILL];
    pthread_t threads[MAX_FILL];
    for (int i = 0; i < parts; i++) {
        jobs[i] = (fill_job){ mem, prec, bytes / (prec == 's' ? 4 : 8), i, parts };
        if (i > 0 && pthread_create(&threads[i], NULL, fill_part, &jobs[i]))
            die("cannot start a fill thread");
    }
    fill_part(&jobs[0]);
    for (int i = 1; i < parts; i++)
        pthread_join(threads[i], NULL);
}

/* An operand of `elems` elements in the shape's memory, filled. */
static void *operand(const shape *s, size_t elems, const cuda_api *api)
{
    size_t bytes = elems * elem_size(s->prec);
    if (!bytes)
        bytes = 1;
    void *p = NULL;
    if (s->mem == PINNED ? api->malloc_host(&p, bytes) != 0 : !(p = malloc(bytes)))
        die("out of host memory");
    fill(p, bytes, s->prec);
    if (s->mem == HOST || s->mem == PINNED)
        return p;
    void *dev = NULL;
    int err = s->mem == DEVICE ? api->malloc_dev(&dev, bytes) : api->malloc_managed(&dev, bytes, 1);
    if (err || api->memcpy_any(dev, p, bytes, 4 /* cudaMemcpyDefault */))
        die("CUDA allocation or copy failed");
    free(p);
    return dev;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < NSHAPES; i++)
            printf("%s\n", shapes[i].name);
        return 0;
    }
    const shape *s = NULL;
    for (size_t i = 0; argc >= 2 && i < NSHAPES; i++)
        if (!strcmp(argv[1], shapes[i].name))
            s = &shapes[i];
    int direct = argc >= 3 && !strcmp(argv[2], "--direct");
    if (!s)
        die("usage: bench_e2e --list | SHAPE [--direct]");

    cuda_api api = { 0 };
    if (s->mem != HOST)
        cuda_open(&api, direct);
    int m = (int)s->m, n = (int)s->n, k = (int)s->k;
    int lda = s->ta == 'N' ? m : k, ldb = s->tb == 'N' ? k : n, ldc = m;
    void *a = operand(s, (size_t)s->m * s->k, &api), *b = operand(s, (size_t)s->k * s->n, &api),
         *c = operand(s, (size_t)s->m * s->n, &api);
    /* Scalars of the widest precision; single precision reads the first float. */
    double alpha[2] = { 1, 0 }, beta[2] = { s->beta_one ? 1 : 0, 0 };
    float alphaf[2] = { 1, 0 }, betaf[2] = { (float)beta[0], 0 };
    const void *al = s->prec == 's' ? (const void *)alphaf : alpha, *be = s->prec == 's' ? (const void *)betaf : beta;
    gemm_fn *gemm = s->prec == 's' ? sgemm_ : s->prec == 'd' ? dgemm_ : zgemm_;
    void *handle = NULL;
    if (direct && (s->mem != DEVICE || s->prec != 'd' || api.cublas_create(&handle)))
        die("--direct needs a double-precision device shape and a working cuBLAS");

    /* The first batch pays the one-off setup (CUDA context, staging); with
     * E2E_WARMUP_S it stands for a long-running program's earlier calls. */
    const char *warm = getenv("E2E_WARMUP_S");
    double warm_until = now() + (warm ? atof(warm) : 0.0), best = 0;
    for (int batch = 0; batch <= TIMED_BATCHES; batch++) {
        double t0 = now();
        for (int r = 0; r < s->calls || (batch == 0 && now() < warm_until); r++) {
            if (direct)
                api.cublas_gemm(handle, s->ta == 'N' ? 0 : 1, s->tb == 'N' ? 0 : 1, m, n, k, alpha, a, lda, b, ldb,
                                beta, c, ldc);
            else
                gemm(&s->ta, &s->tb, &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1);
            /* BLAS is synchronous; direct cuBLAS is not, and waiting is part of the call. */
            if (direct)
                api.sync();
        }
        double t = (now() - t0) / s->calls;
        if (batch == 1 || (batch > 1 && t < best))
            best = t;
    }
    double es = (double)elem_size(s->prec), mn = (double)s->m * (double)s->n;
    int crosses = s->mem == HOST || s->mem == PINNED;
    double in = !crosses ? 0 : es * ((double)s->m * s->k + (double)s->k * s->n + (s->beta_one ? mn : 0));
    double out = !crosses ? 0 : es * mn;
    double flops = 2.0 * mn * (double)s->k * (s->prec == 'z' ? 4 : 1);
    printf("%s,%c,%ld,%ld,%ld,%s,%.9g,%.0f,%.0f,%.0f\n", s->name, s->prec, s->m, s->n, s->k, memory_names[s->mem],
           best, in, out, flops);
    return 0;
}
