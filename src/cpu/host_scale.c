#include "cpu/host_scale.h"

/* Rows first and last + 1 of column j that the call updates: SYRK, HERK,
 * SYR2K and HER2K only their triangle (uplo), the others the whole column. */
static int triangle(const ts_call *c)
{
    ts_args k = ts_routine_args(c->routine);
    return k == TS_ARGS_SYRK || k == TS_ARGS_HERK || k == TS_ARGS_SYR2K || k == TS_ARGS_HER2K;
}
static int64_t first_row(const ts_call *c, int64_t j) { return triangle(c) && c->uplo == 'L' ? j : 0; }
static int64_t end_row(const ts_call *c, int64_t j) { return triangle(c) && c->uplo == 'U' ? j + 1 : c->m; }

/* C = alpha X + beta C, or C = beta C without X: one loop per element
 * type.  Complex numbers multiply as the reference BLAS's Fortran does,
 * (br cr - bi ci, br ci + bi cr), except the real beta of HERK and HER2K,
 * which scales each part, the diagonal kept real (and HERK's real alpha:
 * only a HERK's Gram matrix comes as X). */
#define UPDATE_REAL(T)                                                             \
    do {                                                                           \
        T alpha = *(const T *)c->alpha, beta = *(const T *)c->beta;                \
        for (int64_t j = 0; j < c->n; j++) {                                       \
            T *col = (T *)c->c + j * c->ldc;                                       \
            const T *xc = x ? (const T *)x + j * ldx : NULL;                       \
            for (int64_t i = first_row(c, j); i < end_row(c, j); i++) {            \
                T bc = c->beta_zero ? (T)0 : beta * col[i];                        \
                col[i] = xc ? alpha * xc[i] + bc : bc;                             \
            }                                                                      \
        }                                                                          \
    } while (0)

#define UPDATE_COMPLEX(T)                                                          \
    do {                                                                           \
        const T *alpha = (const T *)c->alpha, *beta = (const T *)c->beta;          \
        int herk = ts_routine_beta_prec(c->routine) != c->prec;                    \
        for (int64_t j = 0; j < c->n; j++) {                                       \
            T *col = (T *)c->c + 2 * j * c->ldc;                                   \
            const T *xc = x ? (const T *)x + 2 * j * ldx : NULL;                   \
            for (int64_t i = first_row(c, j); i < end_row(c, j); i++) {            \
                T re = col[2 * i], im = col[2 * i + 1], br = 0, bi = 0;            \
                if (!c->beta_zero && herk)                                         \
                    br = beta[0] * re, bi = beta[0] * im;                          \
                else if (!c->beta_zero)                                            \
                    br = beta[0] * re - beta[1] * im, bi = beta[0] * im + beta[1] * re; \
                if (xc && herk) {                                                  \
                    br = alpha[0] * xc[2 * i] + br;                                \
                    bi = alpha[0] * xc[2 * i + 1] + bi;                            \
                } else if (xc) {                                                   \
                    br = alpha[0] * xc[2 * i] - alpha[1] * xc[2 * i + 1] + br;     \
                    bi = alpha[0] * xc[2 * i + 1] + alpha[1] * xc[2 * i] + bi;     \
                }                                                                  \
                col[2 * i] = br;                                                   \
                col[2 * i + 1] = herk && i == j ? (T)0 : bi;                       \
            }                                                                      \
        }                                                                          \
    } while (0)

void ts_host_update(const ts_call *c, const void *x, int64_t ldx)
{
    switch (c->prec) {
    case TS_S: UPDATE_REAL(float); break;
    case TS_D: UPDATE_REAL(double); break;
    case TS_C: UPDATE_COMPLEX(float); break;
    default: UPDATE_COMPLEX(double); break;
    }
}
