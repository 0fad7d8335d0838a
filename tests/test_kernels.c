/* GPU tests of every compiled tuned-kernel instance (TSM2, ISM2/TSMM,
 * TSMTTSM) against a CPU reference computed here in double (long double
 * sums for the double precisions): all transposes N/T/C, both mirrors,
 * widths with tails, leading dimensions above the minimum, and BLAS scalar
 * semantics (alpha = 0 must not read NaN-filled A and B; beta = 0 must not
 * read NaN-filled C).  C's rows beyond m (ldc > m) hold a sentinel that must
 * survive, and each run starts from freshly poisoned outputs.  Each
 * configuration runs twice and must give bitwise the same C.  Gram calls
 * (one array as both operands, as a skinny SYRK or HERK passes them) run
 * on every TSMTTSM instance.  Prints TAP. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "tap.h"
#include "tsk_gemm.h"
#include "tsk_pool.h"
#include "tsk_registry.h"

#define POOL_BYTES ((size_t)32 << 20)

static const int widths[] = { 1, 2, 3, 7, 8, 16, 17, 33, 63, 64 };
static const char transes[3] = { 'N', 'T', 'C' };

static void *dev_a, *dev_b, *dev_c;

/* Element access in the call's precision, as (re, im) doubles. */
static void get(ts_prec p, const void *buf, int64_t i, double *re, double *im)
{
    switch (p) {
    case TS_S: *re = ((const float *)buf)[i]; *im = 0; break;
    case TS_D: *re = ((const double *)buf)[i]; *im = 0; break;
    case TS_C: *re = ((const float *)buf)[2 * i]; *im = ((const float *)buf)[2 * i + 1]; break;
    default: *re = ((const double *)buf)[2 * i]; *im = ((const double *)buf)[2 * i + 1]; break;
    }
}

static void set(ts_prec p, void *buf, int64_t i, double re, double im)
{
    switch (p) {
    case TS_S: ((float *)buf)[i] = (float)re; break;
    case TS_D: ((double *)buf)[i] = re; break;
    case TS_C: ((float *)buf)[2 * i] = (float)re; ((float *)buf)[2 * i + 1] = (float)im; break;
    default: ((double *)buf)[2 * i] = re; ((double *)buf)[2 * i + 1] = im; break;
    }
}

static double urand(void) { return (double)rand() / RAND_MAX - 0.5; }

static void fill(ts_prec p, void *buf, int64_t n, int nan)
{
    for (int64_t i = 0; i < n; i++)
        set(p, buf, i, nan ? NAN : urand(), nan ? NAN : urand());
}

/* op(X)(r, c) of a stored matrix with leading dimension ld. */
static void op_get(ts_prec p, const void *x, int64_t ld, char t, int64_t r, int64_t c, double *re, double *im)
{
    get(p, x, t == 'N' ? r + c * ld : c + r * ld, re, im);
    if (t == 'C')
        *im = -*im;
}

typedef struct {
    int alpha_zero, beta_zero;
    double alpha[2], beta[2];
} scalars;

static const scalars cases[4] = {
    { 0, 0, { 0.75, -0.25 }, { 1.5, 0.5 } }, /* general */
    { 0, 1, { 1.0, 0.0 }, { 0.0, 0.0 } },    /* beta = 0: C poisoned with NaN */
    { 1, 0, { 0.0, 0.0 }, { -2.0, 1.0 } },   /* alpha = 0: A and B hold NaN */
    { 1, 1, { 0.0, 0.0 }, { 0.0, 0.0 } },    /* both: C becomes 0 */
};

static double eps_of(ts_prec p) { return p == TS_S || p == TS_C ? 0x1p-24 : 0x1p-53; }

/* Where op(B) lives: in an array of its own, or in A's (the same pointer)
 * with A's leading dimension or with a larger one. */
typedef enum { B_OWN, B_IN_A, B_IN_A_OTHER_LD } b_place;

/* One configuration, launched with `params` (NULL: the instance's
 * defaults), op(B) placed as `bp` says: 1 when C is right (twice, bitwise
 * equal), 0 when not (why says how), -1 when the instance declined and
 * `may_decline`. */
