/* A program calling the ILP64 names (dgemm_64_, cblas_dgemm64_,
 * scipy_dsyrk_64_, ...), as a program linked with an ILP64 OpenBLAS or
 * NumPy's bundled one does; tests/ilp64.sh runs it with and without the
 * shim.  Each routine is found by name in the process (dlsym RTLD_DEFAULT:
 * the shim's when preloaded, as a direct call would bind), else in the
 * provider this program opened itself.
 *
 *   ilp64_client check [PROVIDER]   every GEMM, SYRK, HERK, TRSM, SYMM,
 *                                   HEMM, TRMM, SYR2K and HER2K name, D
 *                                   and Z, both prefixes, against the LP64
 *                                   routine of the BLAS the program links;
 *                                   prints "ok" or the first difference
 *   ilp64_client none               calls dgemm_64_ with no provider loaded
 *   ilp64_client bad ARG [PROVIDER] dgemm_64_ with argument ARG invalid
 *                                   (1, 3, 8: 8 with m above 2^32)
 *
 * PROVIDER: opened with dlopen(RTLD_LOCAL) after start, as NumPy opens its
 * BLAS; without it the provider is the one the program was linked with. */
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
typedef void gemm64_f(const char *, const char *, const i64 *, const i64 *, const i64 *, const void *, const void *,
                      const i64 *, const void *, const i64 *, const void *, void *, const i64 *, size_t, size_t);
typedef void gemm32_f(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                      const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void syrk64_f(const char *, const char *, const i64 *, const i64 *, const void *, const void *, const i64 *,
                      const void *, void *, const i64 *, size_t, size_t);
typedef void syrk32_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                      const void *, void *, const int *, size_t, size_t);
typedef void trsm64_f(const char *, const char *, const char *, const char *, const i64 *, const i64 *, const void *,
                      const void *, const i64 *, void *, const i64 *, size_t, size_t, size_t, size_t);
typedef void trsm32_f(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                      const void *, const int *, void *, const int *, size_t, size_t, size_t, size_t);
/* CBLAS with double scalars (D, and zherk's) or complex ones by address (Z). */
typedef void cgemm64_d(int, int, int, i64, i64, i64, double, const void *, i64, const void *, i64, double, void *, i64);
typedef void cgemm32_d(int, int, int, int, int, int, double, const void *, int, const void *, int, double, void *, int);
typedef void cgemm64_z(int, int, int, i64, i64, i64, const void *, const void *, i64, const void *, i64, const void *,
                       void *, i64);
