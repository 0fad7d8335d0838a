/* The core's side of SYRK, HERK and TRSM on the GPU (src/level3_gpu.c),
 * with a backend whose ops compute on the CPU: a SYRK or HERK with C on the
 * host takes the Gram route (its Gram matrix from one gemm op call if
 * skinny, A as both operands, else from the level3 op; alpha = 1 and beta =
 * 0 into a scratch; then the triangle update on the host) and must match
 * the reference (tests/ref_level3.c) for every precision, uplo and trans,
 * general scalars and beta = 0 with C NaN; a TRSM reaches the level3 op as
 * it is; a failing gemm op leaves C untouched. */
#include <math.h>
#include <string.h>

#include "configuration.h"
#include "classify.h"
#include "gemm_entry.h"
#include "level3_gpu.h"
#include "ref_level3.h"
#include "tap.h"
#include "validate.h"

/* What the fake gemm op saw. */
static int gemm_calls, level3_calls, gemm_fails;
static ts_call seen;

/* C = alpha op(A) op(B) + beta C, naively in long double. */
static ref_cx op_elem(const ts_call *c, const void *x, int64_t ld, char t, int64_t i, int64_t j)
{
    ref_cx v = ref_get(c->prec, x, t == 'N' ? i + j * ld : j + i * ld);
    if (t == 'C')
        v.im = -v.im;
    return v;
}

/* C = alpha op(A) op(B) + beta C over all of C. */
static int compute(ts_call *c, char *why, size_t why_len)
{
    seen = *c;
    if (gemm_fails) {
        snprintf(why, why_len, "fake failure");
        return -1;
    }
    ref_cx alpha = ref_get(c->prec, c->alpha, 0), beta = ref_get(c->prec, c->beta, 0);
    for (int64_t j = 0; j < c->n; j++)
        for (int64_t i = 0; i < c->m; i++) {
            ref_cx s = { 0, 0 };
            for (int64_t l = 0; l < c->k; l++) {
                ref_cx x = op_elem(c, c->a, c->lda, c->transa, i, l), y = op_elem(c, c->b, c->ldb, c->transb, l, j);
                s.re += x.re * y.re - x.im * y.im;
                s.im += x.re * y.im + x.im * y.re;
            }
            ref_cx r = { alpha.re * s.re - alpha.im * s.im, alpha.re * s.im + alpha.im * s.re };
            if (!c->beta_zero) {
                ref_cx old = ref_get(c->prec, c->c, i + j * c->ldc);
                r.re += beta.re * old.re - beta.im * old.im;
                r.im += beta.re * old.im + beta.im * old.re;
            }
            ref_put(c->prec, c->c, i + j * c->ldc, r);
        }
    return 0;
}

static int fake_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    (void)cfg;
    gemm_calls++;
    return compute(c, why, why_len);
}

/* The Gram matrix of a SYRK or HERK descriptor is its GEMM's; TRSM is not
 * computed here. */
static int fake_level3(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    (void)cfg;
    level3_calls++;
    if (ts_routine_args(c->routine) != TS_ARGS_TRSM)
        return compute(c, why, why_len);
    snprintf(why, why_len, "not in this test");
    return -1;
}

static const ts_gpu_ops fake = { .abi = TS_GPU_ABI, .gemm = fake_gemm, .level3 = fake_level3 };

enum { N = 5, K = 300, LDA = 303, LDC = 7, LONG = 256, SKINNY = 64 };
static double a[2 * LDA * LDA], c[2 * LDC * N], c0[2 * LDC * N];

/* A SYRK or HERK descriptor as src/level3_entry.c fills it (HERK's scalars
 * given as complex values with imaginary part 0). */
static void describe(ts_call *call, ts_routine r, char uplo, char trans, const void *alpha, const void *beta,
                     int n, int k)
{
    static int nn, kk, lda = LDA, ldc = LDC;
    nn = n, kk = k;
    ts_call_from_fortran(call, r, &trans, &trans, &nn, &nn, &kk, alpha, a, &lda, a, &lda, beta, c, &ldc, 1, 1);
    call->uplo = uplo;
}

static int prepared(ts_call *call)
{
    if (ts_validate(call))
        return 0;
    ts_scalar_flags(call);
    ts_classify(call, LONG, SKINNY);
    return 1;
}