static int check(const tsk_instance *inst, const tsk_params *params, ts_class cls, ts_prec p, char ta, char tb,
                 int64_t m, int64_t n, int64_t k, int mirror, int width, int round, int may_decline,
                 const scalars *sc, b_place bp, char *why, size_t whylen)
{
    size_t e = ts_elem_size(p);
    ts_call call;
    ts_call_shape(&call, p, ta, tb, m, n, k);
    /* Leading dimensions above the minimum: multiples of 4 when `round`
     * (16-byte vectors stay aligned), odd otherwise (no vector longer than
     * one element stays aligned). */
    call.lda = (ts_rows_a(&call) + 4) / 4 * 4 + (round ? 0 : 1);
    call.ldb = (ts_rows_b(&call) + 4) / 4 * 4 + (round ? 0 : 3);
    if (bp != B_OWN) {
        /* One array: a leading dimension that fits both operands. */
        call.lda = call.lda > call.ldb ? call.lda : call.ldb;
        call.ldb = call.lda + (bp == B_IN_A_OTHER_LD ? 4 : 0);
    }
    /* ldc's parity varies with the shape: an even one keeps pairs of
     * doubles 16-byte aligned, which the DMMA kernels then store at once. */
    call.ldc = m + 2 + (m + k) % 2;
    call.cls = cls;
    call.mirror = mirror;
    call.width = width;
    call.alpha_zero = sc->alpha_zero;
    call.beta_zero = sc->beta_zero;
    call.beta_one = 0;
    unsigned char alpha[16], beta[16];
    set(p, alpha, 0, sc->alpha[0], sc->alpha[1]);
    set(p, beta, 0, sc->beta[0], sc->beta[1]);
    call.alpha = alpha;
    call.beta = beta;

    int64_t na = call.lda * ts_cols_a(&call), nb = call.ldb * ts_cols_b(&call), nc = call.ldc * n;
    if (bp != B_OWN)
        na = nb = na > nb ? na : nb;
    if ((size_t)(na > nb ? (na > nc ? na : nc) : (nb > nc ? nb : nc)) * e > POOL_BYTES) {
        snprintf(why, whylen, "shape too large for the pool");
        return 0;
    }
    void *a = malloc(na * e), *b = bp == B_OWN ? malloc(nb * e) : a;
    void *c0 = malloc(nc * e), *c1 = malloc(nc * e), *c2 = malloc(nc * e);
    fill(p, a, na, sc->alpha_zero);
    if (bp == B_OWN)
        fill(p, b, nb, sc->alpha_zero);
    fill(p, c0, nc, sc->beta_zero);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = m; i < call.ldc; i++)
            set(p, c0, i + j * call.ldc, 7.0, 7.0); /* sentinel between columns */
    cudaMemcpy(dev_a, a, na * e, cudaMemcpyHostToDevice);
    if (bp == B_OWN)
        cudaMemcpy(dev_b, b, nb * e, cudaMemcpyHostToDevice);
    tsk_operands ops = { dev_a, call.lda, bp == B_OWN ? dev_b : dev_a, call.ldb, dev_c, call.ldc };

    int ok = 1;
    void *runs[2] = { c1, c2 };
    for (int r = 0; r < 2 && ok; r++) {
        cudaMemcpy(dev_c, c0, nc * e, cudaMemcpyHostToDevice);
        tsk_status st = inst->launch(&call, &ops, 0, params);
        cudaError_t ce = cudaDeviceSynchronize();
        if (st == TSK_DECLINED && ce == cudaSuccess && may_decline) {
            ok = -1;
            break;
        }
        if (st != TSK_RAN || ce != cudaSuccess) {
            snprintf(why, whylen, "launch status %d, %s", (int)st, cudaGetErrorString(ce));
            ok = 0;
        }
        cudaMemcpy(runs[r], dev_c, nc * e, cudaMemcpyDeviceToHost);
    }
    if (ok == 1 && memcmp(c1, c2, nc * e) != 0) {
        snprintf(why, whylen, "two runs differ bitwise");
        ok = 0;
    }
    for (int64_t j = 0; j < n && ok == 1; j++)
        for (int64_t i = 0; i < call.ldc && ok == 1; i++) {
            double gr, gi, er, ei, bound = 0;
            get(p, c1, i + j * call.ldc, &gr, &gi);
            if (i >= m) {
                if (gr != 7.0) {
                    snprintf(why, whylen, "wrote C(%lld,%lld) beyond m", (long long)i, (long long)j);
                    ok = 0;
                }
                continue;
            }
            long double sr = 0, si = 0;
            if (!sc->alpha_zero)
                for (int64_t l = 0; l < k; l++) {
                    double xr, xi, yr, yi;
                    op_get(p, a, call.lda, ta, i, l, &xr, &xi);
                    op_get(p, b, call.ldb, tb, l, j, &yr, &yi);
                    sr += (long double)xr * yr - (long double)xi * yi;
                    si += (long double)xr * yi + (long double)xi * yr;
                    bound += (fabs(xr) + fabs(xi)) * (fabs(yr) + fabs(yi));
                }
            er = (double)(sc->alpha[0] * sr - sc->alpha[1] * si);
            ei = (double)(sc->alpha[0] * si + sc->alpha[1] * sr);
            bound *= fabs(sc->alpha[0]) + fabs(sc->alpha[1]);
            if (!sc->beta_zero) {
                double cr, ci;
                get(p, c0, i + j * call.ldc, &cr, &ci);
                er += sc->beta[0] * cr - sc->beta[1] * ci;
                ei += sc->beta[0] * ci + sc->beta[1] * cr;
                bound += (fabs(cr) + fabs(ci)) * (fabs(sc->beta[0]) + fabs(sc->beta[1]));
            }
            if (!ts_prec_is_complex(p))
                ei = gi = 0;
            double tol = 4.0 * (double)(k + 4) * eps_of(p) * bound + 1e-300;
            if (!(fabs(gr - er) <= tol && fabs(gi - ei) <= tol)) {
                snprintf(why, whylen, "C(%lld,%lld) = (%g,%g), expected (%g,%g), tol %g", (long long)i, (long long)j,
                         gr, gi, er, ei, tol);
                ok = 0;
            }
        }
    free(a);
    if (bp == B_OWN)
        free(b);
    free(c0);
    free(c1);
    free(c2);
    return ok;
}

