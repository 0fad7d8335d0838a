/* End-to-end GEMM benchmark through the real interposition path: a program
 * that calls sgemm_/dgemm_/zgemm_ on its own data, as a legacy program does,
 * run by bench/run-e2e.sh without the shim, with it (auto) and with it
 * forced to the GPU.
 *
 *   bench_e2e --list            the cases: name, class and kind per line
 *   bench_e2e CASE [--direct]   one case; prints one CSV line
 *       name,class,kind,prec,m,n,k,memory,seconds,bytes_in,bytes_out,flops,first_s,check,steady_s
 *
 * Kinds (what `seconds` is):
 *   call     a warm-up batch, repeated until E2E_WARMUP_S seconds (default
 *            0) have passed, then 3 timed batches of `calls` calls each: the
 *            best batch's time per call (first_s -1)
 *   reuse    the same big operand in every call (e2e_reuse.c): the mean
 *            call after the first; first_s the first call; steady_s the
 *            fastest call after the first three
 *   chain    W = A V, G = V^T W, V = W Q (e2e_reuse.c): the mean iteration
 *            after the first; first_s the first; steady_s the fastest
 *            iteration after the first three
 *   program  a whole short program, CPU work then one GEMM, run as a child
 *            process (e2e_program.c): its wall time; first_s its GEMM
 * steady_s is -1 for the other kinds.  `check` is ok when e^T C matched e^T op(A) op(B) (e2e_check.c), FAIL
 * otherwise (and a line on stderr), "-" where C lives on the device.
 * E2E_SHRINK=N divides every dimension of 1024 or more by N: a smoke run.
 *
 * Host cases use malloc'd (pageable) memory, pinned ones cudaMallocHost.
 * Pinned, device and managed memory come from libcudart, opened with
 * dlopen so that pageable runs do not load CUDA (which would change what
 * the shim does per call); with --direct a device case calls cuBLAS itself
 * (the baseline for the shim's overhead on device pointers). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static const char *const memory_names[] = { "host", "pinned", "device", "managed" };

enum { TIMED_BATCHES = 3 };

#define M24 (1L << 24)
#define M22 (1L << 22)
#define CALL(name, cls, p, ta, tb, m, n, k, beta, mem, calls) \
    { name, cls, "call", p, ta, tb, m, n, k, beta, mem, calls, e2e_run_call }

static const e2e_case cases[] = {
    CALL("tsm2_d_w2", "tsm2", 'd', 'N', 'N', 20480, 2, 20480, 0, HOST, 1),
    CALL("tsm2_d_w8", "tsm2", 'd', 'N', 'N', 20480, 8, 20480, 0, HOST, 1),
    CALL("tsm2_d_w16", "tsm2", 'd', 'N', 'N', 20480, 16, 20480, 0, HOST, 1),
    CALL("tsm2_d_w64", "tsm2", 'd', 'N', 'N', 20480, 64, 20480, 0, HOST, 1),
    CALL("ism2_d_w2", "ism2", 'd', 'N', 'N', M24, 2, 2, 0, HOST, 1),
    CALL("ism2_d_w8", "ism2", 'd', 'N', 'N', M24, 8, 8, 0, HOST, 1),
    CALL("ism2_d_w16", "ism2", 'd', 'N', 'N', M24, 16, 16, 0, HOST, 1),
    CALL("ism2_d_w64", "ism2", 'd', 'N', 'N', M22, 64, 64, 0, HOST, 1),
    CALL("tsmttsm_d_w2", "tsmttsm", 'd', 'T', 'N', 2, 2, M24, 0, HOST, 1),
    CALL("tsmttsm_d_w8", "tsmttsm", 'd', 'T', 'N', 8, 8, M24, 0, HOST, 1),
    CALL("tsmttsm_d_w16", "tsmttsm", 'd', 'T', 'N', 16, 16, M24, 0, HOST, 1),
    CALL("tsmttsm_d_w64", "tsmttsm", 'd', 'T', 'N', 64, 64, M22, 0, HOST, 1),
    CALL("rankk_d_w2", "rankk", 'd', 'N', 'T', 8192, 8192, 2, 1, HOST, 1),
    CALL("rankk_d_w8", "rankk", 'd', 'N', 'T', 8192, 8192, 8, 1, HOST, 1),
    CALL("rankk_d_w16", "rankk", 'd', 'N', 'T', 8192, 8192, 16, 1, HOST, 1),
    CALL("rankk_d_w64", "rankk", 'd', 'N', 'T', 8192, 8192, 64, 1, HOST, 1),
    CALL("square_d_4096", "regular", 'd', 'N', 'N', 4096, 4096, 4096, 0, HOST, 1),
    CALL("tsm2_s_w16", "tsm2", 's', 'N', 'N', 20480, 16, 20480, 0, HOST, 1),
    CALL("ism2_s_w16", "ism2", 's', 'N', 'N', M24, 16, 16, 0, HOST, 1),
    CALL("tsmttsm_s_w8", "tsmttsm", 's', 'T', 'N', 8, 8, M24, 0, HOST, 1),
    CALL("square_s_4096", "regular", 's', 'N', 'N', 4096, 4096, 4096, 0, HOST, 1),
    CALL("tsm2_z_w16", "tsm2", 'z', 'N', 'N', 20480, 16, 20480, 0, HOST, 1),
    CALL("ism2_z_w16", "ism2", 'z', 'N', 'N', 1L << 23, 16, 16, 0, HOST, 1),
    CALL("tsmttsm_z_w8", "tsmttsm", 'z', 'T', 'N', 8, 8, 1L << 23, 0, HOST, 1),
    CALL("square_z_2048", "regular", 'z', 'N', 'N', 2048, 2048, 2048, 0, HOST, 1),
    CALL("small_d_8", "small", 'd', 'N', 'N', 8, 8, 8, 0, HOST, 50000),
    CALL("small_d_64", "small", 'd', 'N', 'N', 64, 64, 64, 0, HOST, 5000),
    CALL("small_z_32", "small", 'z', 'N', 'N', 32, 32, 32, 1, HOST, 5000),
    CALL("ism2_d_w16_pinned", "ism2", 'd', 'N', 'N', M24, 16, 16, 0, PINNED, 1),
    CALL("tsmttsm_d_w8_device", "tsmttsm", 'd', 'T', 'N', 8, 8, M24, 0, DEVICE, 5),
    CALL("ism2_d_w16_device", "ism2", 'd', 'N', 'N', M24, 16, 16, 0, DEVICE, 5),
    CALL("small_d_8_device", "small", 'd', 'N', 'N', 8, 8, 8, 0, DEVICE, 5000),
    CALL("tsmttsm_d_w8_managed", "tsmttsm", 'd', 'T', 'N', 8, 8, M24, 0, MANAGED, 1),
    /* One call for several GPUs (issue 28, bench/run-split.sh): 32 GiB of
     * host operands, pageable and pinned (no packing: the links alone); a
     * square GEMM of 25 GiB, pageable and pinned. */
    CALL("split_gram_d_w16", "tsmttsm", 'd', 'T', 'N', 16, 16, 1L << 27, 0, HOST, 1),
    CALL("split_gram_d_w16_pinned", "tsmttsm", 'd', 'T', 'N', 16, 16, 1L << 27, 0, PINNED, 1),
    CALL("split_square_d_32768", "regular", 'd', 'N', 'N', 32768, 32768, 32768, 0, HOST, 1),
    CALL("split_square_d_32768_pinned", "regular", 'd', 'N', 'N', 32768, 32768, 32768, 0, PINNED, 1),
    /* Operand reuse (issue 21): `calls` calls in all, the first one cold. */
    { "reuse_tsm2_d_w16", "tsm2", "reuse", 'd', 'N', 'N', 20480, 16, 20480, 0, HOST, 12, e2e_run_reuse },
    { "rewrite_tsm2_d_w16", "tsm2", "reuse", 'd', 'N', 'N', 20480, 16, 20480, 0, HOST, 12, e2e_run_rewrite },
    { "reuse_gram_d_w16", "tsmttsm", "reuse", 'd', 'T', 'N', 16, 16, M24, 0, HOST, 6, e2e_run_gram },
    { "chain_d_w16", "tsm2", "chain", 'd', 'N', 'N', 20480, 16, 20480, 0, HOST, 10, e2e_run_chain },
    /* A short program's one GEMM after CPU work (issue 22, an R session). */
    { "program_square_d_4096", "regular", "program", 'd', 'N', 'N', 4096, 4096, 4096, 0, HOST, 1, e2e_run_program },
    { "program_rankk_d_w32", "rankk", "program", 'd', 'N', 'T', 8192, 8192, 32, 1, HOST, 1, e2e_run_program },
};

