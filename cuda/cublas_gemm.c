#include "cublas_gemm.h"

#include <string.h>

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
    /* A Fortran COMPLEX*16 scalar is only as aligned as its real part (8
     * bytes), but cuBLAS loads host scalars as 16-byte aligned
     * cuDoubleComplex: a LAPACK constant at an odd 8-byte address crashed
     * it.  So the scalars travel in copies of the type's own alignment. */
    union { float s; double d; cuComplex c; cuDoubleComplex z; } alpha, beta;
    memcpy(&alpha, c->alpha, ts_elem_size(c->prec));
    memcpy(&beta, c->beta, ts_elem_size(c->prec));
    cudaDataType_t t = type[c->prec];
    return cublasGemmEx_64(h, op(c->transa), op(c->transb), c->m, c->n, c->k, &alpha, ops->a, t, ops->lda,
                           ops->b, t, ops->ldb, &beta, ops->c, t, ops->ldc, compute[c->prec],
                           CUBLAS_GEMM_DEFAULT);
}