/* The shape of a class at `width`: the skinny extents are width and a
 * smaller one, in the order `swap` says; long extents are not multiples of
 * any block or tile. */
static void shape(ts_class cls, int mirror, int width, int swap, int64_t *m, int64_t *n, int64_t *k)
{
    int64_t s = width / 2 + 1 < width ? width / 2 + 1 : width;
    int64_t s1 = swap ? s : width, s2 = swap ? width : s;
    if (cls == TS_CLASS_TSM2) {
        *k = 389;
        *m = mirror ? width : 301;
        *n = mirror ? 301 : width;
    } else if (cls == TS_CLASS_ISM2) {
        *k = s1;
        *m = mirror ? s2 : 1037;
        *n = mirror ? 1037 : s2;
    } else {
        *m = s1;
        *n = s2;
        *k = 3001;
    }
}

static void test_instance(const tsk_instance *inst, int *counter)
{
    int nmirror = inst->cls == TS_CLASS_TSMTTSM ? 1 : 2;
    /* Every configuration runs with leading dimensions that are multiples
     * of 4 and with odd ones.  Most kernels copy vectors where the strides
     * allow and single elements elsewhere; the register-tile TSM2 kernels
     * copy P in 16-byte vectors only and decline the odd ones (cuBLAS then
     * runs), which TSM2 instances may do there and nowhere else. */
    for (int mirror = 0; mirror < nmirror; mirror++) {
        char why[256] = "";
        int ok = 1, runs = 0, declined = 0;
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0] && ok; wi++) {
            int w = widths[wi];
            if (w < inst->min_width || w > inst->max_width)
                continue;
            for (int x = 0; x < 18 && ok; x++) {
                char ta = transes[x % 9 / 3], tb = transes[x % 3];
                int round = x >= 9;
                if ((inst->transa != TSK_ANY_TRANS && inst->transa != ta) ||
                    (inst->transb != TSK_ANY_TRANS && inst->transb != tb))
                    continue;
                int64_t m, n, k;
                const scalars *sc = &cases[(*counter)++ % 4];
                shape(inst->cls, mirror, w, x % 2, &m, &n, &k);
                ok = check(inst, NULL, inst->cls, inst->prec, ta, tb, m, n, k, mirror, w, round,
                           !round && inst->cls == TS_CLASS_TSM2, sc, B_OWN, why, sizeof why);
                declined += ok < 0;
                ok = ok != 0;
                runs++;
                if (!ok)
                    tap_diag("%s %c%c m=%lld n=%lld k=%lld ld%s alpha_zero=%d beta_zero=%d: %s", inst->name, ta,
                             tb, (long long)m, (long long)n, (long long)k, round ? " rounded" : "",
                             sc->alpha_zero, sc->beta_zero, why);
            }
        }
        /* A long k splits the TSM2 rows-unit grid over k in every precision
         * (tsk_split_k): partial sums added by tsk_sum_partials. */
        if (ok && inst->cls == TS_CLASS_TSM2) {
            int64_t m = mirror ? inst->min_width : 301, n = mirror ? 301 : inst->min_width, k = 2053;
            char ta = mirror ? 'T' : 'N', tb = mirror ? 'T' : 'N';
            const scalars *sc = &cases[(*counter)++ % 4];
            ok = check(inst, NULL, inst->cls, inst->prec, ta, tb, m, n, k, mirror, inst->min_width, 1, 0, sc, B_OWN,
                       why, sizeof why);
            runs++;
            if (!ok)
                tap_diag("%s %c%c m=%lld n=%lld k=%lld (k split): %s", inst->name, ta, tb, (long long)m,
                         (long long)n, (long long)k, why);
        }
        if (runs == 0)
            tap_skip("%s mirror=%d: no test width in [%d, %d]", inst->name, mirror, inst->min_width,
                     inst->max_width);
        else
            tap_ok(ok, "%s mirror=%d (%d configurations, %d declined)", inst->name, mirror, runs, declined);
    }
}

