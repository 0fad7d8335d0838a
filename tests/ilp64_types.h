/* The ILP64 routines' types (Fortran: 64-bit integers by address; CBLAS:
 * 64-bit dimensions, scalars by value for S and D, by address for C and Z),
 * for tests/test_forward_ilp64 and bench/bench_forward_ilp64. */
#ifndef TS_ILP64_TYPES_H
#define TS_ILP64_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t i64;
typedef void gemm_f(const char *, const char *, const i64 *, const i64 *, const i64 *, const void *, const void *,
                    const i64 *, const void *, const i64 *, const void *, void *, const i64 *, size_t, size_t);
typedef void syrk_f(const char *, const char *, const i64 *, const i64 *, const void *, const void *, const i64 *,
                    const void *, void *, const i64 *, size_t, size_t);
typedef void trsm_f(const char *, const char *, const char *, const char *, const i64 *, const i64 *, const void *,
                    const void *, const i64 *, void *, const i64 *, size_t, size_t, size_t, size_t);
typedef void cgemm_s(int, int, int, i64, i64, i64, float, const void *, i64, const void *, i64, float, void *, i64);
typedef void cgemm_d(int, int, int, i64, i64, i64, double, const void *, i64, const void *, i64, double, void *, i64);
typedef void cgemm_z(int, int, int, i64, i64, i64, const void *, const void *, i64, const void *, i64, const void *,
                     void *, i64);
typedef void csyrk_s(int, int, int, i64, i64, float, const void *, i64, float, void *, i64);
typedef void csyrk_d(int, int, int, i64, i64, double, const void *, i64, double, void *, i64);
typedef void csyrk_z(int, int, int, i64, i64, const void *, const void *, i64, const void *, void *, i64);
typedef void ctrsm_s(int, int, int, int, int, i64, i64, float, const void *, i64, void *, i64);
typedef void ctrsm_d(int, int, int, int, int, i64, i64, double, const void *, i64, void *, i64);
typedef void ctrsm_z(int, int, int, int, int, i64, i64, const void *, const void *, i64, void *, i64);
/* SYMM and HEMM; SYR2K and HER2K have the same types (HER2K's CBLAS beta
 * real: cher2k_s, cher2k_d). */
typedef void symm_f(const char *, const char *, const i64 *, const i64 *, const void *, const void *, const i64 *,
                    const void *, const i64 *, const void *, void *, const i64 *, size_t, size_t);
typedef void csymm_s(int, int, int, i64, i64, float, const void *, i64, const void *, i64, float, void *, i64);
typedef void csymm_d(int, int, int, i64, i64, double, const void *, i64, const void *, i64, double, void *, i64);
typedef void csymm_z(int, int, int, i64, i64, const void *, const void *, i64, const void *, i64, const void *, void *,
                     i64);
typedef void cher2k_s(int, int, int, i64, i64, const void *, const void *, i64, const void *, i64, float, void *, i64);
typedef void cher2k_d(int, int, int, i64, i64, const void *, const void *, i64, const void *, i64, double, void *,
                      i64);

#endif
