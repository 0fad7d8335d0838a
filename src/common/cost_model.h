/* Cost model: predicted CPU BLAS time against the GPU's, where the GPU
 * pipelines the transfers with the kernel (cuda/pipeline.c), so its time is
 * the slowest of the stages.  The figures are a machine profile (profile.c,
 * written by tsshim-calibrate); defaults come from one host's end-to-end
 * measurements (cost_model.c). */
#ifndef TS_COST_MODEL_H
#define TS_COST_MODEL_H

#include "common/call.h"

typedef struct {
    /* CPU BLAS bytes/s and flop/s (1e9) per class and precision: OpenBLAS
     * runs the skinny classes at rates that differ by precision in ways
     * no fixed factor captures (docs/performance.md). */
    double cpu_gbs[TS_NCLASS][TS_NPREC];
    double cpu_gflops[TS_NCLASS][TS_NPREC];
    double h2d_pinned_gbs, d2h_pinned_gbs;   /* DMA from and to page-locked memory */
    double h2d_staged_gbs, d2h_staged_gbs;   /* pageable memory through the staging pipeline */
    double both_staged_gbs;        /* the same, both directions at once: bytes in + out per second */
    double host_copy_gbs;          /* pageable <-> pinned copy by the packing threads */
    double gpu_mem_gbs;            /* device memory, read + write */
    double gpu_gflops[TS_NPREC];
    double gpu_overhead_s;         /* launch, synchronisation and bookkeeping per call */
    double gpu_start_s;            /* once per process: CUDA context, cuBLAS, pinned buffers */
} ts_profile;

extern const ts_profile ts_profile_defaults;

/* Real floating-point operations of an m x n x k GEMM (8 per complex
 * multiply-add), and of a call. */
static inline double ts_gemm_flops(ts_prec p, int64_t m, int64_t n, int64_t k)
{
    double f = 2.0 * (double)m * (double)n * (double)k;
    return ts_prec_is_complex(p) ? 4.0 * f : f;
}
/* The same for routine r's descriptor (src/entry/level3_entry.c): SYRK and
 * HERK compute one triangle of their Gram GEMM, TRSM and TRMM m n k
 * multiply-adds (k the triangle's order); SYMM and HEMM (k the symmetric
 * side's order) a whole GEMM's, SYR2K and HER2K two triangles of n x n x k,
 * one GEMM's. */
static inline double ts_routine_flops(ts_routine r, int64_t m, int64_t n, int64_t k)
{
    double f = ts_gemm_flops(ts_routine_prec(r), m, n, k);
    switch (ts_routine_args(r)) {
    case TS_ARGS_SYRK:
    case TS_ARGS_HERK:
    case TS_ARGS_TRSM:
    case TS_ARGS_TRMM: return f / 2;
    default: return f;
    }
}
double ts_call_flops(const ts_call *c);

/* Bytes of op(A), op(B) and C (C counted twice when beta != 0). */
double ts_call_bytes(const ts_call *c);

double ts_predict_cpu_seconds(const ts_call *c, const ts_profile *p);

/* Includes moving every operand that is not already on the device (device
 * memory, or the bytes c->resident counts). */
double ts_predict_gpu_seconds(const ts_call *c, const ts_profile *p);

/* Bytes of pageable host memory the packing threads copy for the call (in
 * and out, what c->resident counts excepted): one host's copies, however
 * many devices share the call (src/multigpu/split_plan.c). */
double ts_call_staged_bytes(const ts_call *c, const ts_profile *p);

#endif
