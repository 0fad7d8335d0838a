/* SYRK, HERK and TRSM as a program calls them: the Fortran symbols (with
 * the hidden string lengths) and the CBLAS ones, for the level-3 tests. */
#ifndef TS_LEVEL3_API_H
#define TS_LEVEL3_API_H

#include <stddef.h>

typedef void syrk_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, void *, const int *, size_t, size_t);
typedef void trsm_f(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                    const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
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
    void P##cblas_ztrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
LEVEL3_API()

#endif