/* Whether `name` starts with one of the comma-separated prefixes in `list`. */
static int selected(const char *name, const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n > 0 && strncmp(name, p, n) == 0)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

/* One Gram-test configuration: m (n is the width), k, where op(B) lives,
 * rounded leading dimensions, the scalars, the parameters. */
typedef struct {
    int64_t m, k;
    b_place bp;
    int round;
    const scalars *sc;
    const tsk_params *params;
} gram_case;

/* Gram calls, C = op(A) op(A)^T or ^H with one array as both operands (a
 * skinny SYRK or HERK's Gram GEMM, cuda/level3_cublas.c), on every TSMTTSM
 * instance that serves them (the kernels stage the array once:
 * tsk_aliased): k = 1 and odd, leading dimensions both ways, beta = 0 over
 * NaN and beta != 0; at widths 3, 5, 12 and 17 (one in each width cell
 * from 4 to 32) a k long enough, with one block per SM, that a block takes
 * more chunks than its ring has slots.
 * Then calls that share the pointer but are no Gram call, which must not
 * be taken for one: op(B) with another leading dimension, m != n, or the
 * two lying differently along k ('T','T' and 'N','N'). */
static void test_gram(const char *only)
{
    static const int ns[] = { 1, 3, 5, 8, 12, 16, 17, 24, 32, 64 };
    /* The Gram layouts, then two that share no layout along k. */
    static const char pairs[6][2] = {
        { 'T', 'N' }, { 'N', 'T' }, { 'C', 'N' }, { 'N', 'C' }, { 'T', 'T' }, { 'N', 'N' },
    };
    static const tsk_params one_block = { 0, 1, 0 };
    for (int p = 0; p < TS_NPREC; p++) {
        size_t runs = 0, bad = 0;
        for (size_t i = 0; i < tsk_instance_count(); i++) {
            const tsk_instance *inst = tsk_instance_at(i);
            if (inst->cls != TS_CLASS_TSMTTSM || inst->prec != (ts_prec)p ||
                (only != NULL && !selected(inst->name, only)))
                continue;
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
                for (int t = 0; t < 6; t++) {
                    const int64_t n = ns[ni];
                    const char ta = pairs[t][0], tb = pairs[t][1];
                    if (n < inst->min_width || n > inst->max_width ||
                        (!ts_prec_is_complex((ts_prec)p) && (ta == 'C' || tb == 'C')) ||
                        (inst->transa != TSK_ANY_TRANS && inst->transa != ta) ||
                        (inst->transb != TSK_ANY_TRANS && inst->transb != tb))
                        continue;
                    /* About 2048 chunks of the instance's width cell, at
                     * widths 3, 5, 12 and 17 (0, no case, at the others). */
                    const int64_t long_k =
                        n == 3 || n == 5 || n == 12 || n == 17
                            ? ((int64_t)1 << 24) / (tsk_width_cell(n) * (int64_t)ts_elem_size((ts_prec)p)) + 2
                            : 0;
                    const gram_case gram[] = {
                        { n, 1, B_IN_A, 1, &cases[0], NULL },
                        { n, 3001, B_IN_A, 0, &cases[1], NULL },
                        { n, 3001, B_IN_A, 1, &cases[0], NULL },
                        { n, long_k, B_IN_A, 1, &cases[1], &one_block },
                        { n, 777, B_IN_A_OTHER_LD, 1, &cases[0], NULL },
                        { n - 1, 777, B_IN_A, 1, &cases[1], NULL },
                    };
                    const gram_case other = { n, 777, B_IN_A, 1, &cases[t % 2], NULL };
                    const int is_gram = t < 4;
                    for (int x = 0; x < (is_gram ? 6 : 1); x++) {
                        const gram_case *g = is_gram ? &gram[x] : &other;
                        if (g->m < 1 || g->k < 1)
                            continue;
                        char why[256] = "";
                        int ok = check(inst, g->params, TS_CLASS_TSMTTSM, (ts_prec)p, ta, tb, g->m, n, g->k, 0, (int)n,
                                       g->round, 0, g->sc, g->bp, why, sizeof why);
                        runs++;
                        if (ok != 1 && bad++ < 10)
                            tap_diag("%s %c%c m=%lld n=%lld k=%lld %s%s beta_zero=%d: %s", inst->name, ta, tb,
                                     (long long)g->m, (long long)n, (long long)g->k,
                                     g->bp == B_IN_A ? "B in A" : "B in A, another ld", g->round ? ", ld rounded" : "",
                                     g->sc->beta_zero, why);
                    }
                }
        }
        tap_ok(bad == 0, "Gram calls (one array as A and B) on the %c TSMTTSM instances (%zu configurations)",
               "SDCZ"[p], runs);
    }
}

