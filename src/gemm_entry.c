#include "gemm_entry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "configuration.h"
#include "cpu_blas.h"
#include "gpu_backend.h"
#include "host_scale.h"
#include "learned_rates.h"
#include "program_memory.h"
#include "level3_gpu.h"
#include "log.h"
#include "operand_cache.h"
#include "route.h"
#include "split.h"
#include "stats.h"

/* Set while this thread is inside the shim: a BLAS call made from within
 * (e.g. by a library the backend uses) goes straight to the CPU BLAS. */
static _Thread_local int in_shim __attribute__((tls_model("initial-exec")));

void ts_call_init(ts_call *c, ts_routine r, char transa, char transb, int64_t m, int64_t n, int64_t k,
                  const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *beta,
                  void *cmat, int64_t ldc)
{
    c->routine = r;
    c->prec = ts_routine_prec(r);
    c->transa = transa;
    c->transb = transb;
    c->m = m;
    c->n = n;
    c->k = k;
    c->lda = lda;
    c->ldb = ldb;
    c->ldc = ldc;
    c->alpha = alpha;
    c->beta = beta;
    c->a = a;
    c->b = b;
    c->c = cmat;
    c->cb = NULL;
    c->uplo = c->side = c->diag = 0;
    c->received = NULL;
    /* What the stages add, field by field: compilers clear a whole
     * descriptor with rep stos, which cost more than the rest of a forwarded
     * call. */
    c->cls = TS_CLASS_NONE;
    c->mirror = 0;
    c->width = 0;
    c->alpha_zero = c->beta_zero = c->beta_one = 0;
    c->res_a = c->res_b = c->res_c = TS_MEM_HOST;
    c->device = -1;
    ts_call_no_cache(c);
    c->decision = TS_RUN_CPU;
    c->reason = NULL;
    c->model_cpu_s = c->model_gpu_s = 0.0;
    c->predicted_cpu_s = c->predicted_gpu_s = 0.0;
    c->cpu_seconds = 0.0;
    c->gpu_path = NULL;
    c->bytes_h2d = c->bytes_d2h = 0;
    c->gpu_seconds = 0.0;
    c->gpu_ring_cold = 0;
    c->gpu_phases = NULL;
    c->split = 0;
}

/* Only GEMMs teach the learned rates: their cells are keyed by class and
 * size, and a SYRK or TRSM of a GEMM's shape runs at rates of its own (a
 * TRSM's host data takes no pipeline) that would skew the GEMMs'. */
static int learns(const ts_call *c) { return ts_routine_args(c->routine) == TS_ARGS_GEMM; }

/* A call the cost model placed on the CPU is timed, so the model learns the
 * CPU's real rate (two clock reads, on calls of at least TSSHIM_MIN_FLOPS). */
static void forward_measured(ts_call *c)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ts_forward(c);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    c->cpu_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    /* Calls made while the GPU starts are slowed by it (docs/performance.md):
     * not the CPU's rate. */
    if (learns(c) && !ts_gpu_starting())
        ts_learned_record(TS_SIDE_CPU, c, c->model_cpu_s, c->cpu_seconds);
}

/* One warning per process at level 1; later ones at level 2. */
static void warn_fallback(const ts_call *c, const char *why)
{
    static atomic_int warned;
    int level = atomic_exchange(&warned, 1) ? 2 : 1;
    ts_log(level, "GPU execution of %s failed (%s); computing on the CPU", ts_routine_symbol(c->routine), why);
}

