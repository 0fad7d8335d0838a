/* The one list of the routines tsshim intercepts.  A row is
 *
 *     X(symbol, precision, arguments, abi)
 *
 *   symbol     the exported name, as the program calls it
 *   precision  TS_S, TS_D, TS_C or TS_Z
 *   arguments  the argument kinds, which name the entry point's adapter in
 *              shim/ (GEMM: transa, transb, m, n, k, alpha, A, lda, B, ldb,
 *              beta, C, ldc; SYRK and HERK: uplo, trans, n, k, alpha, A,
 *              lda, beta, C, ldc, HERK's alpha and beta real; TRSM and
 *              TRMM: side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb;
 *              SYMM and HEMM: side, uplo, m, n, alpha, A, lda, B, ldb, beta,
 *              C, ldc; SYR2K and HER2K: uplo, trans, n, k, alpha, A, lda, B,
 *              ldb, beta, C, ldc, HER2K's beta real)
 *   abi        how they are passed (F77: by reference, 32-bit integers, the
 *              gfortran hidden lengths of character arguments last; CBLAS:
 *              the C interface, by value, with a layout argument first and
 *              the real scalars by value, the complex ones by pointer;
 *              F77_64 and CBLAS_64: the same with 64-bit integers for the
 *              dimensions and leading dimensions, the ILP64 ABI)
 *
 * Every table keyed by routine is an expansion of this list: the exported
 * symbols (shim/entry_points.c), the enum below, the CPU BLAS symbols to
 * forward to, TSSHIM_DISABLE's names, the exit report, the trace.  Adding a
 * routine is one row here plus its adapter, its kernel (if any) and tests. */
#ifndef TS_ROUTINE_LIST_H
#define TS_ROUTINE_LIST_H

#define TS_ROUTINE_LIST(X)       \
    TS_LP64_ROUTINES(X, )        \
    TS_ILP64_ROUTINES(X, )       \
    TS_ILP64_ROUTINES(X, scipy_) \
    TS_LP64_ROUTINES(X, scipy_)

/* The names of one family: the LP64 ones are the reference BLAS's and
 * CBLAS's own (dgemm_, cblas_dgemm); OpenBLAS built with INTERFACE64=1
 * SYMBOLSUFFIX=64_ appends 64_ to every name (dgemm_64_, cblas_dgemm64_),
 * the ILP64 ABI.  The wheels of NumPy and SciPy bundle OpenBLAS with every
 * name prefixed scipy_: NumPy's ILP64 (scipy_dgemm_64_,
 * scipy_cblas_dgemm64_), SciPy's LP64 (scipy_dgemm_, scipy_cblas_dgemm). */
#define TS_LP64_ROUTINES(X, P) TS_ROUTINE_BLOCK(X, P, , )
#define TS_ILP64_ROUTINES(X, P) TS_ROUTINE_BLOCK(X, P, 64_, _64)

/* One block of rows: prefix P, suffix S, abi F77 or CBLAS with A
 * appended (_64 for the ILP64 ones). */
