/* The call descriptor: one per intercepted call, in GEMM terms, filled by
 * the entry adapters (src/entry/), annotated by the dispatcher and the
 * decision (screen, facts, placement, model: src/dispatch/dispatch.c) and
 * consumed by the CPU BLAS, the cache or the GPU plugin.  Plain C, no CUDA. */
#ifndef TS_CALL_H
#define TS_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "common/routine_list.h"

/* Shape classes, docs/architecture.md (C is m x n, op(A) m x k, op(B) k x n). */
typedef enum {
    TS_CLASS_NONE = 0, /* not classified: invalid or quick return */
    TS_CLASS_TSM2,     /* m, k long, n skinny; mirror: n, k long, m skinny */
    TS_CLASS_ISM2,     /* m long; k, n skinny (TSMM); mirror: n long */
    TS_CLASS_TSMTTSM,  /* m, n skinny; k long */
    TS_CLASS_RANKK,    /* m, n long; k skinny */
    TS_CLASS_REGULAR,  /* everything else */
    TS_NCLASS
} ts_class;

typedef enum { TS_RUN_CPU = 0, TS_RUN_GPU = 1 } ts_decision;

/* The operands, as indices of per-operand arrays. */
enum { TS_OP_A = 0, TS_OP_B = 1, TS_OP_C = 2, TS_NOP = 3 };

/* The operands the operand cache may hold: A and B (C, which the call
 * writes, never). */
enum { TS_NCACHED = 2 };

struct ts_cache_entry;

/* Where an operand lives, as far as CUDA knows. */
typedef enum {
    TS_MEM_HOST = 0,  /* pageable host memory (or unknown to CUDA) */
    TS_MEM_PINNED,    /* page-locked or registered host memory */
    TS_MEM_MANAGED,   /* CUDA managed memory */
    TS_MEM_DEVICE     /* device memory */
} ts_residency;

/* What a residency allows; ts_gpu_residency (src/backend/gpu_backend.h) is the one
 * probe that fills it. */
static inline int ts_residency_gpu_reads(ts_residency r) { return r == TS_MEM_DEVICE || r == TS_MEM_MANAGED; }
static inline int ts_residency_cpu_unreadable(ts_residency r) { return r == TS_MEM_DEVICE; }

/* Fortran arguments exactly as received, so forwarding passes them untouched
 * (gfortran ABI: everything by reference plus two hidden string lengths).
 * An ILP64 routine's (F77_64) integer pointers point to 64-bit integers:
 * they are only passed on, never read through these types. */
typedef struct {
    const char *transa, *transb;
    const int *m, *n, *k;
    const void *alpha;
    const void *a;
    const int *lda;
    const void *b;
    const int *ldb;
    const void *beta;
    void *c;
    const int *ldc;
    size_t transa_len, transb_len;
} ts_fortran_args;

/* CBLAS arguments exactly as received (enums as ints, scalars through
 * pointers to the caller's values), so forwarding passes them untouched;
 * the integers are wide enough for the ILP64 routines (CBLAS_64). */
typedef struct {
    int layout, transa, transb;
    int64_t m, n, k;
    const void *alpha;
    const void *a;
    int64_t lda;
    const void *b;
    int64_t ldb;
    const void *beta;
    void *c;
    int64_t ldc;
} ts_cblas_args;

