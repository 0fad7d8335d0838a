/* A shared library that calls dgemm_ and zgemm_ from its constructor and its
 * destructor, as some libraries do while they load or unload: the shim's own
 * constructor may not have run yet, or its destructor may have run already.
 * It also exports exit_check, the same check for the test program's main and
 * atexit handlers.  Each check prints "WHERE ROUTINE ok|FAIL (ratio R)". */
#include "libctor_client.h"

#include <stdio.h>
#include <stdlib.h>

#include "checked_gemm.h"
#include "gemm_cases.h"

enum { NCHECKS = 2 };

/* Prepared with their OpenBLAS results while loading: by the time the
 * destructor runs, the reference library may already be finalised. */
static checked_gemm checks[NCHECKS];
static int prepared;

void exit_check(const char *where)
{
    for (int i = 0; i < NCHECKS && prepared; i++) {
        double ratio = cg_run_host(&checks[i], cg_tested(checks[i].prec));
        printf("%s %s %s (ratio %.3g)\n", where, gemm_symbol(checks[i].prec),
               cg_ratio_ok(&checks[i], ratio) ? "ok" : "FAIL", ratio);
    }
    fflush(stdout);
}

__attribute__((constructor)) static void on_load(void)
{
    char err[512];
    if (ref_blas_open(err, sizeof err)) {
        printf("constructor cannot open the reference BLAS: %s\n", err);
        return;
    }
    gc_seed(5);
    /* Tall enough to be offloaded with the script's TSSHIM_MIN_LONG. */
    cg_prepare(&checks[0], "tsm2", TS_D, 'N', 'N', 300, 4, 300, 1);
    cg_prepare(&checks[1], "tsmttsm", TS_Z, 'C', 'N', 4, 4, 300, 1);
    prepared = 1;
    /* TS_CTOR_NO_GEMM: CUDA must not start before main when compute-sanitizer
     * runs the program (the tool cannot attach then). */
    if (!getenv("TS_CTOR_NO_GEMM"))
        exit_check("constructor");
}

__attribute__((destructor)) static void on_unload(void)
{
    exit_check("destructor");
    for (int i = 0; i < NCHECKS && prepared; i++)
        cg_free(&checks[i]);
}
