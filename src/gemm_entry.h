/* The pipeline every intercepted call goes through:
 * validate -> classify -> residency -> policy -> GPU or CPU BLAS. */
#ifndef TS_GEMM_ENTRY_H
#define TS_GEMM_ENTRY_H

#include <stdatomic.h>

#include "cost_model.h"
#include "gpu_backend.h"
#include "ts_call.h"
#include "validate.h"

/* Fills a descriptor from the Fortran arguments (all by reference). */
void ts_call_from_fortran(ts_call *c, ts_prec prec, const char *transa, const char *transb, const int *m,
                          const int *n, const int *k, const void *alpha, const void *a, const int *lda,
                          const void *b, const int *ldb, const void *beta, void *cmat, const int *ldc,
                          size_t transa_len, size_t transb_len);

void ts_gemm(ts_call *c);

/* ts_gemm on a descriptor filled from the Fortran arguments: kept out of
 * line, so that an entry point that forwards needs no frame of its own. */
void ts_gemm_fortran(ts_prec prec, const char *transa, const char *transb, const int *m, const int *n,
                     const int *k, const void *alpha, const void *a, const int *lda, const void *b,
                     const int *ldb, const void *beta, void *cmat, const int *ldc, size_t transa_len,
                     size_t transb_len);

/* What the early check below reads, set once (from the constructor or the
 * first call) and then constant: the configuration turned into a threshold
 * per routine, and the loader watch's last startup object. */
typedef struct {
    atomic_int armed;             /* never at verbosity > 0: every call is counted then */
    double cpu_below[TS_NPREC];   /* ts_policy_cpu_below */
    struct link_map *startup_tail; /* NULL when the watch cannot vouch (ts_gpu_startup_tail) */
} ts_forward_gate;

extern ts_forward_gate ts_gate;

/* Arms the gate once; returns whether it is armed. */
int ts_gemm_forward_arm(void);

/* The armed gate's test of the raw arguments: m, n, k > 0 and alpha != 0
 * (alpha = 0, k = 0 and quick returns keep the full path, which does them
 * without the CPU BLAS), and the policy keeps such a call on the CPU. */
static inline int ts_gate_passes(ts_prec prec, const int *m, const int *n, const int *k, const void *alpha)
{
    return *m > 0 && *n > 0 && *k > 0 && ts_gemm_flops(prec, *m, *n, *k) < ts_gate.cpu_below[prec] &&
           !ts_scalar_is(prec, alpha, 0.0);
}

/* Whether a call goes straight to the CPU BLAS, decided from the raw
 * arguments before any descriptor is filled: nothing is logged or counted
 * (verbosity 0), the CUDA driver is not in the process (no operand can be
 * device memory) and ts_gate_passes.  Invalid arguments go to the CPU BLAS
 * either way. */
int ts_gemm_forward_early(ts_prec prec, const int *m, const int *n, const int *k, const void *alpha);

/* The common case of ts_gemm_forward_early with no call at all, so that an
 * entry point can jump straight to the CPU BLAS: the gate is armed and
 * nothing was loaded after the startup objects (one load).  0 means ask
 * ts_gemm_forward_early.  A forwarded call costs only this (the H100 host
 * measured 43 ns for an 8x8x8 dgemm_ in OpenBLAS: every nanosecond shows). */
static inline int ts_gemm_forward_fast(ts_prec prec, const int *m, const int *n, const int *k, const void *alpha)
{
    if (!atomic_load_explicit(&ts_gate.armed, memory_order_acquire) || !ts_gate_passes(prec, m, n, k, alpha))
        return 0;
    return ts_gpu_nothing_loaded_since(ts_gate.startup_tail);
}

#endif
