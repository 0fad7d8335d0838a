/* The exported Fortran BLAS entry points (gfortran ABI): a call the CPU
 * runs anyway goes straight to the CPU BLAS; any other fills one descriptor
 * and hands it to the core.  Only these symbols are visible. */
#include <stddef.h>

#include "cpu_blas.h"
#include "gemm_entry.h"

#define TS_GEMM_SYMBOL(name, prec)                                                                      \
    __attribute__((visibility("default"))) void name(                                                   \
        const char *transa, const char *transb, const int *m, const int *n, const int *k,               \
        const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,                \
        const void *beta, void *c, const int *ldc, size_t transa_len, size_t transb_len);               \
    void name(const char *transa, const char *transb, const int *m, const int *n, const int *k,         \
              const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,          \
              const void *beta, void *c, const int *ldc, size_t transa_len, size_t transb_len)          \
    {                                                                                                   \
        if (ts_gemm_forward_early(prec, m, n, k, alpha)) {                                              \
            ts_cpu_gemm(prec)(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len,  \
                              transb_len);                                                              \
            return;                                                                                     \
        }                                                                                               \
        ts_call call;                                                                                   \
        ts_call_from_fortran(&call, prec, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, \
                             transa_len, transb_len);                                                   \
        ts_gemm(&call);                                                                                 \
    }
#include "gemm_symbols.h"
