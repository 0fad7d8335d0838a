/* A program calling SciPy's LP64 names (scipy_dgemm_, scipy_cblas_dgemm,
 * ...), as scipy.linalg.blas and SciPy's Cython BLAS do: the provider
 * (tests/scipy_provider.c) is opened with dlopen(RTLD_LOCAL) after start,
 * as SciPy opens its bundled OpenBLAS.  Each name is found in the process
 * (dlsym RTLD_DEFAULT: the shim's when preloaded), else in the provider,
 * and its result compared bit for bit with the OpenBLAS routine behind it,
 * called directly.  tests/scipy_lp64.sh runs it with and without the shim.
 *
 *   scipy_lp64_client PROVIDER   every row of TS_LP64_ROUTINES(X, scipy_);
 *                                prints "ok" or the first difference */
#include <dlfcn.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cblas.h"
#include "level3_api.h"

typedef void gemm_f(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                    const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);

/* Operands: M x N results, K the inner order, leading dimensions padded;
 * A's diagonal dominant for TRSM.  Room for complex double. */
enum { M = 7, N = 5, K = 6, LD = 9, SIZE = LD * LD };
static double a[2 * SIZE], b[2 * SIZE], c[2][2 * SIZE];

/* Element i of an array of precision p set to re + i im (im ignored when real). */
static void put(ts_prec p, void *base, int i, double re, double im)
{
    switch (p) {
    case TS_S: ((float *)base)[i] = (float)re; break;
    case TS_D: ((double *)base)[i] = re; break;
    case TS_C: ((float *)base)[2 * i] = (float)re, ((float *)base)[2 * i + 1] = (float)im; break;
    default: ((double *)base)[2 * i] = re, ((double *)base)[2 * i + 1] = im;
    }
}

static void fill(ts_prec p)
{
    memset(c, 0, sizeof c);
    for (int i = 0; i < SIZE; i++) {
        put(p, a, i, (double)((i * 7) % 11) / 11.0 - 0.4 + (i % (LD + 1) ? 0.0 : 8.0), (double)((i * 5) % 13) / 13.0 - 0.5);
        put(p, b, i, (double)((i * 3) % 7) / 7.0 - 0.5, (double)((i * 11) % 5) / 5.0 - 0.3);
        put(p, c[0], i, (double)(i % 5) - 2.0, (double)(i % 3));
        put(p, c[1], i, (double)(i % 5) - 2.0, (double)(i % 3));
    }
}

#define GEMM_ARGS(S) TS_CBLAS_ROW_MAJOR, TS_CBLAS_CONJ_TRANS, TS_CBLAS_NO_TRANS, m, n, k, S(alpha), a, ld, b, ld, S(beta), out, ld
#define SYRK_ARGS(S) TS_CBLAS_ROW_MAJOR, TS_CBLAS_UPPER, strans, n, k, S(alpha), a, ld, S(beta), out, ld
#define SYMM_ARGS(S) TS_CBLAS_ROW_MAJOR, TS_CBLAS_RIGHT, TS_CBLAS_UPPER, m, n, S(alpha), a, ld, b, ld, S(beta), out, ld
#define SYR2K_ARGS(S) TS_CBLAS_ROW_MAJOR, TS_CBLAS_LOWER, strans, n, k, S(alpha), a, ld, b, ld, S(beta), out, ld
/* HER2K: alpha complex by address, beta real. */
#define HER2K_ARGS(S) TS_CBLAS_COL_MAJOR, TS_CBLAS_UPPER, TS_CBLAS_NO_TRANS, n, k, alpha, a, ld, b, ld, S(rbeta), out, ld
#define TRSM_ARGS(S)                                                                                    \
    TS_CBLAS_ROW_MAJOR, TS_CBLAS_LEFT, TS_CBLAS_LOWER, TS_CBLAS_CONJ_TRANS, TS_CBLAS_UNIT, m, n, S(alpha), a, ld, out, ld

