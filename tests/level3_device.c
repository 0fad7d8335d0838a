/* The level-3 routines other than GEMM on operands in device, managed and
 * pinned memory through the shim, in the mode the script sets (cpu mode
 * included: a CPU BLAS would crash on device memory, so such calls must run
 * on the GPU in every mode).  Each result, copied back, is judged against
 * the reference (tests/ref_level3.c): every element the call writes within
 * its rounding bound, every other one (the padding of C, the triangle
 * SYR2K and HER2K leave alone) as it was.  SYRK, HERK and TRSM: shapes that
 * reach each GPU path: the Gram route (skinny SYRK and HERK, k long), cuBLAS
 * (regular SYRK, TRSM with a large triangle), the small-triangle TRSM
 * kernel (tall B, both sides, orders from 1 to 64, alpha = 1), and alpha =
 * 0; then DSYRK Gram calls at widths of the Gram kernel (5-32,
 * kernels/gram_dmma.cu) in both forms.  SYMM, HEMM, TRMM, SYR2K and HER2K
 * (cuBLAS): every side, uplo, trans and diag on small shapes with padded
 * leading dimensions, general scalars, beta = 0 with C full of NaN (TRMM:
 * alpha = 0 with B full of NaN), alpha = 0 with A and B full of NaN, NaN in
 * the half of A the call does not reference: none of it may show.  Prints
 * "1..0 # SKIP" without a CUDA device. */
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
static symm_f *const symm[TS_NPREC] = { ssymm_, dsymm_, csymm_, zsymm_ };
static symm_f *const hemm[TS_NPREC] = { NULL, NULL, chemm_, zhemm_ };
static trsm_f *const trmm[TS_NPREC] = { strmm_, dtrmm_, ctrmm_, ztrmm_ };
static symm_f *const syr2k[TS_NPREC] = { ssyr2k_, dsyr2k_, csyr2k_, zsyr2k_ };
static symm_f *const her2k[TS_NPREC] = { NULL, NULL, cher2k_, zher2k_ };

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

/* Where A, B (SYMM, HEMM, SYR2K, HER2K) and C (TRSM's and TRMM's B) live. */
typedef struct {
    kind a, b, c;
} placement;

/* The routines this test added to SYRK, HERK and TRSM, whose inputs the
 * call must not read are NaN here. */
static int nan_inputs(const ref_case *rc) { return rc->op >= REF_SYMM; }
static int alpha_zero(const ref_case *rc) { return rc->alpha[0] == 0 && rc->alpha[1] == 0; }

/* Whether the call must not read element (i, j) of A: none when alpha = 0;
 * of SYMM, HEMM and TRMM the other triangle, and TRMM's unit diagonal. */
static int a_unread(const ref_case *rc, int i, int j)
{
    if (alpha_zero(rc))
        return 1;
    if (rc->op != REF_SYMM && rc->op != REF_HEMM && rc->op != REF_TRMM)
        return 0;
    return (rc->uplo == 'U' ? i > j : i < j) || (rc->op == REF_TRMM && rc->diag == 'U' && i == j);
}

/* Whether the call must not read element (i, j) of C, which it writes:
 * with beta = 0 (TRMM: alpha = 0), C of SYMM and HEMM, the triangle of
 * SYR2K and HER2K, TRMM's B. */
static int c_unread(const ref_case *rc, int i, int j)
{
    if (rc->op == REF_TRMM)
        return alpha_zero(rc) && i < rc->m;
    if (rc->beta[0] != 0 || rc->beta[1] != 0)
        return 0;
    if (rc->op == REF_SYMM || rc->op == REF_HEMM)
        return i < rc->m;
    return i < rc->n && (rc->uplo == 'U' ? i <= j : i >= j);
}

