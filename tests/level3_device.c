/* SYRK, HERK and TRSM on operands in device, managed and pinned memory
 * through the shim, in the mode the script sets (cpu mode included: a CPU
 * BLAS would crash on device memory, so such calls must run on the GPU in
 * every mode).  Each result, copied back, is judged against the reference
 * (tests/ref_level3.c).  Shapes reach each GPU path: the Gram route (skinny
 * SYRK and HERK, k long), cuBLAS (regular SYRK, TRSM with a large
 * triangle), the small-triangle TRSM kernel (tall B, both sides, orders
 * from 1 to 64, alpha = 1), and alpha = 0.  Then DSYRK Gram calls at
 * widths of the Gram kernel (5-32, kernels/gram_dmma.cu) in both
 * forms.  Prints "1..0 # SKIP" without a CUDA device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "gpu_present.h"
#include "level3_api.h"
#include "ref_level3.h"
#include "tap.h"

static syrk_f *const syrk[TS_NPREC] = { ssyrk_, dsyrk_, csyrk_, zsyrk_ };
static syrk_f *const herk[TS_NPREC] = { NULL, NULL, cherk_, zherk_ };
static trsm_f *const trsm[TS_NPREC] = { strsm_, dtrsm_, ctrsm_, ztrsm_ };

typedef enum { PINNED, MANAGED, DEVICE } kind;
static const char *const kind_names[] = { "pinned", "managed", "device" };

static void *place(kind k, const void *host, size_t bytes)
{
    void *p = NULL;
    cudaError_t err = k == PINNED ? cudaMallocHost(&p, bytes)
                      : k == MANAGED ? cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)
                                     : cudaMalloc(&p, bytes);
    if (err || cudaMemcpy(p, host, bytes, cudaMemcpyDefault))
        return NULL;
    return p;
}

static void release(kind k, void *p)
{
    if (k == PINNED)
        cudaFreeHost(p);
    else
        cudaFree(p);
}

static uint64_t rng = 88172645463325252ull;
static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-52 - 1.0;
}

/* Runs one case with A and C (TRSM's B) in the given memory; NULL or why it failed. */
static const char *run(const ref_case *rc, kind ka, kind kc, char *why, size_t len)
{
    const size_t es = ts_elem_size(rc->prec);
    int t = ref_trsm_order(rc);
    int cols_a = rc->op == REF_TRSM ? t : rc->trans == 'N' ? rc->k : rc->n;
    size_t na = (size_t)rc->lda * cols_a, nc = (size_t)rc->ldc * rc->n;
    void *a = malloc(na * es), *c = malloc(nc * es), *got = malloc(nc * es);
    ref_cx *want = malloc(nc * sizeof *want);
    long double *bound = malloc(nc * sizeof *bound);
    for (size_t e = 0; e < na; e++) {
        int i = (int)(e % rc->lda), j = (int)(e / rc->lda);
        ref_cx v = { uniform(), uniform() };
        if (rc->op == REF_TRSM && i == j)
            v.re = 1.5 + 0.5 * v.re;
        else if (rc->op == REF_TRSM)
            v.re /= t, v.im /= t;
        ref_put(rc->prec, a, (int64_t)e, v);
    }
    for (size_t e = 0; e < nc; e++)
        ref_put(rc->prec, c, (int64_t)e, (ref_cx){ uniform(), uniform() });
    ref_level3(rc, a, c, want, bound);
    void *da = place(ka, a, na * es), *dc = place(kc, c, nc * es);
    const char *fail = NULL;
    if (!da || !dc) {
        fail = "could not place the operands";
    } else {
        union { float s[2]; double d[2]; } alpha, beta;
        if (rc->prec == TS_S || rc->prec == TS_C)
            alpha.s[0] = (float)rc->alpha[0], alpha.s[1] = (float)rc->alpha[1], beta.s[0] = (float)rc->beta[0],
            beta.s[1] = (float)rc->beta[1];
        else
            alpha.d[0] = rc->alpha[0], alpha.d[1] = rc->alpha[1], beta.d[0] = rc->beta[0], beta.d[1] = rc->beta[1];
        if (rc->op == REF_TRSM)
            trsm[rc->prec](&rc->side, &rc->uplo, &rc->trans, &rc->diag, &rc->m, &rc->n, &alpha, da, &rc->lda, dc,
                           &rc->ldc, 1, 1, 1, 1);
        else
            (rc->op == REF_HERK ? herk : syrk)[rc->prec](&rc->uplo, &rc->trans, &rc->n, &rc->k, &alpha, da, &rc->lda,
                                                         &beta, dc, &rc->ldc, 1, 1);
        if (cudaDeviceSynchronize() || cudaMemcpy(got, dc, nc * es, cudaMemcpyDefault))
            fail = "CUDA error after the call";
    }
    for (size_t e = 0; !fail && e < nc; e++) {
        ref_cx v = ref_get(rc->prec, got, (int64_t)e);
        /* A bound of 0: exactly the reference (untouched elements, and TRSM's B = 0 when alpha = 0). */
        int ok = bound[e] == 0 ? v.re == want[e].re && v.im == want[e].im
                               : hypotl(v.re - want[e].re, v.im - want[e].im) <= bound[e];
        if (!ok) {
            snprintf(why, len, "element %zu: got (%Lg, %Lg), want (%Lg, %Lg)", e, v.re, v.im, want[e].re, want[e].im);
            fail = why;
        }
    }
    if (da)
        release(ka, da);
    if (dc)
        release(kc, dc);
    free(a), free(c), free(got), free(want), free(bound);
    return fail;
}