/* The kernels' partial-sum workspaces stay in the device's pool across a
 * synchronisation (kernels/tsk_pool.h).  Taken from the device's default
 * pool, which gives its memory back at every synchronisation, each call
 * mapped its workspace again: 60-90 us a call (docs/performance.md).  The
 * Gram tests' calls in double, just run, summed partials there. */
static void test_workspace_pool(const char *only)
{
    if (only != NULL && !selected("tsmttsm_dmma_d", only)) {
        tap_skip("kernel workspaces kept after a synchronisation: TSK_TEST_ONLY leaves out tsmttsm_dmma_d");
        return;
    }
    cudaMemPool_t pool = tsk_device_pool(0);
    uint64_t reserved = 0;
    int ok = pool != NULL && cudaDeviceSynchronize() == cudaSuccess &&
             cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess && reserved > 0;
    tap_ok(ok, "kernel workspaces stay in device 0's pool after a synchronisation (%llu bytes reserved)",
           (unsigned long long)reserved);
}

/* Runs inst at its widest with `params` (a declined launch counts in
 * *declined): 0, with a diagnostic naming `what`, when C came out wrong or
 * the launch failed. */
static int run_widest(const tsk_instance *inst, const tsk_params *params, int *counter, size_t *declined,
                      const char *what)
{
    const int w = inst->max_width;
    const char ta = inst->transa == TSK_ANY_TRANS ? 'N' : inst->transa;
    const char tb = inst->transb == TSK_ANY_TRANS ? 'N' : inst->transb;
    int64_t m, n, k;
    shape(inst->cls, 0, w, 0, &m, &n, &k);
    char why[256] = "";
    int ok = check(inst, params, inst->cls, inst->prec, ta, tb, m, n, k, 0, w, 1, 1, &cases[(*counter)++ % 4], B_OWN,
                   why, sizeof why);
    *declined += ok < 0;
    if (ok == 0)
        tap_diag("%s %s: %s", inst->name, what, why);
    return ok != 0;
}

/* Every instance at its widest, block sizes 256, 128 and 256 in turn (an
 * instance may decline one it does not have): a launch must not undo what
 * a launch with another block size set up.  The shared-memory opt-in once
 * followed each block size's need, and the second 256 then failed. */
static void test_block_sizes(int *counter, const char *only)
{
    static const tsk_params sizes[3] = { { 256, 0, 0 }, { 128, 0, 0 }, { 256, 0, 0 } };
    size_t bad = 0, declined = 0;
    for (size_t i = 0; i < tsk_instance_count(); i++) {
        const tsk_instance *inst = tsk_instance_at(i);
        if (only != NULL && !selected(inst->name, only))
            continue;
        for (int z = 0; z < 3; z++) {
            char what[40];
            snprintf(what, sizeof what, "at %d threads (turn %d)", sizes[z].threads, z);
            bad += !run_widest(inst, &sizes[z], counter, &declined, what);
        }
    }
    tap_ok(bad == 0, "every instance with block sizes 256, 128, 256 in turn (%zu launches declined)", declined);
}

/* Every instance at its widest on each device after the first: what a
 * launch caches for one device (the shared-memory opt-in, attributes,
 * occupancy) must not stand for another, since device operands run where
 * they live.  The opt-in was once cached per kernel alone, and kernels
 * above 48 KB of shared memory then failed on a second device. */
