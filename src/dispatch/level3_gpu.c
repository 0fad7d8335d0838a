/* SYRK and HERK whose C the CPU can write compute G = op(A) op(A)^T (^H)
 * on the GPU into an n x n host scratch (alpha = 1, beta = 0), then the
 * triangle C = alpha G + beta C on the host: C never crosses PCIe, and beta
 * = 0 never reads it.  A skinny call (TSMTTSM: n skinny, k long) takes G
 * as a GEMM through the backend's gemm op, A as both operands (the tuned
 * TSMTTSM kernels, the pipeline and the operand cache serve it); any other
 * takes it from the level3 op (cuBLAS SYRK or HERK, half a GEMM's flops).
 * The other routines (TRSM, SYMM, HEMM, TRMM, SYR2K, HER2K), and SYRK or
 * HERK with C in device memory, go to the level3 op as they are: their
 * results are not a GEMM's, so never to the gemm op. */
#include "dispatch/level3_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/scalars.h"
#include "cpu/host_scale.h"
#include "cache/operand_cache.h"

/* The trace names the GEMM path under the Gram route. */
static const char *gram_name(const char *path)
{
    if (!path)
        return "gram";
    return !strcmp(path, "tuned") ? "gram+tuned" : !strcmp(path, "cublas") ? "gram+cublas" : "gram";
}

static int gram(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = ts_now();
    void *scratch = malloc((size_t)(c->n * c->n) * ts_elem_size(c->prec));
    if (!scratch) {
        snprintf(why, why_len, "no host memory for the %lld x %lld Gram matrix", (long long)c->n, (long long)c->n);
        return -1;
    }
    ts_call gemm = *c;
    gemm.alpha = ts_scalar_one(c->prec);
    gemm.beta = ts_scalar_zero(c->prec);
    gemm.alpha_zero = gemm.beta_one = 0;
    gemm.beta_zero = 1;
    gemm.c = scratch;
    gemm.ldc = c->n;
    gemm.res_c = TS_MEM_HOST;
    int rc;
    if (ts_call_pipelined(c)) {
        gemm.routine = ts_gemm_routine(c->prec);
        gemm.uplo = 0;
        /* The GEMM's own operands go through the operand cache: A may be
         * held from earlier calls; the scratch is below the cache's minimum
         * size. */
        rc = ts_cache_gemm(g, &gemm, cfg, why, why_len);
        ts_cache_finish(&gemm);
        /* For the trace: A's use of the cache (the call's C has none). */
        c->cache_state[TS_OP_A] = gemm.cache_state[TS_OP_A];
        c->cache_state[TS_OP_B] = gemm.cache_state[TS_OP_B];
        c->cache_seconds = gemm.cache_seconds;
        c->prove_seconds = gemm.prove_seconds;
    } else {
        rc = g->level3(&gemm, cfg, why, why_len);
    }
    if (rc == 0)
        ts_host_update(c, scratch, c->n);
    free(scratch);
    c->gpu_path = gram_name(gemm.gpu_path);
    c->bytes_h2d = gemm.bytes_h2d;
    c->bytes_d2h = gemm.bytes_d2h;
    c->gpu_phases = gemm.gpu_phases;
    c->gpu_seconds = ts_now() - t0;
    return rc;
}

int ts_level3_gpu(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    /* Only device operands bring such a call here: C = beta C needs no GPU
     * when the CPU can write C. */
    if (!ts_call_reads_ab(c) && !ts_residency_cpu_unreadable(c->res_c)) {
        ts_host_scale(c);
        c->gpu_path = "scale on host";
        return 0;
    }
    return ts_call_gram_route(c) ? gram(g, c, cfg, why, why_len) : g->level3(c, cfg, why, why_len);
}
