/* libctor_client: GEMM calls from a library's constructor and destructor. */
#ifndef TS_LIBCTOR_CLIENT_H
#define TS_LIBCTOR_CLIENT_H

/* Runs a dgemm_ and a zgemm_ through the process's BLAS (the shim when
 * preloaded), compares them with OpenBLAS and prints one line for each. */
void exit_check(const char *where);

#endif
