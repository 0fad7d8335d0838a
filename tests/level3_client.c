/* A client of SYRK, HERK, TRSM, SYMM, HEMM, TRMM, SYR2K and HER2K for
 * tests/level3_xerbla.sh, linked with the CPU BLAS.  Usage:
 *   level3_client ROUTINE [BAD]
 * ROUTINE: dsyrk_, zherk_, ctrsm_, dsymm_, zhemm_, ztrmm_, dsyr2k_, zher2k_
 * (Fortran) or cblas_dsyrk, cblas_zherk, cblas_ctrsm, cblas_dsymm,
 * cblas_strmm, cblas_zher2k (column-major); BAD: the position of the argument made
 * invalid, as the interface numbers it (Fortran: the reference BLAS's
 * xerbla numbers; CBLAS: the parameter counted from the layout as 1).
 * Prints C (or B) after the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, size_t, size_t);
void zherk_(const char *, const char *, const int *, const int *, const double *, const void *, const int *,
            const double *, void *, const int *, size_t, size_t);
void ctrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
            const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
void cblas_dsyrk(int, int, int, int, int, double, const void *, int, double, void *, int);
void cblas_zherk(int, int, int, int, int, double, const void *, int, double, void *, int);
void cblas_ctrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
/* SYMM, HEMM, SYR2K, HER2K (the same types), TRMM. */
typedef void symm_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                    const void *, const int *, const void *, void *, const int *, size_t, size_t);
symm_f dsymm_, zhemm_, dsyr2k_, zher2k_;
void ztrmm_(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
            const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
void cblas_dsymm(int, int, int, int, int, double, const void *, int, const void *, int, double, void *, int);
void cblas_zher2k(int, int, int, int, int, const void *, const void *, int, const void *, int, double, void *, int);
void cblas_strmm(int, int, int, int, int, int, int, float, const void *, int, void *, int);

/* v, or the invalid value when the argument at position pos is the bad one. */
static int arg(int pos, int bad, int v, int invalid) { return pos == bad ? invalid : v; }
static const char *letter(int pos, int bad, const char *v) { return pos == bad ? "X" : v; }

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *r = argv[1];
    int bad = argc > 2 ? atoi(argv[2]) : 0;
    double a[2 * 16], b[2 * 16], c[2 * 16];
    for (int i = 0; i < 32; i++) {
        a[i] = 1.0 + i % 7 + (i % 2 ? 0.0 : 2.0 * (i % 3 == 0));
        b[i] = 0.5 - 0.125 * (i % 5);
        c[i] = 0.25 * i;
    }
    const double alpha[2] = { 1.5, 0.5 }, beta[2] = { 0.5, 0 };
    const float calpha[2] = { 1.5f, 0.5f };
    int n = 3, k = 3, ld = 3;
    if (!strcmp(r, "dsyrk_") || !strcmp(r, "zherk_")) {
        int nn = arg(3, bad, n, -1), kk = arg(4, bad, k, -1), lda = arg(7, bad, ld, 2), ldc = arg(10, bad, ld, 2);
        if (r[0] == 'd')
            dsyrk_(letter(1, bad, "U"), letter(2, bad, "N"), &nn, &kk, alpha, a, &lda, beta, c, &ldc, 1, 1);
        else
            zherk_(letter(1, bad, "L"), letter(2, bad, "C"), &nn, &kk, alpha, a, &lda, beta, c, &ldc, 1, 1);
    } else if (!strcmp(r, "ctrsm_")) {
        int m = arg(5, bad, n, -1), nn = arg(6, bad, n, -1), lda = arg(9, bad, ld, 2), ldb = arg(11, bad, ld, 2);
        ctrsm_(letter(1, bad, "L"), letter(2, bad, "U"), letter(3, bad, "N"), letter(4, bad, "N"), &m, &nn, calpha, a,
               &lda, c, &ldb, 1, 1, 1, 1);
    } else if (!strcmp(r, "cblas_dsyrk") || !strcmp(r, "cblas_zherk")) {
        int layout = arg(1, bad, 102, 99), uplo = arg(2, bad, 121, 99), trans = arg(3, bad, r[6] == 'd' ? 111 : 113, 99);
        int nn = arg(4, bad, n, -1), kk = arg(5, bad, k, -1), lda = arg(8, bad, ld, 2), ldc = arg(11, bad, ld, 2);
        if (r[6] == 'd')
            cblas_dsyrk(layout, uplo, trans, nn, kk, alpha[0], a, lda, beta[0], c, ldc);
        else
            cblas_zherk(layout, uplo, trans, nn, kk, alpha[0], a, lda, beta[0], c, ldc);
    } else if (!strcmp(r, "cblas_ctrsm")) {
        int layout = arg(1, bad, 102, 99), side = arg(2, bad, 141, 99), uplo = arg(3, bad, 121, 99);
        int trans = arg(4, bad, 111, 99), diag = arg(5, bad, 131, 99), m = arg(6, bad, n, -1), nn = arg(7, bad, n, -1);
        int lda = arg(10, bad, ld, 2), ldb = arg(12, bad, ld, 2);
        cblas_ctrsm(layout, side, uplo, trans, diag, m, nn, calpha, a, lda, c, ldb);
    } else if (!strcmp(r, "dsymm_") || !strcmp(r, "zhemm_")) {
        int m = arg(3, bad, n, -1), nn = arg(4, bad, n, -1), lda = arg(7, bad, ld, 2), ldb = arg(9, bad, ld, 2);
        int ldc = arg(12, bad, ld, 2);
        (r[0] == 'd' ? dsymm_ : zhemm_)(letter(1, bad, "L"), letter(2, bad, "U"), &m, &nn, alpha, a, &lda, b, &ldb,
                                        beta, c, &ldc, 1, 1);
    } else if (!strcmp(r, "dsyr2k_") || !strcmp(r, "zher2k_")) {
        int nn = arg(3, bad, n, -1), kk = arg(4, bad, k, -1), lda = arg(7, bad, ld, 2), ldb = arg(9, bad, ld, 2);
        int ldc = arg(12, bad, ld, 2);
        (r[0] == 'd' ? dsyr2k_ : zher2k_)(letter(1, bad, "U"), letter(2, bad, r[0] == 'd' ? "T" : "C"), &nn, &kk,
                                          alpha, a, &lda, b, &ldb, beta, c, &ldc, 1, 1);
    } else if (!strcmp(r, "ztrmm_")) {
        int m = arg(5, bad, n, -1), nn = arg(6, bad, n, -1), lda = arg(9, bad, ld, 2), ldb = arg(11, bad, ld, 2);
        ztrmm_(letter(1, bad, "R"), letter(2, bad, "L"), letter(3, bad, "C"), letter(4, bad, "U"), &m, &nn, alpha, a,
               &lda, c, &ldb, 1, 1, 1, 1);
    } else if (!strcmp(r, "cblas_dsymm")) {
        int layout = arg(1, bad, 102, 99), side = arg(2, bad, 142, 99), uplo = arg(3, bad, 122, 99);
        int m = arg(4, bad, n, -1), nn = arg(5, bad, n, -1), lda = arg(8, bad, ld, 2), ldb = arg(10, bad, ld, 2);
        cblas_dsymm(layout, side, uplo, m, nn, alpha[0], a, lda, b, ldb, beta[0], c, arg(13, bad, ld, 2));
    } else if (!strcmp(r, "cblas_zher2k")) {
        int layout = arg(1, bad, 102, 99), uplo = arg(2, bad, 121, 99), trans = arg(3, bad, 113, 112);
        int nn = arg(4, bad, n, -1), kk = arg(5, bad, k, -1), lda = arg(8, bad, ld, 2), ldb = arg(10, bad, ld, 2);
        cblas_zher2k(layout, uplo, trans, nn, kk, alpha, a, lda, b, ldb, beta[0], c, arg(13, bad, ld, 2));
    } else if (!strcmp(r, "cblas_strmm")) {
        int layout = arg(1, bad, 102, 99), side = arg(2, bad, 142, 99), uplo = arg(3, bad, 122, 99);
        int trans = arg(4, bad, 112, 99), diag = arg(5, bad, 132, 99), m = arg(6, bad, n, -1), nn = arg(7, bad, n, -1);
        cblas_strmm(layout, side, uplo, trans, diag, m, nn, calpha[0], a, arg(10, bad, ld, 2), c, arg(12, bad, ld, 2));
    } else {
        fprintf(stderr, "unknown routine %s\n", r);
        return 2;
    }
    for (int i = 0; i < 18; i++)
        printf("%g ", c[i]);
    printf("\n");
    return 0;
}
