#include "cpu/host_scale.h"

#include "common/scalars.h"

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

/* G's pairs (i, j) and (j, i), i <= j, as X = G + G^T, or for HER2K as
 * X = alpha G + conj(alpha G)^T (whose update is then C = 1 X + beta C). */
#define PAIR_REAL(T)                                                               \
    do {                                                                           \
        T *x = g;                                                                  \
        for (int64_t j = 0; j < n; j++)                                            \
            for (int64_t i = 0; i <= j; i++) {                                     \
                T s = x[i + j * ldg] + x[j + i * ldg];                             \
                x[i + j * ldg] = x[j + i * ldg] = s;                               \
            }                                                                      \
    } while (0)

#define PAIR_COMPLEX(T)                                                            \
    do {                                                                           \
        T *x = g;                                                                  \
        const T *al = (const T *)c->alpha;                                         \
        for (int64_t j = 0; j < n; j++)                                            \
            for (int64_t i = 0; i <= j; i++) {                                     \
                T *p = x + 2 * (i + j * ldg), *q = x + 2 * (j + i * ldg);          \
                T pr = p[0], pi = p[1], qr = q[0], qi = q[1];                      \
                if (!her2k) {                                                      \
                    p[0] = q[0] = pr + qr;                                         \
                    p[1] = q[1] = pi + qi;                                         \
                    continue;                                                      \
                }                                                                  \
                T ar = al[0] * pr - al[1] * pi, ai = al[0] * pi + al[1] * pr;      \
                T br = al[0] * qr - al[1] * qi, bi = al[0] * qi + al[1] * qr;      \
                p[0] = ar + br, p[1] = ai - bi;                                    \
                q[0] = br + ar, q[1] = bi - ai;                                    \
            }                                                                      \
    } while (0)

void ts_host_update_gram(const ts_call *c, void *g, int64_t ldg)
{
    ts_args kind = ts_routine_args(c->routine);
    const int64_t n = c->n;
    const int her2k = kind == TS_ARGS_HER2K;
    if (kind == TS_ARGS_SYR2K || her2k) {
        switch (c->prec) {
        case TS_S: PAIR_REAL(float); break;
        case TS_D: PAIR_REAL(double); break;
        case TS_C: PAIR_COMPLEX(float); break;
        default: PAIR_COMPLEX(double); break;
        }
    }
    if (!her2k) {
        ts_host_update(c, g, ldg);
        return;
    }
    ts_call unit = *c;
    unit.alpha = ts_scalar_one(c->prec);
    ts_host_update(&unit, g, ldg);
}

/* Element (i, j) of the full matrix from the stored triangle: the mirror
 * of (j, i) across the diagonal, conjugated for HEMM, whose diagonal is
 * real (its imaginary parts are not read). */
#define FULL(T, PARTS)                                                             \
    do {                                                                           \
        const T *a = (const T *)c->a;                                              \
        T *f = full;                                                               \
        for (int64_t j = 0; j < k; j++)                                            \
            for (int64_t i = 0; i < k; i++) {                                      \
                int stored = c->uplo == 'U' ? i <= j : i >= j;                     \
                const T *s = a + PARTS * (stored ? i + j * c->lda : j + i * c->lda); \
                T *d = f + PARTS * (i + j * k);                                    \
                d[0] = s[0];                                                       \
                if (PARTS == 2)                                                    \
                    d[1] = hemm && i == j ? (T)0 : hemm && !stored ? -s[1] : s[1]; \
            }                                                                      \
    } while (0)

void ts_host_full_symmetric(const ts_call *c, void *full)
{
    const int64_t k = c->k;
    const int hemm = ts_routine_args(c->routine) == TS_ARGS_HEMM;
    switch (c->prec) {
    case TS_S: FULL(float, 1); break;
    case TS_D: FULL(double, 1); break;
    case TS_C: FULL(float, 2); break;
    default: FULL(double, 2); break;
    }
}
