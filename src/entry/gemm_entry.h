/* The GEMM entries of the ABI adapters (shim/): a descriptor filled from
 * the arguments as received, then ts_dispatch (src/dispatch/dispatch.h);
 * and the forwarding gate, which sends a call the CPU runs anyway straight
 * to the CPU BLAS. */
#ifndef TS_GEMM_ENTRY_H
#define TS_GEMM_ENTRY_H

#include <stdatomic.h>
#include <stdint.h>

#include "cpu/cpu_blas.h"
#include "backend/gpu_backend.h"
#include "common/call.h"
#include "route/validate.h"

/* Fills a descriptor from the arguments' values (any integer width); the
 * Fortran arguments as received (c->f) are left to the caller. */
void ts_call_init(ts_call *c, ts_routine r, char transa, char transb, int64_t m, int64_t n, int64_t k,
                  const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *beta,
                  void *cmat, int64_t ldc);

/* Fills a descriptor from the Fortran arguments (all by reference). */
void ts_call_from_fortran(ts_call *c, ts_routine r, const char *transa, const char *transb, const int *m,
                          const int *n, const int *k, const void *alpha, const void *a, const int *lda,
                          const void *b, const int *ldb, const void *beta, void *cmat, const int *ldc,
                          size_t transa_len, size_t transb_len);

/* ts_dispatch on a descriptor filled from the Fortran arguments: kept out of
 * line, so that an entry point that forwards needs no frame of its own. */
void ts_gemm_fortran(ts_routine r, const char *transa, const char *transb, const int *m, const int *n,
                     const int *k, const void *alpha, const void *a, const int *lda, const void *b,
                     const int *ldb, const void *beta, void *cmat, const int *ldc, size_t transa_len,
                     size_t transb_len);

/* ts_gemm_fortran for an ILP64 routine (F77_64): the integers are 64-bit. */
void ts_gemm_fortran64(ts_routine r, const char *transa, const char *transb, const int64_t *m, const int64_t *n,
                       const int64_t *k, const void *alpha, const void *a, const int64_t *lda, const void *b,
                       const int64_t *ldb, const void *beta, void *cmat, const int64_t *ldc, size_t transa_len,
                       size_t transb_len);

/* A CBLAS GEMM call (CBLAS or CBLAS_64): forwarded at once when the gate passes it, else
 * described in column-major terms (a row-major call swapped) and run by
 * ts_dispatch; forwarding passes the CBLAS arguments as received. */
void ts_cblas_gemm(ts_routine r, const ts_cblas_args *args);

/* One routine's way through the forwarding gate. */
typedef struct {
    _Atomic(ts_gemm_fn) cpu; /* the CPU BLAS routine; NULL until the first forwarded call opens it */
    int64_t mnk_below;       /* m n k below this: the policy keeps the call on the CPU */
} ts_forward_lane;

/* Each routine's lane is an object of its own, ts_lane_<symbol>, so the
 * exported symbols' x86-64 code names it (shim/entry_points.c); ts_lanes
 * finds it by routine. */
#define TS_LANE_DECLARE(symbol, prec, args, abi) extern ts_forward_lane ts_lane_##symbol;
TS_ROUTINE_LIST(TS_LANE_DECLARE)
#undef TS_LANE_DECLARE
extern ts_forward_lane *const ts_lanes[TS_NROUTINE];

/* What the early checks below read besides the lanes, set once (from the
 * constructor or the first call) and then constant.  The x86-64 entry code
 * reads startup_tail at offset 0. */
typedef struct {
    struct link_map *startup_tail; /* NULL when the watch cannot vouch (ts_gpu_startup_tail) */
    atomic_int armed;              /* never at verbosity > 0: every call is counted then */
} ts_forward_gate;

extern ts_forward_gate ts_gate;

/* Arms the gate once; returns whether it is armed. */
int ts_gate_arm(void);

/* The armed gate's test of the raw arguments' values (any integer width,
 * the ILP64 rows' too): m, n, k > 0 and alpha != 0
 * (alpha = 0, k = 0 and quick returns keep the full path, which does them
 * without the CPU BLAS), and the policy keeps such a call on the CPU
 * (m n k counted exactly: the flop threshold divided by the flops per
 * multiply-add, rounded up, ts_route_cpu_below). */
static inline int ts_gate_dims_pass(ts_routine r, int64_t m, int64_t n, int64_t k, const void *alpha)
{
    int64_t mn, mnk;
    return m > 0 && n > 0 && k > 0 && !__builtin_mul_overflow(m, n, &mn) && !__builtin_mul_overflow(mn, k, &mnk) &&
           mnk < ts_lanes[r]->mnk_below && !ts_scalar_is(ts_routine_scalar_prec(r), alpha, 0.0);
}

/* Whether a call goes straight to the CPU BLAS, decided from the raw
 * arguments before any descriptor is filled: nothing is logged or counted
 * (verbosity 0), the CUDA driver is not in the process (no operand can be
 * device memory) and ts_gate_dims_pass.  Invalid arguments go to the CPU BLAS
 * either way.  ts_gate_forwards reads 32-bit ones. */
int ts_gate_forwards_dims(ts_routine r, int64_t m, int64_t n, int64_t k, const void *alpha);

static inline int ts_gate_forwards(ts_routine r, const int *m, const int *n, const int *k, const void *alpha)
{
    return ts_gate_forwards_dims(r, *m, *n, *k, alpha);
}

/* The CPU BLAS routine for a call ts_gate_forwards passed; opens the
 * routine's lane when the loader watch can vouch for later calls. */
ts_gemm_fn ts_gate_open_lane(ts_routine r);

/* The common case of ts_gate_forwards with no call at all, so that an
 * entry point can jump straight to the CPU BLAS: the lane is open, the
 * arguments pass and nothing was loaded after the startup objects.  NULL
 * means ask ts_gate_forwards.  A forwarded call costs only this: a small
 * CPU BLAS call takes tens of nanoseconds, so every nanosecond here shows
 * (docs/performance.md, forwarding overhead). */
static inline ts_gemm_fn ts_gate_lane_cpu_dims(ts_routine r, int64_t m, int64_t n, int64_t k, const void *alpha)
{
    ts_gemm_fn cpu = atomic_load_explicit(&ts_lanes[r]->cpu, memory_order_acquire);
    return cpu && ts_gate_dims_pass(r, m, n, k, alpha) && ts_gpu_nothing_loaded_since(ts_gate.startup_tail)
               ? cpu
               : NULL;
}

/* ts_gate_lane_cpu_dims of 32-bit arguments (the LP64 entry points). */
static inline ts_gemm_fn ts_gate_lane_cpu(ts_routine r, const int *m, const int *n, const int *k,
                                          const void *alpha)
{
    return ts_gate_lane_cpu_dims(r, *m, *n, *k, alpha);
}

#endif
