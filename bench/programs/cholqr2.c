/* A CholeskyQR2 loop, as a legacy block method runs it: each iteration
 * mixes the m x n block V with a fixed n x n matrix M (W = V M, dgemm_ of a
 * tall block by a small one) and orthonormalizes W by CholeskyQR twice:
 *   G = W^T W (dsyrk_), G = R^T R (dpotrf_), W = W R^-1 (dtrsm_).
 * The block then holds Q with Q R2 R1 = V M; it becomes the next V.
 * The check (O(m n), plain loops, not BLAS): Q (R2 R1 z) = V (M z) for a
 * probe z, and |Q z| = |z| (Q orthonormal).
 * Usage: cholqr2 [m [n [iterations]]]   (4194304 16 30)
 * Prints "time SECONDS" (the iterations; the first BLAS call included) and
 * "check ok ..." or "check FAIL ..." (exit status 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, size_t, size_t);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int arg(int argc, char **argv, int i, int def)
{
    return argc > i ? (int)atof(argv[i]) : def;
}

/* A fixed uniform generator in [-1, 1): the same numbers on every machine. */
static double next_uniform(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

/* y (m) = A (m x n, leading dimension m) x. */
static void matvec(long m, int n, const double *a, const double *x, double *y)
{
    memset(y, 0, m * sizeof *y);
    for (int j = 0; j < n; j++)
        for (long i = 0; i < m; i++)
            y[i] += a[i + j * m] * x[j];
}

int main(int argc, char **argv)
{
    int m = arg(argc, argv, 1, 4194304), n = arg(argc, argv, 2, 16), iters = arg(argc, argv, 3, 30);
    if (m < 1 || n < 1 || n > 256 || m < n || iters < 1) {
        fprintf(stderr, "usage: cholqr2 [m [n [iterations]]] with 1 <= n <= 256, n <= m, iterations >= 1\n");
        return 2;
    }
    size_t mn = (size_t)m * n;
    double *v = malloc(mn * sizeof *v), *w = malloc(mn * sizeof *w), *mix = malloc((size_t)n * n * sizeof *mix),
           *g = malloc((size_t)n * n * sizeof *g), *r = calloc((size_t)n * n, sizeof *r),
           *t = calloc((size_t)n * n, sizeof *t), *z = malloc((size_t)n * sizeof *z), *rz = malloc((size_t)n * sizeof *rz),
           *mz = malloc((size_t)n * sizeof *mz), *y1 = malloc((size_t)m * sizeof *y1),
           *y2 = malloc((size_t)m * sizeof *y2);
    if (!v || !w || !mix || !g || !r || !t || !z || !rz || !mz || !y1 || !y2) {
        fprintf(stderr, "cholqr2: out of memory\n");
        return 2;
    }
    unsigned long long seed = 20251121;
    for (size_t i = 0; i < mn; i++)
        v[i] = next_uniform(&seed);
    /* M = I + 0.3 * noise: well conditioned, so the block stays full rank. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            mix[i + j * n] = (i == j) + 0.3 * next_uniform(&seed);
    memset(w, 0, mn * sizeof *w); /* touched before the clock, as v is */

    const double one = 1, zero = 0;
    int info = 0;
    double t0 = now();
    for (int it = 0; it < iters && !info; it++) {
        if (it) { /* the previous Q is the new V */
            double *s = v;
            v = w;
            w = s;
        }
        dgemm_("N", "N", &m, &n, &n, &one, v, &m, mix, &n, &zero, w, &m, 1, 1);
        for (int pass = 0; pass < 2 && !info; pass++) {
            dsyrk_("U", "T", &n, &m, &one, w, &m, &zero, g, &n, 1, 1);
            dpotrf_("U", &n, g, &n, &info, 1);
            if (!info)
                dtrsm_("R", "U", "N", "N", &m, &n, &one, g, &n, w, &m, 1, 1, 1, 1);
            /* R = R_pass * R (upper triangular products, n^3: plain loops). */
            if (pass == 0) {
                for (int j = 0; j < n; j++)
                    for (int i = 0; i <= j; i++)
                        r[i + j * n] = g[i + j * n];
            } else {
                for (int j = 0; j < n; j++)
                    for (int i = 0; i <= j; i++) {
                        double s = 0;
                        for (int l = i; l <= j; l++)
                            s += g[i + l * n] * r[l + j * n];
                        t[i + j * n] = s;
                    }
                memcpy(r, t, (size_t)n * n * sizeof *r);
            }
        }
    }
    double took = now() - t0;
    if (info) {
        printf("time %.6f\ncheck FAIL dpotrf_ info=%d\n", took, info);
        return 1;
    }

    /* w = Q with Q R = V M: compare Q (R z) with V (M z), and |Q z| with |z|. */
    double zz = 0, vn = 0, err = 0, qq = 0;
    for (int i = 0; i < n; i++) {
        z[i] = next_uniform(&seed);
        zz += z[i] * z[i];
        rz[i] = mz[i] = 0;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            rz[i] += r[i + j * n] * z[j];
            mz[i] += mix[i + j * n] * z[j];
        }
    matvec(m, n, w, rz, y1);
    matvec(m, n, v, mz, y2);
    for (long i = 0; i < m; i++) {
        err = fmax(err, fabs(y1[i] - y2[i]));
        vn = fmax(vn, fabs(y2[i]));
    }
    matvec(m, n, w, z, y1);
    for (long i = 0; i < m; i++)
        qq += y1[i] * y1[i];
    double e1 = err / (vn > 0 ? vn : 1), e2 = fabs(qq - zz) / zz;
    int ok = e1 <= 1e-10 && e2 <= 1e-10; /* NaN fails both */
    printf("time %.6f\n", took);
    printf("check %s relative_error=%.3g orthonormality_error=%.3g (m=%d n=%d iterations=%d)\n", ok ? "ok" : "FAIL", e1,
           e2, m, n, iters);
    return !ok;
}
