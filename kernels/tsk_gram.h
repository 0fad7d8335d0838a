/* The Gram kernel in double (kernels/gram_dmma.cu): C = alpha op(A) op(A)^T
 * + beta C for a TSMTTSM call whose op(B) is op(A)^T in memory
 * (tsk_aliased), m = n <= W, W = 8, 16 or 32.  The staged DMMA instances of
 * those widths run their Gram calls here (tsmttsm_dmma_gemm.cu).  Reads
 * params->threads (0: 256) and params->blocks_per_sm (0: as many as fit);
 * the caller has checked m <= W and answered the calls that need no
 * product (tsk_tsmttsm_begin). */
#ifndef TSK_GRAM_H
#define TSK_GRAM_H

#include "tsk_registry.h"

template <int W>
tsk_status tsk_gram_dmma(const ts_call *call, const tsk_operands *ops, cudaStream_t stream, const tsk_params *params);

#endif
