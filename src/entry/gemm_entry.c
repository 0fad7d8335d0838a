#include "entry/gemm_entry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "backend/gpu_backend.h"
#include "common/cblas.h"
#include "cpu/cpu_blas.h"
#include "dispatch/dispatch.h"
#include "route/route.h"
#include "util/configuration.h"

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
    /* Every call is counted when a report is asked for (TSSHIM_VERBOSE, TSSHIM_COUNT). */
    if (cfg->verbose > 0 || cfg->count)
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

void ts_gemm_fortran(ts_routine r, const char *transa, const char *transb, const int *m, const int *n,
                     const int *k, const void *alpha, const void *a, const int *lda, const void *b,
                     const int *ldb, const void *beta, void *cmat, const int *ldc, size_t transa_len,
                     size_t transb_len)
{
    ts_call call;
    ts_call_from_fortran(&call, r, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, cmat, ldc, transa_len,
                         transb_len);
    ts_dispatch(&call);
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
    ts_dispatch(&call);
}

void ts_cblas_gemm(ts_routine r, const ts_cblas_args *args)
{
    if (ts_gate_forwards_dims(r, args->m, args->n, args->k, args->alpha)) {
        ts_gate_open_lane(r);
        ts_forward_cblas(r, args);
        return;
    }
    /* A row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T
     * on the same memory: the operands and their dimensions swap. */
    int row = args->layout == TS_CBLAS_ROW_MAJOR;
    const ts_cblas_args *x = args;
    char ta = ts_cblas_trans(row ? x->transb : x->transa), tb = ts_cblas_trans(row ? x->transa : x->transb);
    if (x->layout != TS_CBLAS_ROW_MAJOR && x->layout != TS_CBLAS_COL_MAJOR)
        ta = '?';
    ts_call call;
    ts_call_init(&call, r, ta, tb, row ? x->n : x->m, row ? x->m : x->n, x->k, x->alpha, row ? x->b : x->a,
                 row ? x->ldb : x->lda, row ? x->a : x->b, row ? x->lda : x->ldb, x->beta, x->c, x->ldc);
    call.cb = args;
    ts_dispatch(&call);
}
