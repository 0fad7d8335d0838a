/* A CPU BLAS that does nothing: bench_forward_level3 --null and
 * bench_forward_ilp64 forward to it, so that the difference between the two
 * sides is the shim's own cost per call, free of the real BLAS's variation. */
#include "common/routine_list.h"

#define NULL_ROUTINE(name) \
    __attribute__((visibility("default"))) void name(void); \
    void name(void) { __asm__ volatile(""); }
NULL_ROUTINE(ssyrk_)
NULL_ROUTINE(dsyrk_)
NULL_ROUTINE(csyrk_)
NULL_ROUTINE(zsyrk_)
NULL_ROUTINE(cherk_)
NULL_ROUTINE(zherk_)
NULL_ROUTINE(strsm_)
NULL_ROUTINE(dtrsm_)
NULL_ROUTINE(ctrsm_)
NULL_ROUTINE(ztrsm_)
NULL_ROUTINE(cblas_ssyrk)
NULL_ROUTINE(cblas_dsyrk)
NULL_ROUTINE(cblas_zsyrk)
NULL_ROUTINE(cblas_zherk)
NULL_ROUTINE(cblas_strsm)
NULL_ROUTINE(cblas_dtrsm)
NULL_ROUTINE(cblas_ztrsm)
NULL_ROUTINE(dsymm_)
NULL_ROUTINE(zhemm_)
NULL_ROUTINE(dtrmm_)
NULL_ROUTINE(ztrmm_)
NULL_ROUTINE(dsyr2k_)
NULL_ROUTINE(zher2k_)
NULL_ROUTINE(cblas_dsymm)
NULL_ROUTINE(cblas_zhemm)
NULL_ROUTINE(cblas_dtrmm)
NULL_ROUTINE(cblas_dsyr2k)
NULL_ROUTINE(cblas_zher2k)
/* The ILP64 names, every row of the routine list's ILP64 blocks. */
#define NULL_ROW(symbol, prec, args, abi) NULL_ROUTINE(symbol)
TS_ILP64_ROUTINES(NULL_ROW, )
TS_ILP64_ROUTINES(NULL_ROW, scipy_)
