/* The pinned staging ring's growth (cuda/staging.c), for
 * tests/staging_ring.sh, which runs this program under the shim with every
 * call forced onto the GPU, the operand cache off and the per-call trace
 * on.
 *   grow:   eight ISM2 calls that each stream 192 MiB through the ring (A
 *           and C up, C down): six run on the ring as it starts, and once
 *           they have streamed 1 GiB the seventh makes the whole ring and
 *           the eighth uses it.
 *   large:  one call that streams 768 MiB, more than the whole ring: it
 *           takes the whole ring at once.
 *   column: a regular GEMM (the script sets TSSHIM_MAX_SKINNY=4) cut into
 *           column slices, one column of whose C (16.8 MB) does not fit the
 *           ring as it starts: it takes the whole ring at once.
 * Each call's C is compared with OpenBLAS's. */
#include <stdio.h>
#include <string.h>

#include "checked_gemm.h"
#include "tap.h"

int main(int argc, char **argv)
{
    char err[512] = "";
    const char *what = argc == 2 ? argv[1] : "";
    int grow = !strcmp(what, "grow"), large = !strcmp(what, "large"), column = !strcmp(what, "column");
    if (!grow && !large && !column) {
        printf("Bail out! usage: staging_ring grow|large|column\n");
        return 1;
    }
    if (ref_blas_open(err, sizeof err)) {
        printf("Bail out! no reference BLAS: %s\n", err);
        return 1;
    }
    checked_gemm g;
    if (column)
        cg_prepare(&g, "regular", TS_D, 'N', 'N', (1 << 21) + 1024, 5, 5, 0);
    else
        cg_prepare(&g, "ism2", TS_D, 'N', 'N', large ? 1 << 22 : 1 << 20, 8, 8, 0);
    for (int call = 1; call <= (grow ? 8 : 1); call++) {
        double ratio = cg_run_host(&g, cg_tested(g.prec));
        tap_ok(cg_ratio_ok(&g, ratio), "%s: dgemm_ m=%d n=%d k=%d, call %d: worst ratio %.3g", what, g.m, g.n, g.k, call,
               ratio);
    }
    cg_free(&g);
    return tap_done();
}
