#include "host_scale.h"

/* One loop per element type; complex multiplies as the reference BLAS's
 * Fortran does, (br cr - bi ci, br ci + bi cr). */
#define SCALE_REAL(T)                                                              \
    do {                                                                           \
        T beta = *(const T *)c->beta;                                              \
        for (int64_t j = 0; j < c->n; j++) {                                       \
            T *col = (T *)c->c + j * c->ldc;                                       \
            for (int64_t i = 0; i < c->m; i++)                                     \
                col[i] = c->beta_zero ? (T)0 : beta * col[i];                      \
        }                                                                          \
    } while (0)

#define SCALE_COMPLEX(T)                                                           \
    do {                                                                           \
        const T *beta = (const T *)c->beta;                                        \
        for (int64_t j = 0; j < c->n; j++) {                                       \
            T *col = (T *)c->c + 2 * j * c->ldc;                                   \
            for (int64_t i = 0; i < c->m; i++) {                                   \
                T re = col[2 * i], im = col[2 * i + 1];                            \
                col[2 * i] = c->beta_zero ? (T)0 : beta[0] * re - beta[1] * im;    \
                col[2 * i + 1] = c->beta_zero ? (T)0 : beta[0] * im + beta[1] * re; \
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
