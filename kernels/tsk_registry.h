/* Kernel registry: which tuned instances exist (compiled), and which of them
 * the per-architecture tuning table says to run instead of cuBLAS.
 * Instances are generated from one template per class; the tuning data lives
 * apart from the code (tsk_tuning_sm*.c, written by tools/tsshim-tune). */
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
    int blocks_per_sm; /* persistent-grid factor (tcf); 0 = grid covers the data */
    int rows_per_thread; /* rows (or k-slices) each thread handles per step */
} tsk_params;

typedef tsk_status (*tsk_launch_fn)(const ts_call *call, const tsk_operands *ops,
                                    cudaStream_t stream, const tsk_params *params);

/* One compiled instance: serves calls of this class, precision and
 * transposes whose width is in [min_width, max_width]. */
typedef struct {
    const char *name;  /* says what it is, e.g. "tsmttsm_d_tn_w8" */
    ts_class cls;
    ts_prec prec;
    char transa, transb;
    int min_width, max_width;
    tsk_launch_fn launch;
} tsk_instance;

/* One tuning decision for one architecture and one (class, precision,
 * transposes, width) cell; width is the cell's upper bound. */
typedef struct {
    int sm;
    ts_class cls;
    ts_prec prec;
    char transa, transb;
    int width;
    const char *instance; /* tsk_instance.name, or NULL for cuBLAS */
    tsk_params params;
} tsk_tuning_row;

/* Each class file defines its instances. */
extern const tsk_instance tsk_tsm2_instances[];
extern const size_t tsk_tsm2_ninstances;
extern const tsk_instance tsk_ism2_instances[];
extern const size_t tsk_ism2_ninstances;
extern const tsk_instance tsk_tsmttsm_instances[];
extern const size_t tsk_tsmttsm_ninstances;

#ifdef __cplusplus
}
#endif

#endif