static void test_devices(int *counter, const char *only, int ndev)
{
    if (ndev < 2) {
        tap_skip("every instance on each device: fewer than 2 CUDA devices");
        return;
    }
    void *home[3] = { dev_a, dev_b, dev_c };
    size_t bad = 0, declined = 0;
    for (int d = 1; d < ndev; d++) {
        char what[32];
        snprintf(what, sizeof what, "on device %d", d);
        dev_a = dev_b = dev_c = NULL;
        if (cudaSetDevice(d) != cudaSuccess || cudaMalloc(&dev_a, POOL_BYTES) != cudaSuccess ||
            cudaMalloc(&dev_b, POOL_BYTES) != cudaSuccess || cudaMalloc(&dev_c, POOL_BYTES) != cudaSuccess) {
            tap_diag("device %d: no pool", d);
            bad++;
        } else {
            for (size_t i = 0; i < tsk_instance_count(); i++) {
                const tsk_instance *inst = tsk_instance_at(i);
                if (only == NULL || selected(inst->name, only))
                    bad += !run_widest(inst, NULL, counter, &declined, what);
            }
        }
        cudaFree(dev_a);
        cudaFree(dev_b);
        cudaFree(dev_c);
    }
    cudaSetDevice(0);
    dev_a = home[0];
    dev_b = home[1];
    dev_c = home[2];
    tap_ok(bad == 0, "every instance on devices 1 to %d after device 0 (%zu launches declined)", ndev - 1, declined);
}

/* Every row of each tuning table names a compiled instance that serves its
 * cell and, unless `run` is 0, runs a call of the cell right with the row's
 * parameters (a stale table, or parameters the instance declines, would
 * silently send cells to cuBLAS). */
static void test_tuning_table(int *counter, int run)
{
    size_t bad = 0, used = 0;
    for (size_t i = 0; i < tsk_tuning_sm90_nrows; i++) {
        const tsk_tuning_row *r = &tsk_tuning_sm90[i];
        if (r->instance == NULL)
            continue;
        const tsk_instance *inst = tsk_instance_find(r->instance);
        used++;
        if (inst == NULL || inst->cls != r->cls || inst->prec != r->prec || r->width < inst->min_width ||
            r->width > inst->max_width) {
            tap_diag("sm_90 row %zu names %s, which does not serve its cell", i, r->instance);
            bad++;
            continue;
        }
        char why[256] = "";
        int64_t m, n, k;
        shape(r->cls, 0, r->width, 0, &m, &n, &k);
        if (run && check(inst, &r->params, r->cls, r->prec, r->transa, r->transb, m, n, k, 0, r->width, 1, 0,
                  &cases[(*counter)++ % 4], B_OWN, why, sizeof why) != 1) {
            tap_diag("sm_90 row %zu, %s %c%c w%d with its parameters: %s", i, r->instance, r->transa, r->transb,
                     r->width, why);
            bad++;
        }
    }
    tap_ok(bad == 0, "tuning table sm_90: %zu kernel rows name instances that %s", used,
           run ? "run their cells right" : "serve their cells (not run: TSK_TEST_PARAMS=0)");
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        tap_skip("no CUDA device");
        return tap_done();
    }
    if (cudaMalloc(&dev_a, POOL_BYTES) != cudaSuccess || cudaMalloc(&dev_b, POOL_BYTES) != cudaSuccess ||
        cudaMalloc(&dev_c, POOL_BYTES) != cudaSuccess) {
        tap_ok(0, "allocate the device pool");
        return tap_done();
    }
    int counter = 0;
    srand(12345);
    const char *only = getenv("TSK_TEST_ONLY"); /* name prefixes, comma-separated: a subset */
    for (size_t i = 0; i < tsk_instance_count(); i++) {
        const tsk_instance *inst = tsk_instance_at(i);
        if (only == NULL || selected(inst->name, only))
            test_instance(inst, &counter);
    }
    test_gram(only);
    test_workspace_pool(only);
    /* TSK_TEST_PARAMS=0 (compute-sanitizer runs): no reruns with tuning
     * parameters; their kernels are the instance tests' kernels. */
    const char *params = getenv("TSK_TEST_PARAMS");
    const int rerun = params == NULL || strcmp(params, "0") != 0;
    if (rerun) {
        test_block_sizes(&counter, only);
        test_devices(&counter, only, ndev);
    }
    test_tuning_table(&counter, rerun);
    return tap_done();
}
