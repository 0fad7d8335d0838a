#include "gpu_cublas.h"

static cublasOperation_t op(char t)
{
    return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}

cublasStatus_t ts_cublas_gemm(cublasHandle_t h, const ts_call *c, const tsk_operands *ops)
{
    /* One GemmEx call serves the four precisions; the compute type keeps
     * full FP32/FP64 arithmetic (no TF32), as the CPU BLAS does. */
    static const cudaDataType_t type[TS_NPREC] = { CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F };
    static const cublasComputeType_t compute[TS_NPREC] = { CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F,
                                                           CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F };
    cudaDataType_t t = type[c->prec];
    return cublasGemmEx_64(h, op(c->transa), op(c->transb), c->m, c->n, c->k, c->alpha, ops->a, t, ops->lda,
                           ops->b, t, ops->ldb, c->beta, ops->c, t, ops->ldc, compute[c->prec],
                           CUBLAS_GEMM_DEFAULT);
}
