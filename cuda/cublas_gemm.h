/* cuBLAS for any precision, on device operands of a call. */
#ifndef TS_GPU_CUBLAS_H
#define TS_GPU_CUBLAS_H

#include <cublas_v2.h>
#include "tsk_gemm.h"

cublasStatus_t ts_cublas_gemm(cublasHandle_t h, const ts_call *c, const tsk_operands *ops);

#endif
