/* Kernel registry: which tuned instances exist (compiled), and which of them
 * the per-architecture tuning table says to run instead of cuBLAS.
 * Instances are generated from one template per class; the tuning data lives
 * apart from the code (kernels/tuning_sm*.c, written by tools/tsshim-tune). */
#ifndef TSK_REGISTRY_H
#define TSK_REGISTRY_H

#include <stddef.h>
#include "tsk_gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run-time knobs of an instance; each class documents what it reads.  The
 * compile-time shape (width, tile) is part of the instance itself. */
typedef struct {
    int threads;       /* threads per block */
    int blocks_per_sm; /* persistent-grid factor (tcf; TSM2: blocks per SM the k split aims at); 0 = default */
    int rows_per_thread; /* rows (or k-slices) each thread handles per step */
} tsk_params;

typedef tsk_status (*tsk_launch_fn)(const ts_call *call, const tsk_operands *ops,
                                    cudaStream_t stream, const tsk_params *params);

/* One compiled instance: serves calls of this class, precision and
 * transposes whose width is in [min_width, max_width].  TSK_ANY_TRANS in
 * transa/transb: the instance maps every transpose (and the mirror) itself
 * and its launch answers TSK_DECLINED for a layout it cannot serve. */
#define TSK_ANY_TRANS '*'

typedef struct {
    const char *name;  /* says what it is, e.g. "tsmttsm_d_tn_w8" */
    ts_class cls;
    ts_prec prec;
    char transa, transb;
    int min_width, max_width;
    tsk_launch_fn launch;
} tsk_instance;

/* An instance row (with its comma) for width bound W (1, 2, 4, ..., 64):
 * it serves the widths above the next narrower bound, W / 2, up to W, i.e.
 * whole width cells (tsk_width_cell), which the dispatch index relies on.
 * LAUNCH goes in parentheses where it holds a comma. */
#define TSK_ROW(NAME, CLS, PREC, TA, TB, W, LAUNCH) { NAME, CLS, PREC, TA, TB, (W) / 2 + 1, W, LAUNCH },
#define TSK_ANY_ROW(NAME, CLS, PREC, W, LAUNCH) TSK_ROW(NAME, CLS, PREC, TSK_ANY_TRANS, TSK_ANY_TRANS, W, LAUNCH)

/* One tuning decision for one architecture and one (class, precision,
 * transposes, width) cell; width is the cell's upper bound (1, 2, 4, ...,
 * 64) and transa/transb are the cell's transposes (tsk_cell_transposes). */
typedef struct {
    int sm;
    ts_class cls;
    ts_prec prec;
    char transa, transb;
    int width;
    const char *instance; /* tsk_instance.name, or NULL for cuBLAS */
    tsk_params params;
} tsk_tuning_row;

/* Each kernel file defines its instances. */
extern const tsk_instance tsk_tsm2_instances[];
extern const size_t tsk_tsm2_ninstances;
extern const tsk_instance tsk_tsm2_dmma_instances[];
extern const size_t tsk_tsm2_dmma_ninstances;
extern const tsk_instance tsk_ism2_instances[];
extern const size_t tsk_ism2_ninstances;
extern const tsk_instance tsk_ism2_dmma_instances[];
extern const size_t tsk_ism2_dmma_ninstances;
extern const tsk_instance tsk_tsmttsm_instances[];
extern const size_t tsk_tsmttsm_ninstances;
extern const tsk_instance tsk_tsmttsm_dmma_instances[];
extern const size_t tsk_tsmttsm_dmma_ninstances;

/* Tuning tables per architecture (kernels/tuning_sm<NN>.c). */
extern const tsk_tuning_row tsk_tuning_sm90[];
extern const size_t tsk_tuning_sm90_nrows;

/* All compiled instances, over the three class tables. */
size_t tsk_instance_count(void);
const tsk_instance *tsk_instance_at(size_t i);
const tsk_instance *tsk_instance_find(const char *name);

/* Whether `inst` may serve `call` (class, precision, width, transposes). */
int tsk_instance_serves(const tsk_instance *inst, const ts_call *call);

/* Whether a TSMTTSM call's op(A)^T and op(B) are one matrix view in memory,
 * as in the Gram GEMM of a SYRK or HERK (C = A^T A, A^H A, A A^T, A A^H):
 * the same pointer and leading dimension, m == n, and both operands lying
 * the same way along k (A 'T'/'C' with B 'N': columns along k; A 'N' with
 * B 'T'/'C': rows along k).  Conjugation changes no memory, so 'C' is
 * free.  The TSMTTSM kernels then stage that view once for both sides. */
static inline int tsk_aliased(const ts_call *call, const tsk_operands *ops)
{
    return call->cls == TS_CLASS_TSMTTSM && ops->a == ops->b && ops->lda == ops->ldb && call->m == call->n &&
           (call->transa != 'N') == (call->transb == 'N');
}

/* The width cell of a call: the smallest of 1, 2, 4, ..., 64 that is >= width,
 * or 0 when wider. */
int tsk_width_cell(int64_t width);

/* A cell's transposes, 'N' or 'T': conjugation does not change the memory
 * layout, and a mirrored call C^T = op(B)^T op(A)^T is tuned as the
 * unmirrored call of the same layout. */
void tsk_cell_transposes(const ts_call *call, char *ta, char *tb);

/* The tuning row of a cell for `sm` (the first, should the table hold two),
 * or NULL.  The tables are resolved into an index on first use (thread-safe),
 * so this and tsk_choose are array accesses. */
const tsk_tuning_row *tsk_tuning_find(int sm, ts_class cls, ts_prec prec, char ta, char tb, int width);

/* What tsk_gemm runs for a call: the instance that serves it and the tuning
 * row whose parameters it passes. */
typedef struct {
    const tsk_instance *inst;
    const tsk_tuning_row *row;
} tsk_choice;

/* The choice for `call` (its class, precision, transposes 'N', 'T' or 'C',
 * mirror and width) on `sm`, or NULL for cuBLAS: the cell's row, its
 * instance, or another entry of that instance's code serving the call's
 * transposes. */
const tsk_choice *tsk_choose(const ts_call *call, int sm);

/* The instance a Gram call runs before its cell's choice (tsk_gemm), or
 * NULL: a call in double (tsk_aliased on `ops`) of width 5-32 on an
 * architecture with a table runs the DMMA instance of its width cell,
 * tsmttsm_dmma_d_w8, _w16 or _w32 (whose Gram calls run
 * kernels/gram_dmma.cu), with default parameters; where its launch
 * declines, the cell's choice runs. */
const tsk_instance *tsk_gram_instance(const ts_call *call, const tsk_operands *ops, int sm);

#ifdef __cplusplus
}
#endif

#endif