/* Routine r (its own type) through fn, writing out. */
static void call(ts_routine r, void (*fn)(void), void *out)
{
    ts_prec sp = ts_routine_scalar_prec(r);
    double al[2], be[2];
    put(sp, al, 0, 0.75, -0.25);
    put(sp, be, 0, -0.5, 0.125);
    const void *alpha = al, *beta = be;
    const int m = M, n = N, k = K, ld = LD, herk = ts_routine_args(r) == TS_ARGS_HERK;
    const int strans = herk ? TS_CBLAS_CONJ_TRANS : TS_CBLAS_TRANS;
    double rb[2];
    put(ts_routine_beta_prec(r), rb, 0, -0.5, 0.0);
    const void *rbeta = rb;
    int cblas = ts_routine_cblas(r);
    switch (ts_routine_args(r)) {
    case TS_ARGS_GEMM:
        if (cblas)
            TS_CBLAS_FORWARD(fn, sp, 0, GEMM, GEMM_ARGS);
        else
            ((gemm_f *)fn)("N", "T", &m, &n, &k, alpha, a, &ld, b, &ld, beta, out, &ld, 1, 1);
        break;
    case TS_ARGS_SYRK:
    case TS_ARGS_HERK:
        if (cblas)
            TS_CBLAS_FORWARD(fn, sp, 0, SYRK, SYRK_ARGS);
        else
            ((syrk_f *)fn)("L", herk ? "C" : "T", &n, &k, alpha, a, &ld, beta, out, &ld, 1, 1);
        break;
    case TS_ARGS_SYMM:
    case TS_ARGS_HEMM:
        if (cblas)
            TS_CBLAS_FORWARD(fn, sp, 0, SYMM, SYMM_ARGS);
        else
            ((symm_f *)fn)("L", "L", &m, &n, alpha, a, &ld, b, &ld, beta, out, &ld, 1, 1);
        break;
    case TS_ARGS_SYR2K:
        if (cblas)
            TS_CBLAS_FORWARD(fn, sp, 0, SYR2K, SYR2K_ARGS);
        else
            ((symm_f *)fn)("U", "N", &n, &k, alpha, a, &ld, b, &ld, beta, out, &ld, 1, 1);
        break;
    case TS_ARGS_HER2K:
        if (cblas)
            TS_CBLAS_FORWARD(fn, ts_routine_beta_prec(r), 0, HER2K, HER2K_ARGS);
        else
            ((symm_f *)fn)("L", "C", &n, &k, alpha, a, &ld, b, &ld, rbeta, out, &ld, 1, 1);
        break;
    case TS_ARGS_TRSM:
    case TS_ARGS_TRMM:
        if (cblas)
            TS_CBLAS_FORWARD(fn, sp, 0, TRSM, TRSM_ARGS);
        else
            ((trsm_f *)fn)("R", "U", "N", "N", &m, &n, alpha, a, &ld, out, &ld, 1, 1, 1, 1);
        break;
    }
}

/* Bit for bit, or where the GPU computed (gpu mode: another summation
 * order) within a rounding bound of the precision, relative to the size of
 * the values (at least 1). */
static int agree(ts_prec p, int rounding)
{
    if (!rounding)
        return !memcmp(c[0], c[1], sizeof c[0]);
    int n = p == TS_C || p == TS_Z ? 2 * SIZE : SIZE;
    double tol = p == TS_S || p == TS_C ? 1e-4 : 1e-12;
    for (int i = 0; i < n; i++) {
        double x = p == TS_S || p == TS_C ? ((const float *)c[0])[i] : c[0][i];
        double y = p == TS_S || p == TS_C ? ((const float *)c[1])[i] : c[1][i];
        if (!(fabs(x - y) <= tol * (1.0 + fabs(y))))
            return 0;
    }
    return 1;
}

static void (*as_fn(void *sym))(void)
{
    void (*fn)(void);
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

int main(int argc, char **argv)
{
    void *provider = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!provider) {
        printf("scipy_lp64_client: %s\n", argc > 1 ? dlerror() : "usage: scipy_lp64_client PROVIDER");
        return 2;
    }
    void *(*plain)(const char *);
    void *sym = dlsym(provider, "tsshim_scipy_provider_plain");
    memcpy(&plain, &sym, sizeof plain);
    if (!plain || !plain("scipy_dgemm_")) {
        printf("the SciPy provider cannot serve: no LP64 OpenBLAS (TSSHIM_TEST_SCIPY_BLAS, default "
               "libopenblas.so.0), or not x86-64\n");
        return 77;
    }
    const char *mode = getenv("TSSHIM_MODE");
    const int rounding = mode && !strcmp(mode, "gpu");
    int ok = 1;
    for (int r = TS_R_scipy_sgemm_; r < TS_NROUTINE && ok; r++) {
        const char *name = ts_routine_symbol((ts_routine)r);
        void *entry = dlsym(RTLD_DEFAULT, name);
        if (!entry)
            entry = dlsym(provider, name);
        fill(ts_routine_prec((ts_routine)r));
        call((ts_routine)r, as_fn(entry), c[0]);
        call((ts_routine)r, as_fn(plain(name)), c[1]);
        if (!agree(ts_routine_prec((ts_routine)r), rounding)) {
            printf("%s: the result differs from OpenBLAS's %s%s\n", name, name + strlen("scipy_"),
                   rounding ? " by more than rounding" : "");
            ok = 0;
        }
    }
    printf(ok ? "ok\n" : "differences\n");
    return ok ? 0 : 1;
}
