/* SYRK and HERK whose C the CPU can write compute G = op(A) op(A)^T (^H)
 * on the GPU into an n x n host scratch (alpha = 1, beta = 0), then the
 * triangle C = alpha G + beta C on the host: C never crosses PCIe, and beta
 * = 0 never reads it.  A skinny call (TSMTTSM: n skinny, k long) takes G
 * as a GEMM through the backend's gemm op, A as both operands (the tuned
 * TSMTTSM kernels, the pipeline and the operand cache serve it); any other
 * takes it from the level3 op (cuBLAS SYRK or HERK, half a GEMM's flops).
 * A skinny SYR2K or HER2K does the same with G = op(A) op(B)^T (^H): its
 * other product is G's transpose (conjugate transpose), so one Gram GEMM
 * and the host update C = alpha G + alpha G^T + beta C (HER2K: conj(alpha)
 * G^H) replace cuBLAS's, which is a hundred times slower on such shapes
 * (docs/performance.md).  SYMM and HEMM whose symmetric side is skinny and
 * other dimension long run as the GEMM of B with A's full matrix, made on
 * the host (TSMM's kernels, the pipeline and the cache serve it).  The
 * other routines (TRSM, TRMM), other SYMM, HEMM, SYR2K and HER2K, and any
 * with an operand in device memory, go to the level3 op as they are. */
#include "dispatch/level3_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/scalars.h"
#include "cpu/host_scale.h"
#include "cache/operand_cache.h"

/* The trace names the GEMM path under the route's name. */
static const char *route_name(const char *route, const char *path)
{
    int gram = !strcmp(route, "gram");
    if (path && !strcmp(path, "tuned"))
        return gram ? "gram+tuned" : "symm+tuned";
    if (path && !strcmp(path, "cublas"))
        return gram ? "gram+cublas" : "symm+cublas";
    return route;
}

/* The route's GEMM on the host pipeline: its own operands go through the
 * operand cache (A may be held from earlier calls; a scratch is below the
 * cache's minimum size); the call's trace gets what the GEMM did. */
static int pipelined_gemm(const ts_gpu_ops *g, ts_call *c, ts_call *gemm, const ts_config *cfg, char *why,
                          size_t why_len)
{
    gemm->routine = ts_gemm_routine(c->prec);
    gemm->uplo = 0;
    gemm->side = 0;
    int rc = ts_cache_gemm(g, gemm, cfg, why, why_len);
    ts_cache_finish(gemm);
    c->cache_state[TS_OP_A] = gemm->cache_state[TS_OP_A];
    c->cache_state[TS_OP_B] = gemm->cache_state[TS_OP_B];
    c->cache_seconds = gemm->cache_seconds;
    c->prove_seconds = gemm->prove_seconds;
    c->bytes_h2d = gemm->bytes_h2d;
    c->bytes_d2h = gemm->bytes_d2h;
    c->gpu_phases = gemm->gpu_phases;
    return rc;
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
        rc = pipelined_gemm(g, c, &gemm, cfg, why, why_len);
    } else {
        rc = g->level3(&gemm, cfg, why, why_len);
        c->bytes_h2d = gemm.bytes_h2d;
        c->bytes_d2h = gemm.bytes_d2h;
        c->gpu_phases = gemm.gpu_phases;
    }
    if (rc == 0)
        ts_host_update_gram(c, scratch, c->n);
    free(scratch);
    c->gpu_path = route_name("gram", gemm.gpu_path);
    c->gpu_seconds = ts_now() - t0;
    return rc;
}

/* C = alpha B A + beta C (side R) or alpha A B + beta C (side L) as a GEMM
 * with A's full k x k matrix: B and C stream through the pipeline. */
static int symm(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    double t0 = ts_now();
    void *full = malloc((size_t)(c->k * c->k) * ts_elem_size(c->prec));
    if (!full) {
        snprintf(why, why_len, "no host memory for the %lld x %lld symmetric matrix", (long long)c->k, (long long)c->k);
        return -1;
    }
    ts_host_full_symmetric(c, full);
    ts_call gemm = *c;
    gemm.transa = gemm.transb = 'N';
    if (c->side == 'R') {
        gemm.a = c->b, gemm.lda = c->ldb, gemm.res_a = c->res_b;
        gemm.b = full, gemm.ldb = c->k, gemm.res_b = TS_MEM_HOST;
    } else {
        gemm.a = full, gemm.lda = c->k, gemm.res_a = TS_MEM_HOST;
    }
    int rc = pipelined_gemm(g, c, &gemm, cfg, why, why_len);
    free(full);
    c->gpu_path = route_name("symm", gemm.gpu_path);
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
    if (ts_call_gram_route(c))
        return gram(g, c, cfg, why, why_len);
    if (ts_call_symm_route(c))
        return symm(g, c, cfg, why, why_len);
    return g->level3(c, cfg, why, why_len);
}