/* Runs a call the policy sent to the GPU; returns 1 when it fell back. */
static int run_on_gpu(ts_call *c, const ts_config *cfg)
{
    char why[256] = "no usable GPU";
    const ts_gpu_ops *g = ts_gpu();
    if (g && ts_routine_args(c->routine) != TS_ARGS_GEMM) {
        if (ts_level3_gpu(g, c, cfg, why, sizeof why) == 0)
            return 0;
    } else if (g) {
        int dev[TS_MAX_DEVICES], parts = ts_split_devices(c, cfg, g, dev);
        if (parts) {
            if (ts_split_gemm(g, c, cfg, dev, parts, why, sizeof why) == 0)
                return 0;
        } else {
            if (ts_cache_gemm(g, c, cfg, why, sizeof why) == 0)
                return 0;
        }
    }
    if (ts_call_on_device(c)) {
        /* No CPU can compute on device memory: say so, leave C as it was. */
        ts_log_error("%s on device memory could not run on the GPU (%s); C was not updated",
                     ts_routine_symbol(c->routine), why);
        return 1;
    }
    c->decision = TS_RUN_CPU;
    if (!g) {
        c->reason = "no usable GPU";
        ts_forward(c);
        return 0;
    }
    warn_fallback(c, why);
    c->reason = "GPU failed";
    ts_forward(c);
    return 1;
}

void ts_shim_thread(void) { in_shim = 1; }

ts_forward_gate ts_gate;

#define TS_LANE_DEFINE(symbol, prec, args, abi) ts_forward_lane ts_lane_##symbol;
TS_ROUTINE_LIST(TS_LANE_DEFINE)
#undef TS_LANE_DEFINE

ts_forward_lane *const ts_lanes[TS_NROUTINE] = {
#define TS_LANE_ADDRESS(symbol, prec, args, abi) &ts_lane_##symbol,
    TS_ROUTINE_LIST(TS_LANE_ADDRESS)
#undef TS_LANE_ADDRESS
};
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;

/* The policy's flop threshold as a bound on m n k: mnk f < below exactly
 * when mnk < ceil(below / f), f (1, 2, 4 or 8) a power of two. */
static int64_t mnk_below(double below, ts_routine r)
{
    double q = below / ts_routine_flops(r, 1, 1, 1);
    if (!(q < 0x1p62))
        return INT64_MAX;
    int64_t bound = (int64_t)q;
    return bound < q ? bound + 1 : bound;
}

static void arm_gate(void)
{
    const ts_config *cfg = ts_config_get();
    if (cfg->verbose > 0)
        return;
    for (int r = 0; r < TS_NROUTINE; r++)
        ts_lanes[r]->mnk_below = mnk_below(ts_route_cpu_below(cfg, (ts_routine)r), (ts_routine)r);
    ts_gate.startup_tail = ts_gpu_startup_tail();
    atomic_store_explicit(&ts_gate.armed, 1, memory_order_release);
}

int ts_gate_arm(void)
{
    pthread_once(&gate_once, arm_gate);
    return atomic_load_explicit(&ts_gate.armed, memory_order_acquire);
}

int ts_gate_forwards_dims(ts_routine r, int64_t m, int64_t n, int64_t k, const void *alpha)
{
    return ts_gate_arm() && ts_gate_dims_pass(r, m, n, k, alpha) && !ts_gpu_cuda_loaded();
}

ts_gemm_fn ts_gate_open_lane(ts_routine r)
{
    ts_gemm_fn cpu = ts_cpu_gemm(r);
    if (ts_gate.startup_tail)
        atomic_store_explicit(&ts_lanes[r]->cpu, cpu, memory_order_release);
    return cpu;
}

void ts_call_from_fortran(ts_call *c, ts_routine r, const char *transa, const char *transb, const int *m,
                          const int *n, const int *k, const void *alpha, const void *a, const int *lda,
                          const void *b, const int *ldb, const void *beta, void *cmat, const int *ldc,
                          size_t transa_len, size_t transb_len)
{
    ts_call_init(c, r, *transa, *transb, *m, *n, *k, alpha, a, *lda, b, *ldb, beta, cmat, *ldc);
    c->f = (ts_fortran_args){ transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, cmat, ldc, transa_len, transb_len };
}