int main(void)
{
    ts_config cfg = *ts_config_get();
    cfg.cache = 0;
    static const ts_routine syrk[TS_NPREC] = { TS_R_ssyrk_, TS_R_dsyrk_, TS_R_csyrk_, TS_R_zsyrk_ };
    for (int p = 0; p < TS_NPREC; p++)
        for (int herk = 0; herk <= ts_prec_is_complex((ts_prec)p); herk++)
            for (const char *u = "UL"; *u; u++)
                for (const char *t = herk ? "NC" : "NT"; *t; t++)
                    for (int beta0 = 0; beta0 < 2; beta0++)
                        for (int skinny = 0; skinny < 2; skinny++) {
                        ts_prec prec = (ts_prec)p;
                        ts_routine r = herk ? (p == TS_C ? TS_R_cherk_ : TS_R_zherk_) : syrk[p];
                        int im = ts_prec_is_complex(prec) && !herk; /* scalars with an imaginary part */
                        int k = skinny ? K : 5; /* TSMTTSM: the gemm op; else the level3 op */
                        ref_case rc = { prec, herk ? REF_HERK : REF_SYRK, *u, *t, 0, 0, N, N, k, LDA, LDC,
                                        { 0.7, im ? -0.45 : 0 }, { beta0 ? 0 : -1.3, beta0 || !im ? 0 : 0.55 } };
                        /* The scalars in the call's precision. */
                        union { float s[2]; double d[2]; } alpha, beta;
                        for (int i = 0; i < 2; i++) {
                            if (prec == TS_D || prec == TS_Z)
                                alpha.d[i] = rc.alpha[i], beta.d[i] = rc.beta[i];
                            else
                                alpha.s[i] = (float)rc.alpha[i], beta.s[i] = (float)rc.beta[i];
                        }
                        for (int64_t e = 0; e < LDA * LDA; e++)
                            ref_put(prec, a, e, (ref_cx){ sin(0.37 * e), cos(0.11 * e) });
                        for (int64_t e = 0; e < LDC * N; e++)
                            ref_put(prec, c, e, beta0 ? (ref_cx){ NAN, NAN } : (ref_cx){ cos(0.5 * e), sin(0.3 * e) });
                        memcpy(c0, c, sizeof c);
                        ts_call call;
                        describe(&call, r, *u, *t, &alpha, &beta, N, k);
                        char why[128] = "";
                        gemm_calls = level3_calls = 0;
                        int ok = prepared(&call) && (call.cls == TS_CLASS_TSMTTSM) == skinny &&
                                 ts_level3_gpu(&fake, &call, &cfg, why, sizeof why) == 0 && gemm_calls == skinny &&
                                 level3_calls == !skinny;
                        /* The Gram matrix asked of the backend. */
                        ok = ok && seen.routine == (skinny ? ts_gemm_routine(prec) : r) && seen.a == a && seen.b == a &&
                             seen.c != c && seen.ldc == N && seen.beta_zero && !seen.alpha_zero &&
                             ref_get(prec, seen.alpha, 0).re == 1 && seen.transa == (*t == 'N' ? 'N' : *t) &&
                             seen.transb == (*t == 'N' ? (herk ? 'C' : 'T') : 'N');
                        static ref_cx want[LDC * N];
                        static long double bound[LDC * N];
                        ref_level3(&rc, a, c0, want, bound);
                        for (int64_t e = 0; ok && e < LDC * N; e++) {
                            ref_cx got = ref_get(prec, c, e);
                            if (bound[e] == 0)
                                ok = !memcmp(&((char *)c)[e * ts_elem_size(prec)], &((char *)c0)[e * ts_elem_size(prec)],
                                             ts_elem_size(prec));
                            else
                                ok = hypotl(got.re - want[e].re, got.im - want[e].im) <= bound[e];
                            if (!ok)
                                tap_diag("element %lld: got (%Lg, %Lg), want (%Lg, %Lg)", (long long)e, got.re, got.im,
                                         want[e].re, want[e].im);
                        }
                        tap_ok(ok, "%s uplo=%c trans=%c k=%d%s: the Gram matrix from the %s op, triangle updated as the "
                               "reference%s%s", ts_routine_symbol(r), *u, *t, k, beta0 ? " beta=0, C NaN" : "",
                               skinny ? "gemm" : "level3", why[0] ? ": " : "", why);
                    }

    /* A TRSM: the level3 op as it is. */
    double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
    ts_call call;
    char why[128] = "";
    int rc;
    static int m = 4096, n = 8, tri = 8, lda = LDA, ldb = 4096;
    static double b[4096 * 8];
    ts_call_from_fortran(&call, TS_R_dtrsm_, "N", "N", &m, &n, &tri, one, a, &lda, b, &ldb, zero, b, &ldb, 1, 1);
    call.side = 'R', call.uplo = 'U', call.diag = 'N';
    level3_calls = gemm_calls = 0;
    rc = prepared(&call) ? ts_level3_gpu(&fake, &call, &cfg, why, sizeof why) : 0;
    tap_ok(rc != 0 && level3_calls == 1 && gemm_calls == 0, "a tall dtrsm_ goes to the level3 op");

    /* A failing gemm op leaves C as it was. */
    for (int64_t e = 0; e < LDC * N; e++)
        ref_put(TS_D, c, e, (ref_cx){ 0.5 * e, 0 });
    memcpy(c0, c, sizeof c);
    describe(&call, TS_R_dsyrk_, 'L', 'T', one, one, N, K);
    gemm_fails = 1;
    rc = prepared(&call) ? ts_level3_gpu(&fake, &call, &cfg, why, sizeof why) : 0;
    tap_ok(rc != 0 && !memcmp(c, c0, sizeof c) && !strcmp(why, "fake failure"),
           "a failed Gram GEMM returns its reason and leaves C untouched");
    return tap_done();
}
