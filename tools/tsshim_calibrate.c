/* tsshim-calibrate: measures this machine for the cost model and writes the
 * profile (TSSHIM_PROFILE, else ~/.cache/tsshim/profile; -o names another).
 *
 *   link        pinned host <-> device DMA, both directions
 *   staging     pageable host data through the backend's own pipeline
 *               (libtsshim-cuda.so's ops table, the code the shim runs)
 *   host copy   pageable -> pinned with the backend's packing threads
 *   GPU         device memory copy rate, square GEMM per precision and the
 *               per-call overhead, through the backend on device pointers
 *   CPU BLAS    the linked ?gemm_ on a narrow and a wide shape per class
 *               and precision
 *
 * Usage: tsshim-calibrate [-o PROFILE] [--plugin PATH/libtsshim-cuda.so]
 * Run it without LD_PRELOAD: the CPU figures must be the CPU BLAS's own. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "route/classify.h"
#include "util/configuration.h"
#include "common/cost_model.h"
#include "cpu/cpu_blas.h"
#include "entry/gemm_entry.h"
#include "backend/gpu_backend.h"
#include "copy_pool.h"
#include "learn/profile.h"
#include "route/validate.h"

#ifndef TSSHIM_LIBDIR
#define TSSHIM_LIBDIR "/usr/local/lib"
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *const names[TS_NCLASS] = { "none", "tsm2", "ism2", "tsmttsm", "rankk", "regular" };

static void *host_buffer(size_t bytes)
{
    char *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "tsshim-calibrate: out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    /* Touched pages; zeros run at the speed of any other normal number. */
    memset(p, 0, bytes);
    return p;
}

static int cuda_ok(cudaError_t err, const char *what)
{
    if (err)
        fprintf(stderr, "tsshim-calibrate: %s: %s\n", what, cudaGetErrorString(err));
    return err == cudaSuccess;
}

/* Best rate (1e9 bytes/s) of three timed async copies after a warm-up. */
static double copy_gbs(void *dst, const void *src, size_t bytes, double count)
{
    cudaEvent_t e0, e1;
    float best = 1e30f;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < 4; i++) {
        float ms;
        cudaEventRecord(e0, 0);
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, 0);
        cudaEventRecord(e1, 0);
        if (!cuda_ok(cudaEventSynchronize(e1), "copy"))
            return 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i > 0 && ms < best)
            best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return count * (double)bytes / (best * 1e-3) / 1e9;
}

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                     const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);

/* The linked CPU BLAS. */
extern gemm_fn sgemm_, dgemm_, cgemm_, zgemm_;

typedef struct {
    ts_prec prec;
    char ta, tb;
    int m, n, k;
    int beta_one; /* C += ... (rank-k updates); else C = ... */
} shape;

static size_t elems_a(const shape *s) { return (size_t)s->m * s->k; }
static size_t elems_b(const shape *s) { return (size_t)s->k * s->n; }
static size_t elems_c(const shape *s) { return (size_t)s->m * s->n; }

/* A descriptor as the shim builds it (classified with the configuration). */
static void describe(ts_call *c, const shape *s, const void *alpha, const void *a, const int *lda, const void *b,
                     const int *ldb, const void *beta, void *cm, const int *ldc)
{
    const ts_config *cfg = ts_config_get();
    ts_call_from_fortran(c, ts_gemm_routine(s->prec), &s->ta, &s->tb, &s->m, &s->n, &s->k, alpha, a, lda, b, ldb, beta, cm, ldc, 1, 1);
    ts_validate(c);
    ts_scalar_flags(c);
    ts_classify(c, cfg->min_long, cfg->max_skinny);
}

/* Seconds of the best of `reps` runs of shape s through the backend (ops)
 * or the CPU BLAS (ops NULL), on a, b, c as given; the call's descriptor
 * of the last run in *out. */
