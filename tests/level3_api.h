/* SYRK, HERK and TRSM as a program calls them: the Fortran symbols (with
 * the hidden string lengths) and the CBLAS ones, for the level-3 tests. */
#ifndef TS_LEVEL3_API_H
#define TS_LEVEL3_API_H

#include <stddef.h>

typedef void syrk_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, void *, const int *, size_t, size_t);
typedef void trsm_f(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                    const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
extern syrk_f ssyrk_, dsyrk_, csyrk_, zsyrk_, cherk_, zherk_;
extern trsm_f strsm_, dtrsm_, ctrsm_, ztrsm_;

void cblas_ssyrk(int, int, int, int, int, float, const void *, int, float, void *, int);
void cblas_dsyrk(int, int, int, int, int, double, const void *, int, double, void *, int);
void cblas_csyrk(int, int, int, int, int, const void *, const void *, int, const void *, void *, int);
void cblas_zsyrk(int, int, int, int, int, const void *, const void *, int, const void *, void *, int);
void cblas_cherk(int, int, int, int, int, float, const void *, int, float, void *, int);
void cblas_zherk(int, int, int, int, int, double, const void *, int, double, void *, int);
void cblas_strsm(int, int, int, int, int, int, int, float, const void *, int, void *, int);
void cblas_dtrsm(int, int, int, int, int, int, int, double, const void *, int, void *, int);
void cblas_ctrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
void cblas_ztrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);

#endif
