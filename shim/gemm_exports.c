/* The exported Fortran BLAS entry points (gfortran ABI): a call the CPU
 * runs anyway goes straight to the CPU BLAS; any other fills one descriptor
 * and hands it to the core.  Only these symbols are visible. */
#include <stddef.h>

#include "cpu_blas.h"
#include "gemm_entry.h"

/* The exported symbol jumps straight to the CPU BLAS when the lock-free
 * check passes: it has no frame of its own, the Fortran arguments stay where
 * the caller put them.  Everything else goes to the full entry, out of line. */
#define TS_GEMM_ARGS                                                                                    \
    const char *transa, const char *transb, const int *m, const int *n, const int *k, const void *alpha, \
        const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,         \
        const int *ldc, size_t transa_len, size_t transb_len
#define TS_GEMM_PASS transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len

#define TS_GEMM_SYMBOL(name, prec)                                                                      \
    static __attribute__((noinline)) void name##full(TS_GEMM_ARGS)                                      \
    {                                                                                                   \
        if (ts_gemm_forward_early(prec, m, n, k, alpha))                                                \
            ts_cpu_gemm(prec)(TS_GEMM_PASS);                                                            \
        else                                                                                            \
            ts_gemm_fortran(prec, TS_GEMM_PASS);                                                        \
    }                                                                                                   \
    __attribute__((visibility("default"))) void name(TS_GEMM_ARGS);                                     \
    void name(TS_GEMM_ARGS)                                                                             \
    {                                                                                                   \
        ts_gemm_fn cpu = atomic_load_explicit(&ts_cpu_resolved[prec], memory_order_acquire);            \
        if (cpu && ts_gemm_forward_fast(prec, m, n, k, alpha))                                          \
            cpu(TS_GEMM_PASS);                                                                          \
        else                                                                                            \
            name##full(TS_GEMM_PASS);                                                                   \
    }
#include "gemm_symbols.h"