static double time_gemm(const ts_gpu_ops *ops, const shape *s, void *a, void *b, void *cm, int reps, ts_call *out)
{
    static const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
    static const float onef[2] = { 1, 0 }, zerof[2] = { 0, 0 };
    gemm_fn *const cpu[TS_NPREC] = { sgemm_, dgemm_, cgemm_, zgemm_ };
    int single = s->prec == TS_S || s->prec == TS_C;
    const void *alpha = single ? (const void *)onef : one;
    const void *beta = s->beta_one ? alpha : single ? (const void *)zerof : zero;
    int lda = s->ta == 'N' ? s->m : s->k, ldb = s->tb == 'N' ? s->k : s->n, ldc = s->m;
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {
        ts_call c;
        char why[256] = "";
        describe(&c, s, alpha, a, &lda, b, &ldb, beta, cm, &ldc);
        double t0 = now();
        if (ops) {
            ops->residency(&c);
            if (ops->gemm(&c, ts_config_get(), why, sizeof why)) {
                fprintf(stderr, "tsshim-calibrate: GPU GEMM failed: %s\n", why);
                return 0;
            }
        } else {
            cpu[s->prec](&s->ta, &s->tb, &s->m, &s->n, &s->k, alpha, a, &lda, b, &ldb, beta, cm, &ldc, 1, 1);
        }
        double t = now() - t0;
        if (r > 0 && t < best) /* the first run warms up */
            best = t;
        if (out)
            *out = c;
    }
    return best;
}

static const ts_gpu_ops *open_backend(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const ts_gpu_ops *ops = h ? dlsym(h, TS_GPU_OPS_SYMBOL) : NULL;
    static const ts_core_ops core = { .cpu_gemm = ts_cpu_gemm_descriptor };
    char why[256] = "";
    if (ops && ops->abi == TS_GPU_ABI)
        ops->bind(&core);
    if (!ops || ops->abi != TS_GPU_ABI || ops->init(ts_config_get(), why, sizeof why)) {
        fprintf(stderr, "tsshim-calibrate: GPU backend %s unusable (%s); staging and GPU figures keep their defaults\n",
                path, h ? why : dlerror());
        return NULL;
    }
    return ops;
}

/* What a process pays once, on its first call through the GPU, counted
 * from t0 before the first CUDA call: the driver and the device, the
 * backend (CUDA context, cuBLAS) and a first call on pageable data (the
 * pipeline's pinned buffers). */
static void measure_start(const ts_gpu_ops *ops, ts_profile *p, double t0)
{
    static const shape first = { TS_D, 'N', 'N', 64, 64, 64, 0 };
    void *a = host_buffer(elems_a(&first) * 8), *b = host_buffer(elems_b(&first) * 8),
         *cm = host_buffer(elems_c(&first) * 8);
    time_gemm(ops, &first, a, b, cm, 0, NULL);
    p->gpu_start_s = now() - t0;
    free(a);
    free(b);
    free(cm);
}

/* Pageable data through the backend's pipeline: a Gram product A^T B of
 * two 1 x 2^26 blocks is nearly all upload; a rank-1 update C = x y^T of
 * 8192 x 8192 nearly all download; a tall block times an 8 x 8 matrix
 * (2^23 rows) moves as much each way at once. */
static void measure_staging(const ts_gpu_ops *ops, ts_profile *p)
{
    static const shape moves[] = { { TS_D, 'T', 'N', 1, 1, 1 << 26, 0 },
                                   { TS_D, 'N', 'T', 8192, 8192, 1, 0 },
                                   { TS_D, 'N', 'N', 1 << 23, 8, 8, 0 } };
    double *rate[] = { &p->h2d_staged_gbs, &p->d2h_staged_gbs, &p->both_staged_gbs };
    for (int i = 0; i < 3; i++) {
        const shape *s = &moves[i];
        ts_call c;
        void *a = host_buffer(elems_a(s) * 8), *b = host_buffer(elems_b(s) * 8), *cm = host_buffer(elems_c(s) * 8);
        double t = time_gemm(ops, s, a, b, cm, 3, &c);
        if (t > 0)
            *rate[i] = (double)(i == 0 ? c.bytes_h2d : i == 1 ? c.bytes_d2h : c.bytes_h2d + c.bytes_d2h) / t / 1e9;
        free(a);
        free(b);
        free(cm);
    }
}

/* Device-resident GEMMs through the backend: square 4096 per precision, and
 * the time of an 8x8x8 call, all of which is overhead. */
