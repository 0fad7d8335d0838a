/* The CBLAS GEMMs as a C program calls them (cblas.h's enums as ints), for
 * the tests that call them through the shim. */
#ifndef TS_TESTS_CBLAS_GEMM_H
#define TS_TESTS_CBLAS_GEMM_H

enum { CBLAS_ROW = 101, CBLAS_COL = 102, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112, CBLAS_CONJ_TRANS = 113 };

void cblas_sgemm(int, int, int, int, int, int, float, const void *, int, const void *, int, float, void *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const void *, int, const void *, int, double, void *, int);
void cblas_cgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                 void *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                 void *, int);

#endif
