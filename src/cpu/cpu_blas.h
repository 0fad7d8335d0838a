/* The original (CPU) BLAS the shim forwards to. */
#ifndef TS_CPU_BLAS_H
#define TS_CPU_BLAS_H

#include <stdatomic.h>
#include <stddef.h>
#include "common/call.h"
#include "common/cblas.h"

/* The gfortran ABI of ?gemm_: everything by reference, then the hidden
 * lengths of the two character arguments. */
typedef void (*ts_gemm_fn)(const char *, const char *, const int *, const int *, const int *,
                           const void *, const void *, const int *, const void *, const int *,
                           const void *, void *, const int *, size_t, size_t);
/* The same with 64-bit integers (F77_64 rows). */
typedef void (*ts_gemm64_fn)(const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
                             const void *, const void *, const int64_t *, const void *, const int64_t *,
                             const void *, void *, const int64_t *, size_t, size_t);

/* The CBLAS GEMMs: real scalars by value, complex ones (C and Z) by
 * pointer; 64-bit integers for the CBLAS_64 rows. */
typedef void(*ts_cblas_sgemm_fn) TS_CBLAS_GEMM_PARAMS(float, int);
typedef void(*ts_cblas_dgemm_fn) TS_CBLAS_GEMM_PARAMS(double, int);
typedef void(*ts_cblas_cgemm_fn) TS_CBLAS_GEMM_PARAMS(const void *, int);
typedef void(*ts_cblas_sgemm64_fn) TS_CBLAS_GEMM_PARAMS(float, int64_t);
typedef void(*ts_cblas_dgemm64_fn) TS_CBLAS_GEMM_PARAMS(double, int64_t);
typedef void(*ts_cblas_cgemm64_fn) TS_CBLAS_GEMM_PARAMS(const void *, int64_t);

/* Calls the CPU BLAS with the arguments exactly as received (the routine's
 * own interface: Fortran or CBLAS). */
void ts_forward(const ts_call *c);

/* A GEMM descriptor computed by the CPU BLAS's Fortran GEMM of its family
 * with the integers it takes, from the descriptor's fields rather than the
 * arguments as received: a part of a call (a split's share, the rest of a
 * pipeline the GPU could not finish). */
void ts_cpu_gemm_descriptor(const ts_call *c);

/* Calls the CPU BLAS's CBLAS routine r with the arguments as received. */
void ts_forward_cblas(ts_routine r, const ts_cblas_args *a);

/* The CPU BLAS's routine r, resolved on its first use: TSSHIM_CPU_BLAS,
 * then dlsym(RTLD_NEXT), then any other loaded object that defines it (BLAS
 * libraries loaded with dlopen(RTLD_LOCAL), such as NumPy's and SciPy's,
 * possibly after the program started).  Never the shim itself.
 * TSSHIM_VERBOSE>=2 names the library that serves it, once, and says when
 * its definition is protected (its own LAPACK's calls never reach the
 * shim).  When no BLAS defines it the process
 * cannot run: one line says how to fix it and the process exits with status
 * 127. */
ts_gemm_fn ts_cpu_gemm_resolve(ts_routine r);

/* Whether a CPU BLAS is in the process now (dgemm_, found as above): a
 * program without one (a shell, a tool run under an exported LD_PRELOAD)
 * has no call to start the GPU for. */
int ts_cpu_blas_linked(void);

/* The routine r of the CPU BLAS, looked up as ts_cpu_gemm_resolve does but
 * neither kept nor fatal: NULL when no BLAS defines it (tsshim-doctor). */
void *ts_cpu_blas_find(ts_routine r);

/* Each routine once resolved: a forwarded call costs one load here.  A
 * CBLAS routine is kept in the same slot and cast back to its own type
 * before it is called (ts_forward_cblas). */
extern _Atomic(ts_gemm_fn) ts_cpu_resolved[TS_NROUTINE];

static inline ts_gemm_fn ts_cpu_gemm(ts_routine r)
{
    ts_gemm_fn fn = atomic_load_explicit(&ts_cpu_resolved[r], memory_order_acquire);
    return fn ? fn : ts_cpu_gemm_resolve(r);
}

#endif
