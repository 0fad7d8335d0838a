/* A small BLAS client for the shell tests, in the ways real programs reach
 * dgemm_.  Built twice: linked with the CPU BLAS (blas_client) and without
 * any BLAS (blas_client_nolink, which finds dgemm_ at run time like Python or
 * R do).  Usage:
 *   blas_client call            one 3x3 dgemm_, prints C
 *   blas_client bad ARG         dgemm_ with argument ARG (1, 2, 3, 8, 10 or 13) invalid
 *   blas_client local LIB       dlopen(LIB, RTLD_LOCAL) first, then call dgemm_
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*gemm_fn)(const char *, const char *, const int *, const int *, const int *, const double *,
                        const double *, const int *, const double *, const int *, const double *, double *,
                        const int *, size_t, size_t);

#ifdef TS_LINKED_BLAS
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);

static gemm_fn find_dgemm(void) { return dgemm_; }
#else
static gemm_fn find_dgemm(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "dgemm_");
    gemm_fn fn = NULL;
    if (sym)
        memcpy(&fn, &sym, sizeof fn);
    return fn;
}
#endif

static int call(gemm_fn dgemm, const char *ta, const char *tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    double a[64], b[64], c[64], alpha = 1.5, beta = 0.5;
    for (int i = 0; i < 64; i++) {
        a[i] = 1.0 + i % 7;
        b[i] = 2.0 - i % 5;
        c[i] = 0.25 * i;
    }
    dgemm(ta, tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    for (int i = 0; i < 9; i++)
        printf("%g ", c[i]);
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (!strcmp(argv[1], "local") && argc > 2 && !dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) {
        fprintf(stderr, "cannot load %s\n", argv[2]);
        return 2;
    }
    gemm_fn dgemm = find_dgemm();
    if (!dgemm) {
        fprintf(stderr, "no dgemm_ in the process\n");
        return 2;
    }
    if (!strcmp(argv[1], "bad") && argc > 2) {
        int which = atoi(argv[2]);
        return call(dgemm, which == 1 ? "X" : "N", which == 2 ? "Y" : "N", which == 3 ? -1 : 3, 3, 3, which == 8 ? 2 : 3,
                    which == 10 ? 2 : 3, which == 13 ? 2 : 3);
    }
    return call(dgemm, "N", "N", 3, 3, 3, 3, 3, 3);
}