typedef struct ts_call {
    ts_routine routine;
    ts_prec prec;
    char transa, transb;        /* upper case: 'N', 'T' or 'C' once valid */
    char uplo, side, diag;      /* SYRK, HERK, TRSM (upper case once valid); 0 for GEMM */
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    const void *alpha, *beta;   /* scalars of the call's precision */
    const void *a, *b;
    void *c;
    ts_fortran_args f;          /* F77 routines */
    const ts_cblas_args *cb;    /* CBLAS routines: the arguments as received */
    const void *received;       /* SYRK, HERK, TRSM: the arguments as received (src/common/level3_args.h) */
    /* alpha and beta where the descriptor's differ from the received ones:
     * HERK's real alpha and beta and HER2K's real beta as complex values, a
     * row-major HER2K's alpha conjugated (src/entry/level3_entry.c) */
    union { float c[2]; double z[2]; } herk_scalars[2];

    /* Added by classify.  ts_call_from_fortran initialises each field
     * from here on by name: a new one must be added there. */
    ts_class cls;
    int mirror;                 /* TSM2/ISM2 with the long side in n, not m */
    int64_t width;              /* the skinny extent the class is tuned for */
    int alpha_zero, beta_zero, beta_one;

    /* Added by the residency probe (TS_MEM_HOST when CUDA is not loaded). */
    ts_residency res_a, res_b, res_c;
    int device;                 /* the device holding device operands, else -1 */

    /* Added by the operand cache (src/cache/operand_cache.h) for host operands
     * of calls that may run on the GPU; all NULL and 0 otherwise. */
    struct ts_cache_entry *cached[TS_NCACHED]; /* the entry whose device copy holds A, B (referenced) */
    void *cache_dev[TS_NCACHED];  /* the operand's first element in that copy, once it equals the host */
    double resident[TS_NCACHED];  /* bytes the cost model counts as on the device already */
    const char *cache_state[TS_NCACHED]; /* for the trace: "hit", "refreshed", "new" (static strings) */
    double cache_seconds;       /* the cache's part of a GPU call before it ran: tracker checks, copies it made */
    /* Cached operands (a bit per operand) whose copy was used before the
     * write tracker was asked: the backend calls prove, while the device
     * computes and before any byte of a host C is written; 0 from it means
     * the copies were current, else the call must write nothing and run
     * again (src/cache/operand_cache.h). */
    unsigned unproven;
    unsigned long cache_news[TS_NCACHED]; /* the entry's count of reported writes when taken unasked */
    int (*prove)(struct ts_call *c);
    double prove_seconds;       /* what prove took (beside the device's work) */

    /* Added by policy. */
    ts_decision decision;
    const char *reason;         /* static string, for the trace */
    double model_cpu_s, model_gpu_s;         /* the profile's predictions (0: not modelled) */
    double predicted_cpu_s, predicted_gpu_s; /* the same, corrected by what calls measured */
    double cpu_seconds;                      /* measured, when a modelled call ran on the CPU */

    /* Added by the GPU backend. */
    const char *gpu_path;       /* e.g. "tsm2", "cublas": static string */
    uint64_t bytes_h2d, bytes_d2h;
    double gpu_seconds;         /* wall time of the GPU execution */
    int gpu_ring_cold;          /* data went through the staging ring as it starts (before it grew to
                                 * TSSHIM_STAGING_MB), or the call made the ring: the time is not the
                                 * link's rate */
    const char *gpu_phases;     /* the pipeline's phase timing line at TSSHIM_VERBOSE >= 3, else NULL or
                                 * empty; thread-local, valid until the thread's next call */
    int split;                  /* devices the call was shared among (src/multigpu/split.h); 0: it ran whole */
} ts_call;

/* Size in bytes of one element of each precision. */
static inline size_t ts_elem_size(ts_prec p)
{
    static const size_t sz[TS_NPREC] = { 4, 8, 8, 16 };
    return sz[p];
}

static inline int ts_prec_is_complex(ts_prec p) { return p == TS_C || p == TS_Z; }

/* Rows and columns of op(A) and op(B) as stored (before the transpose). */
static inline int64_t ts_rows_a(const ts_call *c) { return c->transa == 'N' ? c->m : c->k; }
static inline int64_t ts_cols_a(const ts_call *c) { return c->transa == 'N' ? c->k : c->m; }
static inline int64_t ts_rows_b(const ts_call *c) { return c->transb == 'N' ? c->k : c->n; }
static inline int64_t ts_cols_b(const ts_call *c) { return c->transb == 'N' ? c->n : c->k; }

/* Whether the call reads A and B: BLAS computes C = beta C alone when
 * alpha = 0 or k = 0 (needs the scalar flags). */
