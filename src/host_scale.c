#include "host_scale.h"

/* Rows first and last + 1 of column j that the call updates: SYRK and HERK
 * only their triangle (uplo), GEMM and TRSM the whole column. */
static int triangle(const ts_call *c)
{
    ts_args k = ts_routine_args(c->routine);
    return k == TS_ARGS_SYRK || k == TS_ARGS_HERK;
}
static int64_t first_row(const ts_call *c, int64_t j) { return triangle(c) && c->uplo == 'L' ? j : 0; }
static int64_t end_row(const ts_call *c, int64_t j) { return triangle(c) && c->uplo == 'U' ? j + 1 : c->m; }

/* One loop per element type; complex multiplies as the reference BLAS's
 * Fortran does, (br cr - bi ci, br ci + bi cr), except HERK's real beta,
 * which scales each part and leaves the diagonal real. */
#define SCALE_REAL(T)                                                              \
    do {                                                                           \
        T beta = *(const T *)c->beta;                                              \
        for (int64_t j = 0; j < c->n; j++) {                                       \
            T *col = (T *)c->c + j * c->ldc;                                       \
            for (int64_t i = first_row(c, j); i < end_row(c, j); i++)              \
                col[i] = c->beta_zero ? (T)0 : beta * col[i];                      \
        }                                                                          \
    } while (0)

#define SCALE_COMPLEX(T)                                                           \
    do {                                                                           \
        const T *beta = (const T *)c->beta;                                        \
        int herk = ts_routine_args(c->routine) == TS_ARGS_HERK;                    \
        for (int64_t j = 0; j < c->n; j++) {                                       \
            T *col = (T *)c->c + 2 * j * c->ldc;                                   \
            for (int64_t i = first_row(c, j); i < end_row(c, j); i++) {            \
                T re = col[2 * i], im = col[2 * i + 1];                            \
                if (c->beta_zero) {                                                \
                    col[2 * i] = col[2 * i + 1] = (T)0;                            \
                } else if (herk) {                                                 \
                    col[2 * i] = beta[0] * re;                                     \
                    col[2 * i + 1] = i == j ? (T)0 : beta[0] * im;                 \
                } else {                                                           \
                    col[2 * i] = beta[0] * re - beta[1] * im;                      \
                    col[2 * i + 1] = beta[0] * im + beta[1] * re;                  \
                }                                                                  \
            }                                                                      \
        }                                                                          \
    } while (0)

void ts_host_scale(const ts_call *c)
{
    switch (c->prec) {
    case TS_S: SCALE_REAL(float); break;
    case TS_D: SCALE_REAL(double); break;
    case TS_C: SCALE_COMPLEX(float); break;
    default: SCALE_COMPLEX(double); break;
    }
}