int main(void)
{
    if (!gpu_present()) {
        printf("1..0 # SKIP no CUDA device\n");
        return 0;
    }
    /* (op, uplo, trans, side, diag, m, n, k) with TSSHIM_MIN_LONG=512. */
    static const struct {
        const char *name;
        ref_op op;
        char uplo, trans, side, diag;
        int m, n, k;
    } shapes[] = {
        { "syrk gram", REF_SYRK, 'U', 'T', 0, 0, 0, 8, 3000 },
        { "syrk gram N", REF_SYRK, 'L', 'N', 0, 0, 0, 5, 2000 },
        { "syrk regular", REF_SYRK, 'L', 'T', 0, 0, 0, 100, 50 },
        { "herk gram", REF_HERK, 'L', 'C', 0, 0, 0, 8, 3000 },
        { "herk regular", REF_HERK, 'U', 'N', 0, 0, 0, 90, 40 },
        { "trsm tall R", REF_TRSM, 'U', 'N', 'R', 'N', 4000, 16, 0 },
        { "trsm tall R T", REF_TRSM, 'L', 'T', 'R', 'U', 3000, 33, 0 },
        { "trsm wide L", REF_TRSM, 'L', 'N', 'L', 'N', 12, 3000, 0 },
        { "trsm wide L C", REF_TRSM, 'U', 'C', 'L', 'U', 64, 2000, 0 },
        /* The small-triangle kernel's steps (8 or 16 elements, several
         * above 16) at their edges, both solve directions on both sides,
         * lines not a whole number of warps. */
        { "trsm order 1 R", REF_TRSM, 'L', 'N', 'R', 'N', 1001, 1, 0 },
        { "trsm order 8 L T", REF_TRSM, 'U', 'T', 'L', 'N', 8, 777, 0 },
        { "trsm order 9 R C", REF_TRSM, 'U', 'C', 'R', 'U', 2049, 9, 0 },
        { "trsm order 17 L", REF_TRSM, 'U', 'N', 'L', 'N', 17, 1500, 0 },
        { "trsm order 48 L T", REF_TRSM, 'L', 'T', 'L', 'U', 48, 999, 0 },
        { "trsm order 64 R", REF_TRSM, 'L', 'N', 'R', 'N', 1200, 64, 0 },
        { "trsm large triangle", REF_TRSM, 'U', 'T', 'L', 'N', 100, 80, 0 },
    };
    static const kind kinds[][2] = { { DEVICE, DEVICE }, { DEVICE, PINNED }, { PINNED, DEVICE }, { MANAGED, MANAGED } };
    for (int p = 0; p < TS_NPREC; p++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            if (shapes[s].op == REF_HERK && !ts_prec_is_complex((ts_prec)p))
                continue;
            for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++)
                /* alpha general, 0, and for TRSM 1, which is not applied. */
                for (int av = 0; av < 3; av++) {
                    if (av == 2 && shapes[s].op != REF_TRSM)
                        continue;
                    int im = ts_prec_is_complex((ts_prec)p) && shapes[s].op != REF_HERK;
                    ref_case rc = { (ts_prec)p, shapes[s].op, shapes[s].uplo, shapes[s].trans, shapes[s].side,
                                    shapes[s].diag, shapes[s].m, shapes[s].n, shapes[s].k, 0, 0,
                                    { av == 0 ? 0.7 : av == 1 ? 0 : 1, av || !im ? 0 : -0.45 },
                                    { -1.3, im ? 0.55 : 0 } };
                    if (rc.op == REF_TRSM)
                        rc.k = ref_trsm_order(&rc), rc.beta[0] = rc.beta[1] = 0;
                    else
                        rc.m = rc.n;
                    int rows_a = rc.op == REF_TRSM ? rc.k : rc.trans == 'N' ? rc.n : rc.k;
                    rc.lda = rows_a + 3;
                    rc.ldc = rc.m + 2;
                    char why[256];
                    const char *fail = run(&rc, kinds[q][0], kinds[q][1], why, sizeof why);
                    tap_ok(!fail, "%c %s, A %s, %s %s%s: %s", "sdcz"[p], shapes[s].name, kind_names[kinds[q][0]],
                           rc.op == REF_TRSM ? "B" : "C", kind_names[kinds[q][1]],
                           av == 1 ? ", alpha = 0" : av == 2 ? ", alpha = 1" : "",
                           fail ? fail : "as the reference");
                }
        }
    /* DSYRK Gram calls on device data, C = A^T A ('T') and A A^T ('N'),
     * at each end of the Gram kernel's width cells and between: k not a
     * multiple of its 16-row step, lda above A's rows, odd at some widths
     * (loads element by element) and even at others (16-byte loads) in
     * both forms. */
    static const int gram_ns[] = { 5, 8, 12, 16, 24, 32 };
    for (size_t i = 0; i < sizeof gram_ns / sizeof gram_ns[0]; i++)
        for (int t = 0; t < 2; t++) {
            const int n = gram_ns[i], k = 20011, pad = (int)(i + t) % 2 ? 3 : 4;
            ref_case rc = { .prec = TS_D, .op = REF_SYRK, .uplo = t ? 'L' : 'U', .trans = t ? 'N' : 'T',
                            .m = n, .n = n, .k = k, .lda = (t ? n : k) + pad, .ldc = n + 2,
                            .alpha = { 0.7, 0 }, .beta = { -1.3, 0 } };
            char why[256];
            const char *fail = run(&rc, DEVICE, DEVICE, why, sizeof why);
            tap_ok(!fail, "d syrk gram %c n=%d k=%d lda=%d, A device, C device: %s", rc.trans, n, k, rc.lda,
                   fail ? fail : "as the reference");
        }
    return tap_done();
}
