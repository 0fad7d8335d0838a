/* The pinned staging ring's growth (cuda/staging.c), for
 * tests/staging_ring.sh, which runs this program under the shim with every
 * call forced onto the GPU, the operand cache off and the per-call trace
 * on.  `grow`: three calls that each stream 768 MB through the ring (ISM2,
 * A and C up, C down), so the first two run on the ring as it starts and
 * the third on the whole ring.  `column`: a first call one column of whose
 * C does not fit the ring as it starts, which takes the whole ring at once.
 * Each call's C is compared with OpenBLAS's. */
#include <stdio.h>
#include <string.h>

#include "checked_gemm.h"
#include "tap.h"

int main(int argc, char **argv)
{
    char err[512] = "";
    if (argc != 2 || (strcmp(argv[1], "grow") && strcmp(argv[1], "column"))) {
        printf("Bail out! usage: staging_ring grow|column\n");
        return 1;
    }
    if (ref_blas_open(err, sizeof err)) {
        printf("Bail out! no reference BLAS: %s\n", err);
        return 1;
    }
    int grow = !strcmp(argv[1], "grow");
    checked_gemm g;
    /* column: a regular GEMM (n, k above TSSHIM_MAX_SKINNY) is cut into
     * column slices, and one column of C here is 16.8 MB. */
    if (grow)
        cg_prepare(&g, "ism2", TS_D, 'N', 'N', 1 << 22, 8, 8, 0);
    else
        cg_prepare(&g, "regular", TS_D, 'N', 'N', (1 << 21) + 1024, 65, 65, 0);
    for (int call = 1; call <= (grow ? 3 : 1); call++) {
        double ratio = cg_run_host(&g, cg_tested(g.prec));
        tap_ok(cg_ratio_ok(&g, ratio), "%s: dgemm_ m=%d n=%d k=%d, call %d: worst ratio %.3g", argv[1], g.m, g.n, g.k,
               call, ratio);
    }
    cg_free(&g);
    return tap_done();
}