void ts_gemm(ts_call *c)
{
    if (in_shim) {
        ts_forward(c);
        return;
    }
    in_shim = 1;
    const ts_config *cfg = ts_config_get();
    int fell_back = 0;

    switch (ts_route(c, cfg)) {
    case TS_ACTION_FORWARD:
        if (c->model_cpu_s > 0)
            forward_measured(c);
        else
            ts_forward(c);
        break;
    case TS_ACTION_SCALE_ON_HOST: ts_host_scale(c); break;
    case TS_ACTION_GPU:
        fell_back = run_on_gpu(c, cfg);
        if (!fell_back && c->decision == TS_RUN_GPU && c->model_gpu_s > 0 && learns(c)) {
            /* A call through the staging ring as it starts, or one that
             * pinned the ring, would teach the model a slower link than the
             * grown ring's, and keep later calls on the CPU, where they
             * never grow it. */
            if (!c->gpu_ring_cold)
                ts_learned_record(TS_SIDE_GPU, c, c->model_gpu_s, c->gpu_seconds);
            ts_program_gained(c->predicted_cpu_s - c->gpu_seconds);
        }
        break;
    case TS_ACTION_NONE: break;
    }
    ts_cache_finish(c);
    /* Counting costs atomics on every call: only when a report will be written. */
    if (cfg->verbose >= 1)
        ts_stats_record(c, fell_back);
    if (cfg->verbose >= 3) {
        ts_log_trace(c);
        if (c->gpu_phases && c->gpu_phases[0])
            ts_log(3, "%s", c->gpu_phases);
    }
    in_shim = 0;
}

void ts_gemm_fortran(ts_routine r, const char *transa, const char *transb, const int *m, const int *n,
                     const int *k, const void *alpha, const void *a, const int *lda, const void *b,
                     const int *ldb, const void *beta, void *cmat, const int *ldc, size_t transa_len,
                     size_t transb_len)
{
    ts_call call;
    ts_call_from_fortran(&call, r, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, cmat, ldc, transa_len,
                         transb_len);
    ts_gemm(&call);
}

void ts_gemm_fortran64(ts_routine r, const char *transa, const char *transb, const int64_t *m, const int64_t *n,
                       const int64_t *k, const void *alpha, const void *a, const int64_t *lda, const void *b,
                       const int64_t *ldb, const void *beta, void *cmat, const int64_t *ldc, size_t transa_len,
                       size_t transb_len)
{
    ts_call call;
    ts_call_init(&call, r, *transa, *transb, *m, *n, *k, alpha, a, *lda, b, *ldb, beta, cmat, *ldc);
    /* Forwarding passes the pointers on as received: their type is the
     * descriptor's, the integers behind them stay 64-bit. */
    call.f = (ts_fortran_args){ transa, transb, (const int *)(const void *)m, (const int *)(const void *)n,
                                (const int *)(const void *)k, alpha, a, (const int *)(const void *)lda, b,
                                (const int *)(const void *)ldb, beta, cmat, (const int *)(const void *)ldc,
                                transa_len, transb_len };
    ts_gemm(&call);
}

/* CBLAS's transpose enums (CblasNoTrans, CblasTrans, CblasConjTrans) as
 * BLAS letters; anything else is invalid, and validation forwards it so
 * that the CPU BLAS's cblas_xerbla reports it. */
static char cblas_trans(int t) { return t == 111 ? 'N' : t == 112 ? 'T' : t == 113 ? 'C' : '?'; }

enum { CBLAS_ROW_MAJOR = 101, CBLAS_COL_MAJOR = 102 };

void ts_cblas_gemm(ts_routine r, const ts_cblas_args *args)
{
    if (ts_gate_forwards_dims(r, args->m, args->n, args->k, args->alpha)) {
        ts_gate_open_lane(r);
        ts_forward_cblas(r, args);
        return;
    }
    /* A row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T
     * on the same memory: the operands and their dimensions swap. */
    int row = args->layout == CBLAS_ROW_MAJOR;
    const ts_cblas_args *x = args;
    char ta = cblas_trans(row ? x->transb : x->transa), tb = cblas_trans(row ? x->transa : x->transb);
    if (x->layout != CBLAS_ROW_MAJOR && x->layout != CBLAS_COL_MAJOR)
        ta = '?';
    ts_call call;
    ts_call_init(&call, r, ta, tb, row ? x->n : x->m, row ? x->m : x->n, x->k, x->alpha, row ? x->b : x->a,
                 row ? x->ldb : x->lda, row ? x->a : x->b, row ? x->lda : x->ldb, x->beta, x->c, x->ldc);
    call.cb = args;
    ts_gemm(&call);
}
