/* Residency through the shim: the same GEMMs with every operand in pageable,
 * pinned, managed or device memory (and mixes) give the reference result,
 * the padding of each view stays untouched, and the per-call trace shows
 * that exactly the operand regions that live on the host went up, each
 * element once, and C not at all when beta = 0.
 *
 * Run by residency_gpu.sh under LD_PRELOAD with TSSHIM_MODE=gpu,
 * TSSHIM_VERBOSE=3 and TSSHIM_LOG=<file>, whose last trace line is read back
 * after each call.  Prints "1..0 # SKIP" without a CUDA device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_present.h"
#include "ref_blas.h"
#include "tap.h"

extern gemm_f77 dgemm_, zgemm_;

typedef enum { PAGEABLE, PINNED, MANAGED, DEVICE } kind;
static const char *const kind_names[] = { "pageable", "pinned", "managed", "device" };

typedef struct {
    const char *name;
    char ta, tb;
    int m, n, k;
} shape;

/* Classes with TSSHIM_MIN_LONG=512 (set by the script), default skinny 64. */
static const shape shapes[] = {
    { "tsm2", 'N', 'N', 2000, 8, 1500 },      { "tsm2 T", 'T', 'N', 1500, 5, 2000 },
    { "tsm2 mirror", 'N', 'T', 6, 1800, 1600 }, { "ism2", 'N', 'N', 4000, 8, 8 },
    { "ism2 mirror", 'T', 'N', 8, 3000, 4 },  { "tsmttsm", 'T', 'N', 8, 7, 6000 },
    { "tsmttsm NT", 'N', 'T', 3, 8, 5000 },   { "rankk", 'N', 'T', 900, 700, 6 },
    { "regular", 'N', 'N', 300, 200, 250 },
};

enum { PAD = 3 };

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/* One operand: host image (ld x cols elements) and where the call sees it. */
typedef struct {
    size_t reals, bytes; /* reals per element; bytes of the array */
    double *host;
    void *where;
    kind k;
} operand;

static int place(operand *o, kind k)
{
    o->k = k;
    switch (k) {
    case PAGEABLE: o->where = malloc(o->bytes); break;
    case PINNED: if (cudaMallocHost(&o->where, o->bytes)) o->where = NULL; break;
    case MANAGED: if (cudaMallocManaged(&o->where, o->bytes, cudaMemAttachGlobal)) o->where = NULL; break;
    case DEVICE: if (cudaMalloc(&o->where, o->bytes)) o->where = NULL; break;
    }
    return o->where && cudaMemcpy(o->where, o->host, o->bytes, cudaMemcpyDefault) == cudaSuccess ? 0 : -1;
}

static void release(operand *o)
{
    if (o->k == PAGEABLE)
        free(o->where);
    else if (o->k == PINNED)
        cudaFreeHost(o->where);
    else if (o->where)
        cudaFree(o->where);
    o->where = NULL;
}

static void fill(operand *o, size_t elems, size_t reals, int nan_values)
{
    o->reals = reals;
    o->bytes = elems * reals * sizeof(double);
    o->host = malloc(o->bytes);
    for (size_t i = 0; i < elems * reals; i++)
        o->host[i] = nan_values ? NAN : uniform();
}

/* Moduli of an ld x cols array of elements, as doubles. */
static double *moduli(const operand *o, size_t elems)
{
    double *m = malloc(elems * sizeof *m);
    for (size_t i = 0; i < elems; i++)
        m[i] = o->reals == 1 ? fabs(o->host[i]) : hypot(o->host[2 * i], o->host[2 * i + 1]);
    return m;
}