static void call(const ref_case *rc, const void *a, const void *b, void *c)
{
    union {
        float s[2];
        double d[2];
    } alpha, beta;
    if (rc->prec == TS_S || rc->prec == TS_C)
        alpha.s[0] = (float)rc->alpha[0], alpha.s[1] = (float)rc->alpha[1], beta.s[0] = (float)rc->beta[0],
        beta.s[1] = (float)rc->beta[1];
    else
        alpha.d[0] = rc->alpha[0], alpha.d[1] = rc->alpha[1], beta.d[0] = rc->beta[0], beta.d[1] = rc->beta[1];
    const ts_prec p = rc->prec;
    switch (rc->op) {
    case REF_TRSM:
    case REF_TRMM:
        (rc->op == REF_TRSM ? trsm : trmm)[p](&rc->side, &rc->uplo, &rc->trans, &rc->diag, &rc->m, &rc->n, &alpha, a,
                                               &rc->lda, c, &rc->ldc, 1, 1, 1, 1);
        break;
    case REF_SYMM:
    case REF_HEMM:
        (rc->op == REF_SYMM ? symm : hemm)[p](&rc->side, &rc->uplo, &rc->m, &rc->n, &alpha, a, &rc->lda, b, &rc->ldb,
                                               &beta, c, &rc->ldc, 1, 1);
        break;
    case REF_SYR2K:
    case REF_HER2K:
        (rc->op == REF_SYR2K ? syr2k : her2k)[p](&rc->uplo, &rc->trans, &rc->n, &rc->k, &alpha, a, &rc->lda, b,
                                                 &rc->ldb, &beta, c, &rc->ldc, 1, 1);
        break;
    default:
        (rc->op == REF_HERK ? herk : syrk)[p](&rc->uplo, &rc->trans, &rc->n, &rc->k, &alpha, a, &rc->lda, &beta, c,
                                              &rc->ldc, 1, 1);
        break;
    }
}

