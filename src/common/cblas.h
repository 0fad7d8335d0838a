/* The C interface of BLAS (CBLAS) in one place: its enum constants, the
 * parameter lists of its level-3 routines, and the one way the shim calls
 * a CPU BLAS's CBLAS routine back with the arguments as received. */
#ifndef TS_CBLAS_H
#define TS_CBLAS_H

#include <stdint.h>

#include "common/routine_list.h"

/* CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_UPLO, CBLAS_DIAG, CBLAS_SIDE. */
enum {
    TS_CBLAS_ROW_MAJOR = 101,
    TS_CBLAS_COL_MAJOR = 102,
    TS_CBLAS_NO_TRANS = 111,
    TS_CBLAS_TRANS = 112,
    TS_CBLAS_CONJ_TRANS = 113,
    TS_CBLAS_UPPER = 121,
    TS_CBLAS_LOWER = 122,
    TS_CBLAS_NON_UNIT = 131,
    TS_CBLAS_UNIT = 132,
    TS_CBLAS_LEFT = 141,
    TS_CBLAS_RIGHT = 142
};

/* A CBLAS_TRANSPOSE as a BLAS letter; anything else is '?', which
 * validation refuses, so that the CPU BLAS's cblas_xerbla reports it. */
static inline char ts_cblas_trans(int t)
{
    return t == TS_CBLAS_NO_TRANS ? 'N' : t == TS_CBLAS_TRANS ? 'T' : t == TS_CBLAS_CONJ_TRANS ? 'C' : '?';
}

/* The parameter lists, with scalars of type S (float or double by value,
 * const void * for the complex ones, which come by address) and integers
 * of type I (int, or int64_t for CBLAS_64).  HERK is SYRK with real S. */
#define TS_CBLAS_GEMM_PARAMS(S, I) (int, int, int, I, I, I, S, const void *, I, const void *, I, S, void *, I)
#define TS_CBLAS_SYRK_PARAMS(S, I) (int, int, int, I, I, S, const void *, I, S, void *, I)
#define TS_CBLAS_TRSM_PARAMS(S, I) (int, int, int, int, int, I, I, S, const void *, I, void *, I)
#define TS_CBLAS_SYMM_PARAMS(S, I) (int, int, int, I, I, S, const void *, I, const void *, I, S, void *, I)
/* SYR2K's lists SYMM's types; HER2K's alpha is complex (by address), its beta
 * real (R). */
#define TS_CBLAS_SYR2K_PARAMS(S, I) TS_CBLAS_SYMM_PARAMS(S, I)
#define TS_CBLAS_HER2K_PARAMS(R, I) (int, int, int, I, I, const void *, const void *, I, const void *, I, R, void *, I)

/* A scalar the descriptor holds by address, as the routine takes it. */
#define TS_CBLAS_SCALAR_S(p) (*(const float *)(p))
#define TS_CBLAS_SCALAR_D(p) (*(const double *)(p))
#define TS_CBLAS_SCALAR_Z(p) (p)

/* Calls fn, the CPU BLAS's CBLAS routine of kind KIND (GEMM, SYRK, TRSM),
 * back in its own type: scalars of precision sp (ts_routine_scalar_prec),
 * 64-bit integers when ilp64.  ARGS(SCALAR) lists the arguments as received,
 * each scalar wrapped in SCALAR. */
#define TS_CBLAS_FORWARD(fn, sp, ilp64, KIND, ARGS)                                                     \
    do {                                                                                                \
        if (ilp64) {                                                                                    \
            TS_CBLAS_FORWARD_I(fn, sp, KIND, int64_t, ARGS)                                             \
        } else {                                                                                        \
            TS_CBLAS_FORWARD_I(fn, sp, KIND, int, ARGS)                                                 \
        }                                                                                               \
    } while (0)
#define TS_CBLAS_FORWARD_I(fn, sp, KIND, I, ARGS)                                                       \
    switch (sp) {                                                                                       \
    case TS_S: TS_CBLAS_AS(fn, KIND, float, I)(ARGS(TS_CBLAS_SCALAR_S)); break;                         \
    case TS_D: TS_CBLAS_AS(fn, KIND, double, I)(ARGS(TS_CBLAS_SCALAR_D)); break;                        \
    default: TS_CBLAS_AS(fn, KIND, const void *, I)(ARGS(TS_CBLAS_SCALAR_Z));                           \
    }
/* fn back in the type of its kind, through the generic function type. */
#define TS_CBLAS_AS(fn, KIND, S, I) ((void(*) TS_CBLAS_##KIND##_PARAMS(S, I))(void (*)(void))(fn))

#endif