/* The h2d= value of the last trace line of the shim's log, or -1. */
static long long last_h2d(const char *log, char *path, size_t path_len)
{
    FILE *f = log ? fopen(log, "r") : NULL;
    char line[1024], last[1024] = "";
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strstr(line, " h2d="))
            snprintf(last, sizeof last, "%s", line);
    fclose(f);
    const char *h = strstr(last, " h2d="), *p = strstr(last, " path=");
    if (p)
        snprintf(path, path_len, "%.*s", (int)strcspn(p + 6, " "), p + 6);
    return h ? atoll(h + 5) : -1;
}

typedef struct {
    int complex_prec;
    kind ka, kb, kc;
    int beta_zero;
} config;

/* Runs one shape; returns NULL or why it failed. */
static const char *run(const shape *s, const config *cf, char *why, size_t why_len)
{
    size_t reals = cf->complex_prec ? 2 : 1;
    int rows_a = s->ta == 'N' ? s->m : s->k, cols_a = s->ta == 'N' ? s->k : s->m;
    int rows_b = s->tb == 'N' ? s->k : s->n, cols_b = s->tb == 'N' ? s->n : s->k;
    int lda = rows_a + PAD, ldb = rows_b + PAD, ldc = s->m + PAD;
    size_t ea = (size_t)lda * cols_a, eb = (size_t)ldb * cols_b, ec = (size_t)ldc * s->n;
    operand a, b, c;
    fill(&a, ea, reals, 0);
    fill(&b, eb, reals, 0);
    fill(&c, ec, reals, cf->beta_zero);
    double alpha[2] = { 1.5, cf->complex_prec ? -0.5 : 0 }, beta[2] = { cf->beta_zero ? 0 : 0.5, 0 };
    const char *fail = NULL;

    if (place(&a, cf->ka) || place(&b, cf->kb) || place(&c, cf->kc)) {
        fail = "allocation";
        goto out;
    }
    gemm_f77 *tested = cf->complex_prec ? zgemm_ : dgemm_;
    tested(&s->ta, &s->tb, &s->m, &s->n, &s->k, alpha, a.where, &lda, b.where, &ldb, beta, c.where, &ldc, 1, 1);
    double *got = malloc(c.bytes);
    if (cudaDeviceSynchronize() || cudaMemcpy(got, c.where, c.bytes, cudaMemcpyDefault)) {
        free(got);
        fail = "reading C back";
        goto out;
    }

    /* Reference and an elementwise error bound from the moduli. */
    ts_prec p = cf->complex_prec ? TS_Z : TS_D;
    double *want = malloc(c.bytes);
    memcpy(want, c.host, c.bytes);
    ref_gemm(p)(&s->ta, &s->tb, &s->m, &s->n, &s->k, alpha, a.host, &lda, b.host, &ldb, beta, want, &ldc, 1, 1);
    double *ma = moduli(&a, ea), *mb = moduli(&b, eb), *bound = moduli(&c, ec);
    double aa = hypot(alpha[0], alpha[1]), bb = cf->beta_zero ? 0 : hypot(beta[0], beta[1]);
    if (cf->beta_zero)
        memset(bound, 0, ec * sizeof *bound);
    ref_gemm(TS_D)(&s->ta, &s->tb, &s->m, &s->n, &s->k, &aa, ma, &lda, mb, &ldb, &bb, bound, &ldc, 1, 1);
    double tol = 4.0 * (s->k + 2) * 0x1.0p-52 * (cf->complex_prec ? 2.0 : 1.0);
    for (int j = 0; j < s->n && !fail; j++)
        for (int i = 0; i < ldc && !fail; i++) {
            size_t e = (size_t)j * ldc + i;
            for (size_t r = 0; r < reals && !fail; r++) {
                double g = got[e * reals + r], w = want[e * reals + r];
                if (i >= s->m) {
                    /* Padding: bitwise as it was (NaN included). */
                    if (memcmp(&got[e * reals + r], &c.host[e * reals + r], sizeof g))
                        fail = "the padding of C changed";
                } else if (!(fabs(g - w) <= tol * bound[e] + 1e-300)) {
                    snprintf(why, why_len, "C(%d,%d) = %.17g, reference %.17g", i, j, g, w);
                    fail = why;
                }
            }
        }
    free(got);
    free(want);
    free(ma);
    free(mb);
    free(bound);
out:
    release(&a);
    release(&b);
    release(&c);
    free(a.host);
    free(b.host);
    free(c.host);
    return fail;
}