/* Runs one case with its operands in the given memory; NULL or why it failed. */
static const char *run(const ref_case *rc, placement k, char *why, size_t len)
{
    static const ref_cx nan_cx = { NAN, NAN };
    const size_t es = ts_elem_size(rc->prec);
    int t = ref_trsm_order(rc), rows_a, cols_a, rows_b, cols_b;
    ref_shape_a(rc, &rows_a, &cols_a);
    ref_shape_b(rc, &rows_b, &cols_b);
    size_t na = (size_t)rc->lda * cols_a, nb = (size_t)rc->ldb * cols_b, nc = (size_t)rc->ldc * rc->n;
    void *a = malloc(na * es), *b = nb ? malloc(nb * es) : NULL, *c = malloc(nc * es), *got = malloc(nc * es);
    ref_cx *want = malloc(nc * sizeof *want);
    long double *bound = malloc(nc * sizeof *bound);
    for (size_t e = 0; e < na; e++) {
        int i = (int)(e % rc->lda), j = (int)(e / rc->lda);
        ref_cx v = { uniform(), uniform() };
        if (rc->op == REF_TRSM && i == j)
            v.re = 1.5 + 0.5 * v.re;
        else if (rc->op == REF_TRSM)
            v.re /= t, v.im /= t;
        ref_put(rc->prec, a, (int64_t)e, nan_inputs(rc) && a_unread(rc, i, j) ? nan_cx : v);
    }
    for (size_t e = 0; e < nb; e++)
        ref_put(rc->prec, b, (int64_t)e, alpha_zero(rc) ? nan_cx : (ref_cx){ uniform(), uniform() });
    for (size_t e = 0; e < nc; e++) {
        int i = (int)(e % rc->ldc), j = (int)(e / rc->ldc);
        ref_cx v = { uniform(), uniform() };
        ref_put(rc->prec, c, (int64_t)e, nan_inputs(rc) && c_unread(rc, i, j) ? nan_cx : v);
    }
    ref_level3(rc, a, b, c, want, bound);
    void *da = place(k.a, a, na * es), *db = nb ? place(k.b, b, nb * es) : NULL, *dc = place(k.c, c, nc * es);
    const char *fail = NULL;
    if (!da || !dc || (nb && !db)) {
        fail = "could not place the operands";
    } else {
        call(rc, da, db, dc);
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
        release(k.a, da);
    if (db)
        release(k.b, db);
    if (dc)
        release(k.c, dc);
    free(a), free(b), free(c), free(got), free(want), free(bound);
    return fail;
}

/* SYMM, HEMM, TRMM, SYR2K and HER2K: one TAP line per routine and letters,
 * over operand placements and scalars; the first failure described. */
static void products(ts_prec p, ref_op op, char side, char uplo, char trans, char diag)
{
    static const char *const names[] = { [REF_SYMM] = "symm", [REF_HEMM] = "hemm", [REF_TRMM] = "trmm",
                                         [REF_SYR2K] = "syr2k", [REF_HER2K] = "her2k" };
    /* A, B, C all on the device, A alone, B and C (C in place, A and B
     * copied), all managed. */
    static const placement places[] = { { DEVICE, DEVICE, DEVICE }, { DEVICE, PINNED, PINNED },
                                        { PINNED, PINNED, DEVICE }, { MANAGED, MANAGED, MANAGED } };
    /* alpha, beta: general, beta = 0, alpha = 0. */
    static const double scalars[][4] = { { 0.7, -0.45, -1.3, 0.55 }, { 0.7, -0.45, 0, 0 }, { 0, 0, -1.3, 0.55 } };
    const int cplx = ts_prec_is_complex(p), two = op == REF_SYR2K || op == REF_HER2K;
    ref_case rc = { .prec = p, .op = op, .uplo = uplo, .trans = trans, .side = side, .diag = diag };
    rc.m = rc.n = two ? 29 : 23;
    if (!two)
        rc.m = 37;
    rc.k = two ? 17 : ref_trsm_order(&rc);
    int rows, cols;
    ref_shape_a(&rc, &rows, &cols);
    rc.lda = rows + 3;
    ref_shape_b(&rc, &rows, &cols);
    rc.ldb = rows + 1;
    rc.ldc = rc.m + 2;
    int cases = 0;
    char first[384] = "", why[256];
    for (size_t q = 0; q < sizeof places / sizeof places[0]; q++)
        for (size_t x = 0; x < sizeof scalars / sizeof scalars[0]; x++) {
            if (op == REF_TRMM && x == 1)
                continue; /* TRMM has no beta */
            rc.alpha[0] = scalars[x][0], rc.alpha[1] = cplx ? scalars[x][1] : 0;
            rc.beta[0] = scalars[x][2], rc.beta[1] = cplx && op != REF_HER2K ? scalars[x][3] : 0;
            cases++;
            const char *fail = run(&rc, places[q], why, sizeof why);
            if (fail && !first[0])
                snprintf(first, sizeof first, "; A %s, B %s, C %s, alpha=(%g,%g) beta=(%g,%g): %s",
                         kind_names[places[q].a], kind_names[places[q].b], kind_names[places[q].c], rc.alpha[0],
                         rc.alpha[1], rc.beta[0], rc.beta[1], fail);
        }
    tap_ok(!first[0], "%c%s side=%c uplo=%c trans=%c diag=%c m=%d n=%d k=%d: %d cases%s", "sdcz"[p], names[op], side,
           uplo, trans, diag, rc.m, rc.n, rc.k, cases, first[0] ? first : " as the reference");
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
                                    shapes[s].diag, shapes[s].m, shapes[s].n, shapes[s].k, 0, 0, 0,
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
                    const char *fail = run(&rc, (placement){ kinds[q][0], PINNED, kinds[q][1] }, why, sizeof why);
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
            const char *fail = run(&rc, (placement){ DEVICE, PINNED, DEVICE }, why, sizeof why);
            tap_ok(!fail, "d syrk gram %c n=%d k=%d lda=%d, A device, C device: %s", rc.trans, n, k, rc.lda,
                   fail ? fail : "as the reference");
        }
    for (int p = 0; p < TS_NPREC; p++) {
        const int cplx = ts_prec_is_complex((ts_prec)p);
        for (int op = REF_SYMM; op <= REF_HER2K; op++) {
            if ((op == REF_HEMM || op == REF_HER2K) && !cplx)
                continue;
            const char *sides = op == REF_SYR2K || op == REF_HER2K ? "L" : "LR";
            const char *trans = op == REF_TRMM    ? "NTC"
                                : op == REF_HER2K ? "NC"
                                : op == REF_SYR2K ? (cplx ? "NT" : "NTC")
                                                  : "N";
            const char *diags = op == REF_TRMM ? "NU" : "N";
            for (const char *sd = sides; *sd; sd++)
                for (const char *u = "UL"; *u; u++)
                    for (const char *tr = trans; *tr; tr++)
                        for (const char *d = diags; *d; d++)
                            products((ts_prec)p, (ref_op)op, *sd, *u, *tr, *d);
        }
    }
    return tap_done();
}