#define NCASES (sizeof cases / sizeof cases[0])

/* The few CUDA runtime and cuBLAS entry points the pinned, device and managed cases need. */
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
        e2e_die("cannot dlopen libcudart.so");
    *(void **)&api->malloc_dev = dlsym(rt, "cudaMalloc");
    *(void **)&api->malloc_managed = dlsym(rt, "cudaMallocManaged");
    *(void **)&api->malloc_host = dlsym(rt, "cudaMallocHost");
    *(void **)&api->memcpy_any = dlsym(rt, "cudaMemcpy");
    *(void **)&api->sync = dlsym(rt, "cudaDeviceSynchronize");
    if (!api->malloc_dev || !api->malloc_managed || !api->malloc_host || !api->memcpy_any || !api->sync)
        e2e_die("libcudart.so lacks cudaMalloc/cudaMallocManaged/cudaMallocHost/cudaMemcpy/cudaDeviceSynchronize");
    if (!cublas)
        return;
    void *cb = open_first(cublas_names);
    if (!cb)
        e2e_die("cannot dlopen libcublas.so");
    *(void **)&api->cublas_create = dlsym(cb, "cublasCreate_v2");
    *(void **)&api->cublas_gemm = dlsym(cb, "cublasDgemm_v2");
    if (!api->cublas_create || !api->cublas_gemm)
        e2e_die("libcublas.so lacks cublasCreate_v2/cublasDgemm_v2");
}