/* Bytes of the operand regions that live on the host and must go up. */
static long long expected_h2d(const shape *s, const config *cf)
{
    long long es = cf->complex_prec ? 16 : 8, bytes = 0;
    /* Managed C is copied (kept untouched until the call succeeded) unless
     * every operand is on the device, when the call runs in place. */
    if ((cf->ka == DEVICE || cf->ka == MANAGED) && (cf->kb == DEVICE || cf->kb == MANAGED) &&
        (cf->kc == DEVICE || cf->kc == MANAGED))
        return 0;
    if (cf->ka != DEVICE && cf->ka != MANAGED)
        bytes += (long long)s->m * s->k * es;
    if (cf->kb != DEVICE && cf->kb != MANAGED)
        bytes += (long long)s->k * s->n * es;
    if (!cf->beta_zero && cf->kc != DEVICE)
        bytes += (long long)s->m * s->n * es;
    return bytes;
}

static void run_all(const char *label, const config *cf, const char *log)
{
    int failed = 0, checked_h2d = 0;
    char first[512] = "", why[256], path[64] = "";
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const shape *s = &shapes[i];
        const char *f = run(s, cf, why, sizeof why);
        long long h2d = last_h2d(log, path, sizeof path), want = expected_h2d(s, cf);
        if (!f && h2d >= 0) {
            checked_h2d++;
            if (h2d != want) {
                snprintf(why, sizeof why, "h2d=%lld bytes, expected %lld", h2d, want);
                f = why;
            }
        }
        if (f && failed++ == 0)
            snprintf(first, sizeof first, " (first: %s: %s)", s->name, f);
    }
    tap_ok(!failed, "%s: %zu shapes correct, h2d checked on %d%s", label, sizeof shapes / sizeof shapes[0], checked_h2d,
           first);
}

int main(void)
{
    if (!gpu_present()) {
        printf("1..0 # SKIP no CUDA device\n");
        return 0;
    }
    char err[256];
    if (ref_blas_open(err, sizeof err)) {
        printf("1..0 # SKIP no reference OpenBLAS: %s\n", err);
        return 0;
    }
    const char *log = getenv("TSSHIM_LOG");
    static const config configs[] = {
        { 0, PAGEABLE, PAGEABLE, PAGEABLE, 0 }, { 0, PINNED, PINNED, PINNED, 0 },
        { 0, MANAGED, MANAGED, MANAGED, 0 },    { 0, DEVICE, DEVICE, DEVICE, 0 },
        { 0, DEVICE, PAGEABLE, PINNED, 0 },     { 0, PINNED, MANAGED, MANAGED, 0 },
        { 0, PAGEABLE, DEVICE, PAGEABLE, 0 },   { 0, PAGEABLE, PAGEABLE, PAGEABLE, 1 },
        { 0, PINNED, PAGEABLE, PINNED, 1 },     { 1, PAGEABLE, PAGEABLE, PAGEABLE, 0 },
        { 1, PAGEABLE, PINNED, PAGEABLE, 1 },   { 1, DEVICE, DEVICE, DEVICE, 0 },
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        const config *cf = &configs[i];
        char label[128];
        snprintf(label, sizeof label, "%s A %s, B %s, C %s%s", cf->complex_prec ? "zgemm_" : "dgemm_",
                 kind_names[cf->ka], kind_names[cf->kb], kind_names[cf->kc],
                 cf->beta_zero ? ", beta = 0 (C NaN, never uploaded)" : "");
        run_all(label, cf, log);
    }
    return tap_done();
}