typedef void cgemm32_z(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                       void *, int);
typedef void csyrk64_d(int, int, int, i64, i64, double, const void *, i64, double, void *, i64);
typedef void csyrk32_d(int, int, int, int, int, double, const void *, int, double, void *, int);
typedef void csyrk64_z(int, int, int, i64, i64, const void *, const void *, i64, const void *, void *, i64);
typedef void csyrk32_z(int, int, int, int, int, const void *, const void *, int, const void *, void *, int);
typedef void ctrsm64_d(int, int, int, int, int, i64, i64, double, const void *, i64, void *, i64);
typedef void ctrsm32_d(int, int, int, int, int, int, int, double, const void *, int, void *, int);
typedef void ctrsm64_z(int, int, int, int, int, i64, i64, const void *, const void *, i64, void *, i64);
typedef void ctrsm32_z(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
/* SYMM and HEMM; SYR2K and HER2K have the same types (zher2k's CBLAS beta real). */
typedef void symm64_f(const char *, const char *, const i64 *, const i64 *, const void *, const void *, const i64 *,
                      const void *, const i64 *, const void *, void *, const i64 *, size_t, size_t);
typedef void symm32_f(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                      const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void csymm64_d(int, int, int, i64, i64, double, const void *, i64, const void *, i64, double, void *, i64);
typedef void csymm32_d(int, int, int, int, int, double, const void *, int, const void *, int, double, void *, int);
typedef void csymm64_z(int, int, int, i64, i64, const void *, const void *, i64, const void *, i64, const void *,
                       void *, i64);
typedef void csymm32_z(int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                       void *, int);
typedef void cher2k64(int, int, int, i64, i64, const void *, const void *, i64, const void *, i64, double, void *, i64);
typedef void cher2k32(int, int, int, int, int, const void *, const void *, int, const void *, int, double, void *, int);

static void *provider;

/* The routine called NAME: the process's (the shim's when preloaded),
 * else the provider's.  Exits with a message when neither has it. */
static void (*find(const char *name))(void)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    if (!sym && provider)
        sym = dlsym(provider, name);
    if (!sym) {
        printf("ilp64_client: %s not found\n", name);
        exit(3);
    }
    void (*fn)(void);
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

#define CALL(type, name) ((type *)find(name))

/* Operands of every test: M x N results, K the inner or triangle order,
 * leading dimensions padded; A's diagonal dominant for TRSM. */
enum { M = 7, N = 5, K = 6, LD = 9, SIZE = LD * LD };
static double complex a[SIZE], b[SIZE], c64[SIZE], c32[SIZE];

static void fill(void)
{
    for (int i = 0; i < SIZE; i++) {
        a[i] = (double)((i * 7) % 11) / 11.0 - 0.4 + I * ((double)((i * 5) % 13) / 13.0 - 0.5);
        b[i] = (double)((i * 3) % 7) / 7.0 - 0.5 + I * ((double)((i * 11) % 5) / 5.0 - 0.3);
        c64[i] = c32[i] = (double)(i % 5) - 2.0 + I * (double)(i % 3);
    }
    for (int i = 0; i < LD; i++)
        a[i * LD + i] += 8.0;
}

/* The dimensions and scalars of every check, as both integer widths take them. */
static const i64 m = M, n = N, k = K, ld = LD;
static const int m32 = M, nn32 = N, k32 = K, ld32 = LD;
static const double complex alpha = 0.75 - 0.25 * I, beta = -0.5 + 0.125 * I;
static const double ralpha = 0.75, rbeta = -0.5;

/* The two results agree to rounding (the same arithmetic, maybe another library). */
static int same(const char *name, int complex_prec)
{
    const double *x = (const double *)c64, *y = (const double *)c32;
    int count = complex_prec ? 2 * SIZE : SIZE;
    for (int i = 0; i < count; i++)
        if (!(fabs(x[i] - y[i]) <= 1e-12 * (1.0 + fabs(y[i])))) {
            printf("%s: element %d is %.17g, the LP64 routine gives %.17g\n", name, i, x[i], y[i]);
            return 0;
        }
    return 1;
}

/* The ILP64 and LP64 names of routine BASE ("gemm") in precision P, Fortran
 * or CBLAS; fresh operands for the call. */
static char n64[64], n32[64];
static void names(const char *prefix, char p, int f77, const char *base)
{
    snprintf(n64, sizeof n64, f77 ? "%s%c%s_64_" : "%scblas_%c%s64_", prefix, p, base);
    snprintf(n32, sizeof n32, f77 ? "%c%s_" : "cblas_%c%s", p, base);
    fill();
}

/* TRSM or TRMM (BASE), precision P, names with PREFIX: Fortran with the
 * letters side, uplo, trans, diag of f77; CBLAS with cblas[z] (layout,
 * side, uplo, trans, diag). */
static int check_triangle(const char *prefix, char p, const char *base, const char *f77, const int cblas[2][5])
{
    const int z = p == 'z';
    const void *al = z ? (const void *)&alpha : (const void *)&ralpha;
    const char sd[2] = { f77[0], 0 }, up[2] = { f77[1], 0 }, tr[2] = { f77[2], 0 }, dg[2] = { f77[3], 0 };
    const int *e = cblas[z];
    names(prefix, p, 1, base);
    CALL(trsm64_f, n64)(sd, up, tr, dg, &m, &n, al, a, &ld, c64, &ld, 1, 1, 1, 1);
    CALL(trsm32_f, n32)(sd, up, tr, dg, &m32, &nn32, al, a, &ld32, c32, &ld32, 1, 1, 1, 1);
    int ok = same(n64, z);
    names(prefix, p, 0, base);
    if (z) {
        CALL(ctrsm64_z, n64)(e[0], e[1], e[2], e[3], e[4], m, n, al, a, ld, c64, ld);
        CALL(ctrsm32_z, n32)(e[0], e[1], e[2], e[3], e[4], m32, nn32, al, a, ld32, c32, ld32);
    } else {
        CALL(ctrsm64_d, n64)(e[0], e[1], e[2], e[3], e[4], m, n, ralpha, a, ld, c64, ld);
        CALL(ctrsm32_d, n32)(e[0], e[1], e[2], e[3], e[4], m32, nn32, ralpha, a, ld32, c32, ld32);
    }
    return ok & same(n64, z);
}

/* SYMM, HEMM, SYR2K and HER2K, precision P, names with PREFIX. */
static int check_products(const char *prefix, char p)
{
    const int z = p == 'z';
    const void *al = z ? (const void *)&alpha : (const void *)&ralpha, *be = z ? (const void *)&beta : (const void *)&rbeta;
    int ok = 1;
    for (int her = 0; her <= z; her++) {
        names(prefix, p, 1, her ? "hemm" : "symm");
        CALL(symm64_f, n64)("R", "L", &m, &n, al, a, &ld, b, &ld, be, c64, &ld, 1, 1);
        CALL(symm32_f, n32)("R", "L", &m32, &nn32, al, a, &ld32, b, &ld32, be, c32, &ld32, 1, 1);
        ok &= same(n64, z);
        names(prefix, p, 0, her ? "hemm" : "symm");
        if (z) {
            CALL(csymm64_z, n64)(101, 141, 121, m, n, al, a, ld, b, ld, be, c64, ld);
            CALL(csymm32_z, n32)(101, 141, 121, m32, nn32, al, a, ld32, b, ld32, be, c32, ld32);
        } else {
            CALL(csymm64_d, n64)(102, 141, 122, m, n, ralpha, a, ld, b, ld, rbeta, c64, ld);
            CALL(csymm32_d, n32)(102, 141, 122, m32, nn32, ralpha, a, ld32, b, ld32, rbeta, c32, ld32);
        }
        ok &= same(n64, z);
        names(prefix, p, 1, her ? "her2k" : "syr2k");
        CALL(symm64_f, n64)("U", her ? "C" : "T", &n, &k, al, a, &ld, b, &ld, her ? (const void *)&rbeta : be, c64, &ld,
                            1, 1);
        CALL(symm32_f, n32)("U", her ? "C" : "T", &nn32, &k32, al, a, &ld32, b, &ld32, her ? (const void *)&rbeta : be,
                            c32, &ld32, 1, 1);
        ok &= same(n64, z);
        names(prefix, p, 0, her ? "her2k" : "syr2k");
        if (her) {
            CALL(cher2k64, n64)(101, 122, 111, n, k, al, a, ld, b, ld, rbeta, c64, ld);
            CALL(cher2k32, n32)(101, 122, 111, nn32, k32, al, a, ld32, b, ld32, rbeta, c32, ld32);
        } else if (z) {
            CALL(csymm64_z, n64)(102, 122, 112, n, k, al, a, ld, b, ld, be, c64, ld);
            CALL(csymm32_z, n32)(102, 122, 112, nn32, k32, al, a, ld32, b, ld32, be, c32, ld32);
        } else {
            CALL(csymm64_d, n64)(101, 121, 111, n, k, ralpha, a, ld, b, ld, rbeta, c64, ld);
            CALL(csymm32_d, n32)(101, 121, 111, nn32, k32, ralpha, a, ld32, b, ld32, rbeta, c32, ld32);
        }
        ok &= same(n64, z);
    }
    static const int trmm_cblas[2][5] = { { 102, 142, 121, 111, 132 }, { 101, 142, 121, 113, 131 } };
    return ok & check_triangle(prefix, p, "trmm", "LLTU", trmm_cblas);
}

/* One routine of each kind, precision P ('d' or 'z'), names with PREFIX. */
static int check(const char *prefix, char p)
{
    const int z = p == 'z';
    /* D routines read the leading doubles of the complex arrays: real data. */
    const void *al = z ? (const void *)&alpha : (const void *)&ralpha, *be = z ? (const void *)&beta : (const void *)&rbeta;
    int ok = 1;
    names(prefix, p, 1, "gemm");
    CALL(gemm64_f, n64)("N", "T", &m, &n, &k, al, a, &ld, b, &ld, be, c64, &ld, 1, 1);
    CALL(gemm32_f, n32)("N", "T", &m32, &nn32, &k32, al, a, &ld32, b, &ld32, be, c32, &ld32, 1, 1);
    ok &= same(n64, z);
    names(prefix, p, 0, "gemm");
    if (z) {
        CALL(cgemm64_z, n64)(101, 113, 111, m, n, k, al, a, ld, b, ld, be, c64, ld);
        CALL(cgemm32_z, n32)(101, 113, 111, m32, nn32, k32, al, a, ld32, b, ld32, be, c32, ld32);
    } else {
        CALL(cgemm64_d, n64)(101, 112, 111, m, n, k, ralpha, a, ld, b, ld, rbeta, c64, ld);
        CALL(cgemm32_d, n32)(101, 112, 111, m32, nn32, k32, ralpha, a, ld32, b, ld32, rbeta, c32, ld32);
    }
    ok &= same(n64, z);
    names(prefix, p, 1, "syrk");
    CALL(syrk64_f, n64)("L", "T", &n, &k, al, a, &ld, be, c64, &ld, 1, 1);
    CALL(syrk32_f, n32)("L", "T", &nn32, &k32, al, a, &ld32, be, c32, &ld32, 1, 1);
    ok &= same(n64, z);
    names(prefix, p, 0, "syrk");
    if (z) {
        CALL(csyrk64_z, n64)(102, 121, 111, n, k, al, a, ld, be, c64, ld);
        CALL(csyrk32_z, n32)(102, 121, 111, nn32, k32, al, a, ld32, be, c32, ld32);
    } else {
        CALL(csyrk64_d, n64)(101, 121, 112, n, k, ralpha, a, ld, rbeta, c64, ld);
        CALL(csyrk32_d, n32)(101, 121, 112, nn32, k32, ralpha, a, ld32, rbeta, c32, ld32);
    }
    ok &= same(n64, z);
    if (z) {
        names(prefix, p, 1, "herk");
        CALL(syrk64_f, n64)("U", "C", &n, &k, &ralpha, a, &ld, &rbeta, c64, &ld, 1, 1);
        CALL(syrk32_f, n32)("U", "C", &nn32, &k32, &ralpha, a, &ld32, &rbeta, c32, &ld32, 1, 1);
        ok &= same(n64, z);
        names(prefix, p, 0, "herk");
        CALL(csyrk64_d, n64)(101, 122, 111, n, k, ralpha, a, ld, rbeta, c64, ld);
        CALL(csyrk32_d, n32)(101, 122, 111, nn32, k32, ralpha, a, ld32, rbeta, c32, ld32);
        ok &= same(n64, z);
    }
    static const int trsm_cblas[2][5] = { { 102, 141, 122, 112, 131 }, { 101, 141, 122, 113, 132 } };
    ok &= check_triangle(prefix, p, "trsm", "RUNN", trsm_cblas);
    return ok & check_products(prefix, p);
}

/* dgemm_64_ with argument ARG invalid: the provider's xerbla reports it. */
static void bad(int arg)
{
    i64 m = arg == 8 ? ((i64)1 << 32) + M : arg == 3 ? -1 : M, n = N, k = K, lda = arg == 8 ? 1 : LD, ld = LD;
    const double one = 1.0;
    CALL(gemm64_f, "dgemm_64_")(arg == 1 ? "X" : "N", "N", &m, &n, &k, &one, a, &lda, b, &ld, &one, c64, &ld, 1, 1);
    printf("returned\n");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *path = !strcmp(argv[1], "bad") ? (argc > 3 ? argv[3] : NULL) : (argc > 2 ? argv[2] : NULL);
    if (path && !(provider = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        printf("ilp64_client: %s\n", dlerror());
        return 2;
    }
    if (strcmp(argv[1], "none")) {
        const char *(*missing)(void) = (const char *(*)(void))find("tsshim_ilp64_provider_missing");
        if (missing()) {
            printf("the ILP64 provider cannot serve: %s\n", missing());
            return 77;
        }
    }
    fflush(stdout);
    if (!strcmp(argv[1], "none")) {
        const i64 one = 1;
        const double x = 1.0;
        double y = 0.0;
        CALL(gemm64_f, "dgemm_64_")("N", "N", &one, &one, &one, &x, &x, &one, &x, &one, &x, &y, &one, 1, 1);
        printf("returned\n");
        return 0;
    }
    if (!strcmp(argv[1], "bad") && argc > 2) {
        bad(atoi(argv[2]));
        return 0;
    }
    int ok = 1;
    static const char *const prefixes[] = { "", "scipy_" };
    for (int i = 0; i < 2; i++)
        ok &= check(prefixes[i], 'd') & check(prefixes[i], 'z');
    printf(ok ? "ok\n" : "differences\n");
    return ok ? 0 : 1;
}