static cuda_api api;
static int direct;

/* An operand of `elems` elements in the case's memory, filled. */
static void *operand(const e2e_case *s, size_t elems, unsigned seed)
{
    if (s->mem == HOST)
        return e2e_host_operand(elems, s->prec, seed);
    size_t bytes = elems ? elems * e2e_elem_size(s->prec) : 1;
    void *p = NULL;
    if (s->mem == PINNED ? api.malloc_host(&p, bytes) != 0 : !(p = malloc(bytes)))
        e2e_die(s->mem == PINNED ? "cudaMallocHost failed" : "out of host memory");
    e2e_fill(p, elems, s->prec, seed);
    if (s->mem == PINNED)
        return p;
    void *dev = NULL;
    int err = s->mem == DEVICE ? api.malloc_dev(&dev, bytes) : api.malloc_managed(&dev, bytes, 1);
    if (err || api.memcpy_any(dev, p, bytes, 4 /* cudaMemcpyDefault */))
        e2e_die("CUDA allocation or copy failed");
    free(p);
    return dev;
}

void e2e_run_call(const e2e_case *s, e2e_result *res)
{
    int m = (int)e2e_dim(s->m), n = (int)e2e_dim(s->n), k = (int)e2e_dim(s->k);
    int lda = s->ta == 'N' ? m : k, ldb = s->tb == 'N' ? k : n, ldc = m;
    void *a = operand(s, (size_t)m * k, 1), *b = operand(s, (size_t)k * n, 2), *c = operand(s, (size_t)m * n, 3);
    const void *al = e2e_one(s->prec), *be = s->beta_one ? e2e_one(s->prec) : e2e_zero(s->prec);
    gemm_fn *gemm = e2e_gemm(s->prec);
    void *handle = NULL;
    if (direct && (s->mem != DEVICE || s->prec != 'd' || api.cublas_create(&handle)))
        e2e_die("--direct needs a double-precision device case and a working cuBLAS");
    int checked = s->mem != DEVICE;
    /* e^T C before the calls: what the updates C += ... start from. */
    double *c0 = calloc(3 * (size_t)n, sizeof *c0);
    if (!c0)
        e2e_die("out of host memory");
    if (checked && s->beta_one)
        e2e_op_sums(s->prec, 'N', m, n, c, ldc, c0, c0 + 2 * n);

    /* The first batch pays the one-off setup (CUDA context, staging); with
     * E2E_WARMUP_S it stands for a long-running program's earlier calls.
     * E2E_WARMUP_BATCHES=0 drops it and E2E_BATCHES sets the timed ones:
     * a call of half a minute on the CPU is timed once. */
    const char *warm = getenv("E2E_WARMUP_S");
    double warm_until = e2e_now() + (warm ? atof(warm) : 0.0), best = 0;
    long made = 0, timed = e2e_env_long("E2E_BATCHES", TIMED_BATCHES);
    for (int batch = e2e_env_long("E2E_WARMUP_BATCHES", 1) ? 0 : 1; batch <= timed; batch++) {
        double t0 = e2e_now();
        for (int r = 0; r < s->calls || (batch == 0 && e2e_now() < warm_until); r++, made++) {
            if (direct) {
                const double one = 1, beta = s->beta_one;
                api.cublas_gemm(handle, s->ta == 'N' ? 0 : 1, s->tb == 'N' ? 0 : 1, m, n, k, &one, a, lda, b, ldb,
                                &beta, c, ldc);
                /* BLAS is synchronous; cuBLAS is not, and waiting is part of the call. */
                api.sync();
            } else {
                gemm(&s->ta, &s->tb, &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1);
            }
        }
        double t = (e2e_now() - t0) / s->calls;
        if (batch == 1 || (batch > 1 && t < best))
            best = t;
    }
    res->seconds = best;
    res->check = "-";
    if (checked) {
        /* beta = 0: C = op(A) op(B) whatever the count; beta = 1: C0 plus `made` products. */
        double *want = calloc(3 * (size_t)n, sizeof *want);
        if (!want)
            e2e_die("out of host memory");
        e2e_product_sums(s->prec, s->ta, s->tb, m, n, k, a, lda, b, ldb, want, want + 2 * n);
        long adds = s->beta_one ? made : 1;
        for (long j = 0; j < 2 * n; j++)
            want[j] = c0[j] + (double)adds * want[j];
        for (long j = 0; j < n; j++)
            want[2 * n + j] = c0[2 * n + j] + (double)adds * want[2 * n + j];
        res->check = e2e_check_c(s->name, s->prec, m, n, c, ldc, k, adds, want, want + 2 * n);
        free(want);
    }
    free(c0);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < NCASES; i++)
            printf("%s %s %s\n", cases[i].name, cases[i].cls, cases[i].kind);
        return 0;
    }
    int child = argc >= 3 && !strcmp(argv[1], "--child");
    const char *name = child ? argv[2] : argc >= 2 ? argv[1] : "";
    const e2e_case *s = NULL;
    for (size_t i = 0; i < NCASES; i++)
        if (!strcmp(name, cases[i].name))
            s = &cases[i];
    if (!s)
        e2e_die("usage: bench_e2e --list | CASE [--direct]");
    if (child)
        return e2e_program_child(s);
    direct = argc >= 3 && !strcmp(argv[2], "--direct");
    if (s->mem != HOST)
        cuda_open(&api, direct);

    e2e_result r = { 0, -1, -1, "-" };
    s->run(s, &r);

    double m = (double)e2e_dim(s->m), n = (double)e2e_dim(s->n), k = (double)e2e_dim(s->k);
    double es = (double)e2e_elem_size(s->prec), mn = m * n;
    int crosses = s->mem == HOST || s->mem == PINNED;
    double in = !crosses ? 0 : es * (m * k + k * n + (s->beta_one ? mn : 0));
    double out = !crosses ? 0 : es * mn;
    double flops = 2.0 * mn * k * (s->prec == 'z' ? 4 : 1);
    printf("%s,%s,%s,%c,%.0f,%.0f,%.0f,%s,%.9g,%.0f,%.0f,%.0f,%.9g,%s,%.9g\n", s->name, s->cls, s->kind, s->prec, m, n,
           k, memory_names[s->mem], r.seconds, in, out, flops, r.first_s, r.check, r.steady_s);
    return 0;
}