/* No operand served by the operand cache: a new call, or a part of one
 * that runs away from the cache's device. */
static inline void ts_call_no_cache(ts_call *c)
{
    for (int op = 0; op < TS_NCACHED; op++) {
        c->cached[op] = NULL;
        c->cache_dev[op] = NULL;
        c->resident[op] = 0.0;
        c->cache_state[op] = NULL;
    }
    c->cache_seconds = 0.0;
    c->unproven = 0;
    c->cache_news[0] = c->cache_news[1] = 0;
    c->prove = NULL;
    c->prove_seconds = 0.0;
}

/* The backend's gate before it writes any byte of a host C (see unproven):
 * 0 when nothing awaits proof or the copies proved current. */
static inline int ts_call_prove(struct ts_call *c)
{
    if (!c->unproven)
        return 0;
    return c->prove(c);
}

/* True when some operand is device or managed memory the CPU must not (or
 * should not) touch through a CPU BLAS. */
static inline int ts_call_on_device(const ts_call *c)
{
    return ts_residency_cpu_unreadable(c->res_a) || ts_residency_cpu_unreadable(c->res_b) ||
           ts_residency_cpu_unreadable(c->res_c);
}

static inline int ts_call_reads_ab(const ts_call *c) { return !(c->alpha_zero || c->k == 0); }

/* SYRK and HERK whose C the CPU can write, and skinny SYR2K and HER2K
 * (n skinny, k long: their G = op(A) op(B)^T is a Gram GEMM on the tuned
 * kernels), take their Gram GEMM on the GPU and update the triangle on the
 * host (src/dispatch/level3_gpu.c). */
static inline int ts_call_gram_route(const ts_call *c)
{
    ts_args kind = ts_routine_args(c->routine);
    if (ts_residency_cpu_unreadable(c->res_c))
        return 0;
    return kind == TS_ARGS_SYRK || kind == TS_ARGS_HERK ||
           ((kind == TS_ARGS_SYR2K || kind == TS_ARGS_HER2K) && c->cls == TS_CLASS_TSMTTSM);
}

/* SYMM and HEMM on host memory whose symmetric side is skinny and other
 * dimension long (ISM2's shapes) run as the GEMM of B with A's full matrix,
 * made on the host (src/dispatch/level3_gpu.c). */
static inline int ts_call_symm_route(const ts_call *c)
{
    ts_args kind = ts_routine_args(c->routine);
    return (kind == TS_ARGS_SYMM || kind == TS_ARGS_HEMM) && c->cls == TS_CLASS_ISM2 && !ts_call_on_device(c);
}

/* Host operands stream through the pipeline (slices, pinned staging, the
 * operand cache) for GEMM, a skinny Gram route and the SYMM route; the
 * other level-3 calls move them in one round trip of pageable copies. */
static inline int ts_call_pipelined(const ts_call *c)
{
    return ts_routine_args(c->routine) == TS_ARGS_GEMM || (ts_call_gram_route(c) && c->cls == TS_CLASS_TSMTTSM) ||
           ts_call_symm_route(c);
}

/* Devices the backend keeps per-device state for (context, staging,
 * kernel attributes); TSSHIM_DEVICE and device operands must be below. */
#define TS_MAX_DEVICES 64

static inline int64_t ts_max1(int64_t x) { return x > 1 ? x : 1; }

/* A descriptor of shape only (for tests, benchmarks and the tuner): the
 * smallest valid leading dimensions, no operands, no scalars. */
static inline void ts_call_shape(ts_call *c, ts_prec p, char transa, char transb, int64_t m, int64_t n, int64_t k)
{
    *c = (ts_call){ .routine = ts_gemm_routine(p), .prec = p, .transa = transa, .transb = transb, .m = m, .n = n, .k = k, .device = -1 };
    c->lda = ts_max1(ts_rows_a(c));
    c->ldb = ts_max1(ts_rows_b(c));
    c->ldc = ts_max1(m);
}

#endif