static void measure_gpu(const ts_gpu_ops *ops, ts_profile *p)
{
    for (int prec = 0; prec < TS_NPREC; prec++) {
        shape sq = { (ts_prec)prec, 'N', 'N', 4096, 4096, 4096, 0 };
        size_t bytes = elems_c(&sq) * ts_elem_size(sq.prec);
        void *a, *b, *cm;
        if (!cuda_ok(cudaMalloc(&a, bytes), "cudaMalloc") || !cuda_ok(cudaMalloc(&b, bytes), "cudaMalloc") ||
            !cuda_ok(cudaMalloc(&cm, bytes), "cudaMalloc"))
            return;
        cudaMemset(a, 0, bytes);
        cudaMemset(b, 0, bytes);
        ts_call c;
        double t = time_gemm(ops, &sq, a, b, cm, 3, &c);
        if (t > 0)
            p->gpu_gflops[prec] = ts_call_flops(&c) / t / 1e9;
        if (prec == TS_D) {
            shape tiny = { TS_D, 'N', 'N', 8, 8, 8, 0 };
            t = time_gemm(ops, &tiny, a, b, cm, 200, NULL);
            if (t > 0)
                p->gpu_overhead_s = t;
        }
        cudaFree(a);
        cudaFree(b);
        cudaFree(cm);
    }
}

static void measure_link(ts_profile *p)
{
    size_t bytes = (size_t)256 << 20;
    void *pinned, *dev, *dev2;
    if (!cuda_ok(cudaMallocHost(&pinned, bytes), "cudaMallocHost") || !cuda_ok(cudaMalloc(&dev, bytes), "cudaMalloc") ||
        !cuda_ok(cudaMalloc(&dev2, bytes), "cudaMalloc"))
        return;
    memset(pinned, 1, bytes);
    p->h2d_pinned_gbs = copy_gbs(dev, pinned, bytes, 1);
    p->d2h_pinned_gbs = copy_gbs(pinned, dev, bytes, 1);
    p->gpu_mem_gbs = copy_gbs(dev2, dev, bytes, 2); /* read + write */

    /* The packing threads: pageable -> pinned, as the pipeline does it. */
    void *pageable = host_buffer(bytes);
    double best = 1e30;
    for (int i = 0; i < 4; i++) {
        double t0 = now();
        ts_copy_2d(pinned, bytes, pageable, bytes, bytes, 1, 1);
        double t = now() - t0;
        if (i > 0 && t < best)
            best = t;
    }
    p->host_copy_gbs = (double)bytes / best / 1e9;
    free(pageable);
    cudaFreeHost(pinned);
    cudaFree(dev);
    cudaFree(dev2);
}

/* The CPU BLAS per class and precision: a narrow and a wide shape, the
 * narrow one several times the last-level cache (ISM2 at 2^22 rows ran from
 * cache, far faster than a real call).  Rank-k updates are timed as
 * programs make them, C += A B^T: with beta = 0, OpenBLAS zeroes C in a
 * pass of its own, and the rate measured that way was a fraction of the
 * update's (docs/performance.md).  The flop rate is the better of
 * the two; the byte rate is the narrow shape's when it is memory bound (well
 * below the wide shape's flop rate), else the best byte rate of the
 * memory-bound classes in that precision (REGULAR never streams: its byte
 * rate would only echo its flops). */
