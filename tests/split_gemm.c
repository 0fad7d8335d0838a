/* GEMMs large enough to cross the host pipeline in several slices, for
 * tests/split.sh, which runs this program under the shim with every call
 * split across devices: TSM2 and ISM2 (row blocks), TSMTTSM A^T B and the
 * Gram matrix A^T A (A^H A) with A passed as both operands (k blocks summed
 * on the host), and a regular GEMM (column blocks), in every precision and
 * transpose pair, with general scalars, beta = 0 over a C of NaN (C must not
 * be read) and beta = 1, against OpenBLAS.  One TAP point per precision,
 * transpose pair and shape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked_gemm.h"
#include "gemm_cases.h"
#include "tap.h"

typedef struct {
    const char *name;
    int m, n, k;
    int gram; /* A^T A: m = n, B = A, op(B) = op(A)^T */
} shape;

/* With TSSHIM_MIN_LONG=512, TSSHIM_MAX_SKINNY=64 (tests/split.sh). */
static const shape shapes[] = {
    { "tsm2", 6000, 8, 700, 0 },
    { "ism2", 60000, 16, 16, 0 },
    { "tsmttsm", 8, 5, 100000, 0 },
    { "gram", 16, 16, 100000, 1 },
    { "regular", 600, 520, 550, 0 },
};

/* The reference for the operands and scalars as they are now. */
static void reference(checked_gemm *g)
{
    memcpy(g->want, g->c0, g->bytes_c);
    cg_call(g, ref_gemm(g->prec), g->a, g->b, g->want);
}

/* The routine under test on copies (A passed twice for a Gram matrix). */
static double run(const checked_gemm *g, int gram)
{
    if (!gram)
        return cg_run_host(g, cg_tested(g->prec));
    void *a = malloc(g->bytes_a), *c = malloc(g->bytes_c);
    double ratio = INFINITY;
    if (a && c) {
        memcpy(a, g->a, g->bytes_a);
        memcpy(c, g->c0, g->bytes_c);
        cg_call(g, cg_tested(g->prec), a, a, c);
        ratio = cg_ratio(g, c);
    }
    free(a);
    free(c);
    return ratio;
}

int main(void)
{
    static const char trans[] = "NTC";
    char err[512] = "";
    if (ref_blas_open(err, sizeof err)) {
        printf("Bail out! no reference BLAS: %s\n", err);
        return 1;
    }
    for (int p = 0; p < TS_NPREC; p++)
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++)
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                    const shape *sh = &shapes[s];
                    char ta = trans[x], tb = trans[y];
                    /* A Gram matrix op(A) op(A)^T: op(B) is the other transpose of the same array. */
                    if (sh->gram && (ta == 'N' || tb != 'N'))
                        continue;
                    checked_gemm g;
                    cg_prepare(&g, sh->name, (ts_prec)p, ta, tb, sh->m, sh->n, sh->k, 3);
                    if (sh->gram) {
                        memcpy(g.b, g.a, g.bytes_a);
                        reference(&g);
                    }
                    double general = run(&g, sh->gram);
                    memset(g.beta, 0, sizeof g.beta);
                    gc_fill_nan(g.prec, g.c0, 0, g.bytes_c / ts_elem_size(g.prec));
                    reference(&g);
                    double beta0 = run(&g, sh->gram);
                    gc_set(g.prec, g.beta, 0, 1.0);
                    gc_fill_random(g.prec, g.c0, 0, g.bytes_c / ts_elem_size(g.prec));
                    reference(&g);
                    double beta1 = run(&g, sh->gram);
                    tap_ok(cg_ratio_ok(&g, general) && cg_ratio_ok(&g, beta0) && cg_ratio_ok(&g, beta1),
                           "%cgemm_ %c%c %s m=%d n=%d k=%d: worst ratio %.3g (general), %.3g (beta 0, C NaN), "
                           "%.3g (beta 1); limit %.3g",
                           "sdcz"[p], ta, tb, sh->name, sh->m, sh->n, sh->k, general, beta0, beta1,
                           gc_ratio_limit(g.prec));
                    cg_free(&g);
                }
    return tap_done();
}
