/* The one list of the routines tsshim intercepts.  A row is
 *
 *     X(symbol, precision, arguments, abi)
 *
 *   symbol     the exported name, as the program calls it
 *   precision  TS_S, TS_D, TS_C or TS_Z
 *   arguments  the argument kinds, which name the entry point's adapter in
 *              shim/ (GEMM: transa, transb, m, n, k, alpha, A, lda, B, ldb,
 *              beta, C, ldc)
 *   abi        how they are passed (F77: by reference, 32-bit integers, the
 *              gfortran hidden lengths of character arguments last; CBLAS:
 *              the C interface, by value, with a layout argument first and
 *              the real scalars by value, the complex ones by pointer)
 *
 * Every table keyed by routine is an expansion of this list: the exported
 * symbols (shim/entry_points.c), the enum below, the CPU BLAS symbols to
 * forward to, TSSHIM_DISABLE's names, the exit report, the trace.  Adding a
 * routine is one row here plus its adapter, its kernel (if any) and tests. */
#ifndef TS_ROUTINE_LIST_H
#define TS_ROUTINE_LIST_H

#define TS_ROUTINE_LIST(X)      \
    X(sgemm_, TS_S, GEMM, F77)  \
    X(dgemm_, TS_D, GEMM, F77)  \
    X(cgemm_, TS_C, GEMM, F77)  \
    X(zgemm_, TS_Z, GEMM, F77)  \
    X(cblas_sgemm, TS_S, GEMM, CBLAS) \
    X(cblas_dgemm, TS_D, GEMM, CBLAS) \
    X(cblas_cgemm, TS_C, GEMM, CBLAS) \
    X(cblas_zgemm, TS_Z, GEMM, CBLAS)

typedef enum { TS_S = 0, TS_D = 1, TS_C = 2, TS_Z = 3, TS_NPREC = 4 } ts_prec;

typedef enum { TS_ABI_F77, TS_ABI_CBLAS } ts_abi;

typedef enum {
#define TS_ROUTINE_ENUM(symbol, prec, args, abi) TS_R_##symbol,
    TS_ROUTINE_LIST(TS_ROUTINE_ENUM)
#undef TS_ROUTINE_ENUM
    TS_NROUTINE
} ts_routine;

/* The exported name of a routine, e.g. "dgemm_". */
static inline const char *ts_routine_symbol(ts_routine r)
{
    static const char *const symbols[TS_NROUTINE] = {
#define TS_ROUTINE_SYMBOL(symbol, prec, args, abi) #symbol,
        TS_ROUTINE_LIST(TS_ROUTINE_SYMBOL)
#undef TS_ROUTINE_SYMBOL
    };
    return symbols[r];
}

static inline ts_prec ts_routine_prec(ts_routine r)
{
    static const ts_prec precs[TS_NROUTINE] = {
#define TS_ROUTINE_PREC(symbol, prec, args, abi) prec,
        TS_ROUTINE_LIST(TS_ROUTINE_PREC)
#undef TS_ROUTINE_PREC
    };
    return precs[r];
}

static inline ts_abi ts_routine_abi(ts_routine r)
{
    static const ts_abi abis[TS_NROUTINE] = {
#define TS_ROUTINE_ABI(symbol, prec, args, abi) TS_ABI_##abi,
        TS_ROUTINE_LIST(TS_ROUTINE_ABI)
#undef TS_ROUTINE_ABI
    };
    return abis[r];
}

/* The GEMM of each precision comes first, in ts_prec's order, so a GEMM's
 * routine is its precision: the forwarding gate's lanes and the entry
 * points' assembly rely on it. */
#ifdef __cplusplus
static_assert
#else
_Static_assert
#endif
    (TS_R_sgemm_ == (int)TS_S && TS_R_dgemm_ == (int)TS_D && TS_R_cgemm_ == (int)TS_C &&
                   TS_R_zgemm_ == (int)TS_Z,
               "GEMM rows first, in precision order");

static inline ts_routine ts_gemm_routine(ts_prec p) { return (ts_routine)p; }

#endif
