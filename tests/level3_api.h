/* SYRK, HERK, TRSM, SYMM, HEMM, TRMM, SYR2K and HER2K as a program calls them: the Fortran symbols (with
 * the hidden string lengths) and the CBLAS ones, for the level-3 tests. */
#ifndef TS_LEVEL3_API_H
#define TS_LEVEL3_API_H

#include <stddef.h>

typedef void syrk_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, void *, const int *, size_t, size_t);
typedef void trsm_f(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                    const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
/* SYMM and HEMM (side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
 * SYR2K and HER2K have the same types (uplo, trans, n, k, ...). */
typedef void symm_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, const int *, const void *, void *, const int *, size_t, size_t);
/* The names with prefix P: none, or scipy_ (SciPy's bundled OpenBLAS). */
#define LEVEL3_API(P)                                                                                           \
    extern syrk_f P##ssyrk_, P##dsyrk_, P##csyrk_, P##zsyrk_, P##cherk_, P##zherk_;                            \
    extern trsm_f P##strsm_, P##dtrsm_, P##ctrsm_, P##ztrsm_;                                                  \
    void P##cblas_ssyrk(int, int, int, int, int, float, const void *, int, float, void *, int);               \
    void P##cblas_dsyrk(int, int, int, int, int, double, const void *, int, double, void *, int);             \
    void P##cblas_csyrk(int, int, int, int, int, const void *, const void *, int, const void *, void *, int); \
    void P##cblas_zsyrk(int, int, int, int, int, const void *, const void *, int, const void *, void *, int); \
    void P##cblas_cherk(int, int, int, int, int, float, const void *, int, float, void *, int);               \
    void P##cblas_zherk(int, int, int, int, int, double, const void *, int, double, void *, int);             \
    void P##cblas_strsm(int, int, int, int, int, int, int, float, const void *, int, void *, int);           \
    void P##cblas_dtrsm(int, int, int, int, int, int, int, double, const void *, int, void *, int);          \
    void P##cblas_ctrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);    \
    void P##cblas_ztrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);      \
    extern symm_f P##ssymm_, P##dsymm_, P##csymm_, P##zsymm_, P##chemm_, P##zhemm_;                            \
    extern symm_f P##ssyr2k_, P##dsyr2k_, P##csyr2k_, P##zsyr2k_, P##cher2k_, P##zher2k_;                      \
    extern trsm_f P##strmm_, P##dtrmm_, P##ctrmm_, P##ztrmm_;                                                  \
    LEVEL3_CBLAS_MORE(P, symm, int, int)                                                                      \
    LEVEL3_CBLAS_MORE(P, syr2k, int, int)                                                                     \
    void P##cblas_chemm(int, int, int, int, int, const void *, const void *, int, const void *, int, const void *, \
                        void *, int);                                                                         \
    void P##cblas_zhemm(int, int, int, int, int, const void *, const void *, int, const void *, int, const void *, \
                        void *, int);                                                                         \
    void P##cblas_cher2k(int, int, int, int, int, const void *, const void *, int, const void *, int, float, void *, \
                         int);                                                                                \
    void P##cblas_zher2k(int, int, int, int, int, const void *, const void *, int, const void *, int, double,      \
                         void *, int);                                                                        \
    void P##cblas_strmm(int, int, int, int, int, int, int, float, const void *, int, void *, int);           \
    void P##cblas_dtrmm(int, int, int, int, int, int, int, double, const void *, int, void *, int);          \
    void P##cblas_ctrmm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);    \
    void P##cblas_ztrmm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
/* cblas_?symm and cblas_?syr2k (the same types), the four precisions. */
#define LEVEL3_CBLAS_MORE(P, op, E, I)                                                                          \
    void P##cblas_s##op(E, E, E, I, I, float, const void *, I, const void *, I, float, void *, I);             \
    void P##cblas_d##op(E, E, E, I, I, double, const void *, I, const void *, I, double, void *, I);           \
    void P##cblas_c##op(E, E, E, I, I, const void *, const void *, I, const void *, I, const void *, void *, I); \
    void P##cblas_z##op(E, E, E, I, I, const void *, const void *, I, const void *, I, const void *, void *, I);
LEVEL3_API()

#endif