#define TS_ROUTINE_BLOCK(X, P, S, A)           \
    X(P##sgemm_##S, TS_S, GEMM, F77##A)         \
    X(P##dgemm_##S, TS_D, GEMM, F77##A)         \
    X(P##cgemm_##S, TS_C, GEMM, F77##A)         \
    X(P##zgemm_##S, TS_Z, GEMM, F77##A)         \
    X(P##cblas_sgemm##S, TS_S, GEMM, CBLAS##A)  \
    X(P##cblas_dgemm##S, TS_D, GEMM, CBLAS##A)  \
    X(P##cblas_cgemm##S, TS_C, GEMM, CBLAS##A)  \
    X(P##cblas_zgemm##S, TS_Z, GEMM, CBLAS##A)  \
    X(P##ssyrk_##S, TS_S, SYRK, F77##A)         \
    X(P##dsyrk_##S, TS_D, SYRK, F77##A)         \
    X(P##csyrk_##S, TS_C, SYRK, F77##A)         \
    X(P##zsyrk_##S, TS_Z, SYRK, F77##A)         \
    X(P##cherk_##S, TS_C, HERK, F77##A)         \
    X(P##zherk_##S, TS_Z, HERK, F77##A)         \
    X(P##strsm_##S, TS_S, TRSM, F77##A)         \
    X(P##dtrsm_##S, TS_D, TRSM, F77##A)         \
    X(P##ctrsm_##S, TS_C, TRSM, F77##A)         \
    X(P##ztrsm_##S, TS_Z, TRSM, F77##A)         \
    X(P##cblas_ssyrk##S, TS_S, SYRK, CBLAS##A)  \
    X(P##cblas_dsyrk##S, TS_D, SYRK, CBLAS##A)  \
    X(P##cblas_csyrk##S, TS_C, SYRK, CBLAS##A)  \
    X(P##cblas_zsyrk##S, TS_Z, SYRK, CBLAS##A)  \
    X(P##cblas_cherk##S, TS_C, HERK, CBLAS##A)  \
    X(P##cblas_zherk##S, TS_Z, HERK, CBLAS##A)  \
    X(P##cblas_strsm##S, TS_S, TRSM, CBLAS##A)  \
    X(P##cblas_dtrsm##S, TS_D, TRSM, CBLAS##A)  \
    X(P##cblas_ctrsm##S, TS_C, TRSM, CBLAS##A)  \
    X(P##cblas_ztrsm##S, TS_Z, TRSM, CBLAS##A)  \
    X(P##ssymm_##S, TS_S, SYMM, F77##A)         \
    X(P##dsymm_##S, TS_D, SYMM, F77##A)         \
    X(P##csymm_##S, TS_C, SYMM, F77##A)         \
    X(P##zsymm_##S, TS_Z, SYMM, F77##A)         \
    X(P##chemm_##S, TS_C, HEMM, F77##A)         \
    X(P##zhemm_##S, TS_Z, HEMM, F77##A)         \
    X(P##strmm_##S, TS_S, TRMM, F77##A)         \
    X(P##dtrmm_##S, TS_D, TRMM, F77##A)         \
    X(P##ctrmm_##S, TS_C, TRMM, F77##A)         \
    X(P##ztrmm_##S, TS_Z, TRMM, F77##A)         \
    X(P##ssyr2k_##S, TS_S, SYR2K, F77##A)       \
    X(P##dsyr2k_##S, TS_D, SYR2K, F77##A)       \
    X(P##csyr2k_##S, TS_C, SYR2K, F77##A)       \
    X(P##zsyr2k_##S, TS_Z, SYR2K, F77##A)       \
    X(P##cher2k_##S, TS_C, HER2K, F77##A)       \
    X(P##zher2k_##S, TS_Z, HER2K, F77##A)       \
    X(P##cblas_ssymm##S, TS_S, SYMM, CBLAS##A)  \
    X(P##cblas_dsymm##S, TS_D, SYMM, CBLAS##A)  \
    X(P##cblas_csymm##S, TS_C, SYMM, CBLAS##A)  \
    X(P##cblas_zsymm##S, TS_Z, SYMM, CBLAS##A)  \
    X(P##cblas_chemm##S, TS_C, HEMM, CBLAS##A)  \
    X(P##cblas_zhemm##S, TS_Z, HEMM, CBLAS##A)  \
    X(P##cblas_strmm##S, TS_S, TRMM, CBLAS##A)  \
    X(P##cblas_dtrmm##S, TS_D, TRMM, CBLAS##A)  \
    X(P##cblas_ctrmm##S, TS_C, TRMM, CBLAS##A)  \
    X(P##cblas_ztrmm##S, TS_Z, TRMM, CBLAS##A)  \
    X(P##cblas_ssyr2k##S, TS_S, SYR2K, CBLAS##A) \
    X(P##cblas_dsyr2k##S, TS_D, SYR2K, CBLAS##A) \
    X(P##cblas_csyr2k##S, TS_C, SYR2K, CBLAS##A) \
    X(P##cblas_zsyr2k##S, TS_Z, SYR2K, CBLAS##A) \
    X(P##cblas_cher2k##S, TS_C, HER2K, CBLAS##A) \
    X(P##cblas_zher2k##S, TS_Z, HER2K, CBLAS##A)

typedef enum { TS_S = 0, TS_D = 1, TS_C = 2, TS_Z = 3, TS_NPREC = 4 } ts_prec;

typedef enum { TS_ABI_F77, TS_ABI_CBLAS, TS_ABI_F77_64, TS_ABI_CBLAS_64 } ts_abi;

/* The arguments column: which BLAS operation a routine is. */
typedef enum {
    TS_ARGS_GEMM,
    TS_ARGS_SYRK,
    TS_ARGS_HERK,
    TS_ARGS_TRSM,
    TS_ARGS_SYMM,
    TS_ARGS_HEMM,
    TS_ARGS_TRMM,
    TS_ARGS_SYR2K,
    TS_ARGS_HER2K
} ts_args;

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

/* Whether a routine takes 64-bit integers (the ILP64 ABI). */
static inline int ts_routine_ilp64(ts_routine r)
{
    ts_abi a = ts_routine_abi(r);
    return a == TS_ABI_F77_64 || a == TS_ABI_CBLAS_64;
}

/* Whether a routine has the C interface (either integer width). */
static inline int ts_routine_cblas(ts_routine r)
{
    ts_abi a = ts_routine_abi(r);
    return a == TS_ABI_CBLAS || a == TS_ABI_CBLAS_64;
}

static inline ts_args ts_routine_args(ts_routine r)
{
    static const ts_args args[TS_NROUTINE] = {
#define TS_ROUTINE_ARGS(symbol, prec, args, abi) TS_ARGS_##args,
        TS_ROUTINE_LIST(TS_ROUTINE_ARGS)
#undef TS_ROUTINE_ARGS
    };
    return args[r];
}

/* The real precision of a complex one (and a real one itself). */
static inline ts_prec ts_prec_real(ts_prec p) { return p == TS_C ? TS_S : p == TS_Z ? TS_D : p; }

/* The precision of a routine's alpha as the program passes it: HERK's is
 * real. */
static inline ts_prec ts_routine_scalar_prec(ts_routine r)
{
    ts_prec p = ts_routine_prec(r);
    return ts_routine_args(r) != TS_ARGS_HERK ? p : ts_prec_real(p);
}

/* The precision of a routine's beta as passed: HERK's and HER2K's are real. */
static inline ts_prec ts_routine_beta_prec(ts_routine r)
{
    ts_prec p = ts_routine_prec(r);
    ts_args a = ts_routine_args(r);
    return a == TS_ARGS_HERK || a == TS_ARGS_HER2K ? ts_prec_real(p) : p;
}

/* Whether a routine's descriptor is side-shaped: A the k x k triangle
 * (TRSM, TRMM) or symmetric matrix (SYMM, HEMM), B m x n. */
static inline int ts_routine_side_shaped(ts_routine r)
{
    ts_args a = ts_routine_args(r);
    return a == TS_ARGS_TRSM || a == TS_ARGS_TRMM || a == TS_ARGS_SYMM || a == TS_ARGS_HEMM;
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

/* Each block starts the same way, so the Fortran GEMM of a routine's own
 * family (LP64, 64_, scipy_..64_ or scipy_) and precision is found by
 * offset. */
#ifdef __cplusplus
static_assert
#else
_Static_assert
#endif
    (TS_R_dgemm_64_ == TS_R_sgemm_64_ + (int)TS_D && TS_R_zgemm_64_ == TS_R_sgemm_64_ + (int)TS_Z &&
         TS_R_scipy_dgemm_64_ == TS_R_scipy_sgemm_64_ + (int)TS_D &&
         TS_R_scipy_zgemm_64_ == TS_R_scipy_sgemm_64_ + (int)TS_Z &&
         TS_R_scipy_dgemm_ == TS_R_scipy_sgemm_ + (int)TS_D && TS_R_scipy_zgemm_ == TS_R_scipy_sgemm_ + (int)TS_Z,
     "each block starts with its Fortran GEMMs, in precision order");

/* The Fortran GEMM of routine r's family in r's precision: what finishes a
 * call on the CPU with the integers the family takes. */
static inline ts_routine ts_family_gemm_routine(ts_routine r)
{
    int first = r >= TS_R_scipy_sgemm_      ? TS_R_scipy_sgemm_
                : r >= TS_R_scipy_sgemm_64_ ? TS_R_scipy_sgemm_64_
                : r >= TS_R_sgemm_64_       ? TS_R_sgemm_64_
                                            : TS_R_sgemm_;
    return (ts_routine)(first + (int)ts_routine_prec(r));
}

#endif