static void measure_cpu(ts_profile *p)
{
    static const struct {
        ts_class cls;
        shape narrow, wide;
    } classes[] = {
        { TS_CLASS_TSM2, { TS_D, 'N', 'N', 8192, 2, 8192, 0 }, { TS_D, 'N', 'N', 8192, 64, 8192, 0 } },
        { TS_CLASS_ISM2, { TS_D, 'N', 'N', 1 << 24, 4, 4, 0 }, { TS_D, 'N', 'N', 1 << 21, 64, 64, 0 } },
        { TS_CLASS_TSMTTSM, { TS_D, 'T', 'N', 4, 4, 1 << 22, 0 }, { TS_D, 'T', 'N', 64, 64, 1 << 20, 0 } },
        { TS_CLASS_RANKK, { TS_D, 'N', 'T', 8192, 8192, 4, 1 }, { TS_D, 'N', 'T', 8192, 8192, 64, 1 } },
        { TS_CLASS_REGULAR, { TS_D, 'N', 'N', 1024, 1024, 1024, 0 }, { TS_D, 'N', 'N', 2048, 2048, 2048, 0 } },
    };
    static const char prec_names[TS_NPREC] = { 's', 'd', 'c', 'z' };
    for (int prec = 0; prec < TS_NPREC; prec++) {
        double stream = 0;
        size_t es = ts_elem_size((ts_prec)prec);
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
            double gbs[2], gflops[2];
            shape both[2] = { classes[i].narrow, classes[i].wide };
            for (int w = 0; w < 2; w++) {
                shape *s = &both[w];
                s->prec = (ts_prec)prec;
                void *a = host_buffer(elems_a(s) * es), *b = host_buffer(elems_b(s) * es);
                void *cm = host_buffer(elems_c(s) * es);
                ts_call c;
                double t = time_gemm(NULL, s, a, b, cm, 2, &c);
                gbs[w] = ts_call_bytes(&c) / t / 1e9;
                gflops[w] = ts_call_flops(&c) / t / 1e9;
                free(a);
                free(b);
                free(cm);
            }
            ts_class cls = classes[i].cls;
            int memory_bound = gflops[0] < 0.5 * gflops[1];
            if (memory_bound && gbs[0] > stream)
                stream = gbs[0];
            p->cpu_gbs[cls][prec] = memory_bound ? gbs[0] : stream;
            p->cpu_gflops[cls][prec] = gflops[0] > gflops[1] ? gflops[0] : gflops[1];
            printf("cpu %c %-8s %7.1f GB/s%s %8.1f GF/s\n", prec_names[prec], names[cls], p->cpu_gbs[cls][prec],
                   memory_bound ? "" : "*", p->cpu_gflops[cls][prec]);
            fflush(stdout);
        }
    }
    printf("(* compute bound here: the best streaming rate of the other classes)\n");
}

int main(int argc, char **argv)
{
    const char *out = NULL, *plugin = TSSHIM_LIBDIR "/" TS_GPU_PLUGIN;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--plugin") && i + 1 < argc)
            plugin = argv[++i];
        else {
            fprintf(stderr, "usage: %s [-o PROFILE] [--plugin PATH/%s]\n", argv[0], TS_GPU_PLUGIN);
            return 2;
        }
    }
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "tsshim"))
        fprintf(stderr, "tsshim-calibrate: running under LD_PRELOAD=%s: the CPU figures are the shim's\n", preload);
    char path[4096];
    if (ts_profile_path(out ? out : ts_config_get()->profile_path, path, sizeof path)) {
        fprintf(stderr, "tsshim-calibrate: no profile path (set HOME, TSSHIM_PROFILE or -o)\n");
        return 1;
    }

    ts_profile p = ts_profile_defaults;
    int devices = 0;
    double t0 = now();
    if (cudaGetDeviceCount(&devices) || devices == 0) {
        fprintf(stderr, "tsshim-calibrate: no CUDA device: only the CPU BLAS is measured\n");
    } else {
        const ts_gpu_ops *ops = open_backend(plugin);
        if (ops)
            measure_start(ops, &p, t0);
        measure_link(&p);
        if (ops) {
            measure_staging(ops, &p);
            measure_gpu(ops, &p);
        }
    }
    printf("link pinned  h2d %.1f  d2h %.1f GB/s\n", p.h2d_pinned_gbs, p.d2h_pinned_gbs);
    printf("staged       h2d %.1f  d2h %.1f  both at once %.1f GB/s (host copy %.1f GB/s, %d threads)\n",
           p.h2d_staged_gbs, p.d2h_staged_gbs, p.both_staged_gbs, p.host_copy_gbs, ts_copy_threads());
    printf("gpu          mem %.0f GB/s  gflops s %.0f d %.0f c %.0f z %.0f  overhead %.1f us  start %.3f s\n",
           p.gpu_mem_gbs, p.gpu_gflops[TS_S], p.gpu_gflops[TS_D], p.gpu_gflops[TS_C], p.gpu_gflops[TS_Z],
           p.gpu_overhead_s * 1e6, p.gpu_start_s);
    fflush(stdout);
    measure_cpu(&p);
    if (ts_profile_write(path, &p)) {
        fprintf(stderr, "tsshim-calibrate: cannot write %s\n", path);
        return 1;
    }
    printf("profile written to %s\n", path);
    return 0;
}
