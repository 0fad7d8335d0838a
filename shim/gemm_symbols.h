/* The one list of intercepted symbols: each expansion of TS_GEMM_SYMBOL
 * (name, precision) generates what that site needs. */
TS_GEMM_SYMBOL(sgemm_, TS_S)
TS_GEMM_SYMBOL(dgemm_, TS_D)
TS_GEMM_SYMBOL(cgemm_, TS_C)
TS_GEMM_SYMBOL(zgemm_, TS_Z)
