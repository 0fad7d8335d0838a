/* The exported entry points' forwarding check (shim/entry_points.c: hand
 * written on x86-64, for the Fortran and the CBLAS symbols) against its C
 * definition, ts_gate_lane_cpu, and
 * against the expected answer per case.  The test links the entry points
 * itself; the "CPU BLAS" is two recorders: the one in the open lane (the
 * entry's jump) and the resolved routine (what the full path forwards to),
 * so which path a call took is seen, and no real GEMM ever runs. */
#include <stdint.h>
#include <string.h>

#include "cblas_gemm.h"
#include "cpu/cpu_blas.h"
#include "forward_gate.h"

#define ARGS                                                                                             \
    const char *ta, const char *tb, const int *m, const int *n, const int *k, const void *al, const void *a, \
        const int *lda, const void *b, const int *ldb, const void *be, void *c, const int *ldc, size_t l1,   \
        size_t l2
void sgemm_(ARGS);
void dgemm_(ARGS);
void cgemm_(ARGS);
void zgemm_(ARGS);
static void (*const entry[TS_NPREC])(ARGS) = { sgemm_, dgemm_, cgemm_, zgemm_ };

static int jumped, forwarded;
static const int *seen_ldc;

static void lane_cpu(ARGS)
{
    (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be;
    (void)c, (void)l1, (void)l2;
    jumped++;
    seen_ldc = ldc; /* the stack arguments arrive untouched */
}

static void resolved_cpu(ARGS)
{
    (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be;
    (void)c, (void)ldc, (void)l1, (void)l2;
    forwarded++;
}

/* Recorders of the CBLAS entry points (one per scalar kind). */

static int seen_cblas_ldc;
static const void *seen_cblas_c;
static int *cblas_counter(int lane) { return lane ? &jumped : &forwarded; }
#define CBLAS_RECORDER(name, scalar, lane)                                                                    \
    static void name(int lo, int ta, int tb, int m, int n, int k, scalar al, const void *a, int lda, const void *b, \
                     int ldb, scalar be, void *c, int ldc)                                                      \
    {                                                                                                           \
        (void)lo, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)al, (void)a, (void)lda, (void)b;         \
        (void)ldb, (void)be;                                                                                    \
        ++*cblas_counter(lane);                                                                                 \
        seen_cblas_c = c; /* the stack arguments arrive untouched */                                            \
        seen_cblas_ldc = ldc;                                                                                   \
    }
CBLAS_RECORDER(lane_s, float, 1)
CBLAS_RECORDER(lane_d, double, 1)
CBLAS_RECORDER(lane_z, const void *, 1)
CBLAS_RECORDER(resolved_s, float, 0)
CBLAS_RECORDER(resolved_d, double, 0)
CBLAS_RECORDER(resolved_z, const void *, 0)

static ts_gemm_fn as_gemm_fn(void (*fn)(void)) { return (ts_gemm_fn)fn; }
static ts_gemm_fn cblas_lane(ts_prec p)
{
    return as_gemm_fn(p == TS_S ? (void (*)(void))lane_s : p == TS_D ? (void (*)(void))lane_d : (void (*)(void))lane_z);
}

static const ts_routine cblas_routine[TS_NPREC] = { TS_R_cblas_sgemm, TS_R_cblas_dgemm, TS_R_cblas_cgemm,
                                                    TS_R_cblas_zgemm };

/* C of the full path's scaling cases (alpha = 0, k = 0): 8 x 8 at most. */
static double cmat[2 * 64];

/* Calls the entry point; returns 1 when it jumped straight to the lane's
 * routine, 0 when the full path ran (and forwarded or did the call itself),
 * -1 when neither or both happened. */
static int entry_jumps(ts_prec p, int m, int n, int k, const double *alpha, int ld)
{
    const double beta[2] = { 0.0, 0.0 };
    double a[2] = { 0 }, b[2] = { 0 };
    jumped = forwarded = 0;
    seen_ldc = NULL;
    atomic_store(&ts_lanes[p]->cpu, lane_cpu);
    entry[p]("N", "N", &m, &n, &k, alpha, a, &ld, b, &ld, beta, cmat, &ld, 1, 1);
    if (jumped == 1 && forwarded == 0)
        return seen_ldc == &ld ? 1 : -1;
    return jumped == 0 ? 0 : -1;
}

/* entry_jumps for the CBLAS symbol of precision p (column-major). */
static int cblas_entry_jumps(ts_prec p, int m, int n, int k, const void *alpha, int ld)
{
    static const double beta[2] = { 0.0, 0.0 };
    double a[2] = { 0 }, b[2] = { 0 };
    jumped = forwarded = 0;
    seen_cblas_ldc = -1;
    seen_cblas_c = NULL;
    atomic_store(&ts_lanes[cblas_routine[p]]->cpu, cblas_lane(p));
    const int col = CBLAS_COL, no = CBLAS_NO_TRANS;
    switch (p) {
    case TS_S: cblas_sgemm(col, no, no, m, n, k, *(const float *)alpha, a, ld, b, ld, 0.0f, cmat, ld); break;
    case TS_D: cblas_dgemm(col, no, no, m, n, k, *(const double *)alpha, a, ld, b, ld, 0.0, cmat, ld); break;
    case TS_C: cblas_cgemm(col, no, no, m, n, k, alpha, a, ld, b, ld, beta, cmat, ld); break;
    default: cblas_zgemm(col, no, no, m, n, k, alpha, a, ld, b, ld, beta, cmat, ld); break;
    }
    if (jumped == 1 && forwarded == 0)
        return seen_cblas_ldc == ld && seen_cblas_c == cmat ? 1 : -1;
    return jumped == 0 ? 0 : -1;
}

/* A small DGEMM's path. */
static int small_dgemm_jumps(void) { return entry_jumps(TS_D, 8, 8, 8, one, 8); }

int main(void)
{
    if (!fg_gate_armed())
        return tap_done();
    for (int p = 0; p < TS_NPREC; p++) {
        atomic_store(&ts_cpu_resolved[p], resolved_cpu);
        atomic_store(&ts_cpu_resolved[cblas_routine[p]],
                     as_gemm_fn(p == TS_S   ? (void (*)(void))resolved_s
                                : p == TS_D ? (void (*)(void))resolved_d
                                            : (void (*)(void))resolved_z));
    }

    /* The first forwarded call opens its lane, when the loader watch vouches. */
    int eight = 8;
    dgemm_("N", "N", &eight, &eight, &eight, one, cmat, &eight, cmat, &eight, one, cmat, &eight, 1, 1);
    if (!fg_first_call_opens(forwarded, atomic_load(&ts_lanes[TS_D]->cpu), resolved_cpu))
        return tap_done();

    const int bound = (int)ts_lanes[TS_D]->mnk_below;
    static const int big = 1 << 21, max = 0x7fffffff;
    const struct {
        ts_prec p;
        int m, n, k;
        const void *alpha;
        int ld, jumps;
    } cases[] = {
        { TS_S, 8, 8, 8, one_s, 8, 1 },       { TS_D, 8, 8, 8, one, 8, 1 },
        { TS_C, 8, 8, 8, one_s, 8, 1 },       { TS_Z, 8, 8, 8, one, 8, 1 },
        { TS_S, 8, 8, 8, zero_s, 8, 0 },      { TS_S, 8, 8, 8, negzero_s, 8, 0 },
        { TS_D, 8, 8, 8, zero, 8, 0 },        { TS_D, 8, 8, 8, negzero, 8, 0 },
        { TS_D, 8, 8, 8, nan2, 8, 1 },        { TS_C, 8, 8, 8, zero_s, 8, 0 },
        { TS_C, 8, 8, 8, negzero_s, 8, 0 },   { TS_C, 8, 8, 8, imag_s, 8, 1 },
        { TS_Z, 8, 8, 8, zero, 8, 0 },        { TS_Z, 8, 8, 8, negzero, 8, 0 },
        { TS_Z, 8, 8, 8, imag, 8, 1 },        { TS_D, 8, 8, 0, one, 8, 0 },
        { TS_D, 0, 8, 8, one, 8, 0 },         { TS_D, 8, 0, 8, one, 8, 0 },
        { TS_D, -1, 8, 8, one, 8, 0 },        { TS_D, 8, 8, -1, one, 8, 0 },
        /* invalid lda: the CPU BLAS reports it, whichever path forwards */
        { TS_D, bound - 1, 1, 1, one, 0, 1 }, { TS_D, bound, 1, 1, one, 0, 0 },
        { TS_D, 1, bound, 1, one, 0, 0 },     { TS_D, 1, 1, bound, one, 0, 0 },
        { TS_D, 4096, 4096, 4096, one, 0, 0 }, { TS_D, big, big, big, one, 0, 0 },
        { TS_D, max, max, max, one, 0, 0 },
    };
    int ok = 1, cblas_ok = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ts_prec p = cases[i].p;
        int m = cases[i].m, n = cases[i].n, k = cases[i].k;
        atomic_store(&ts_lanes[p]->cpu, lane_cpu);
        int c_jumps = ts_gate_lane_cpu(ts_gemm_routine(p), &m, &n, &k, cases[i].alpha) == lane_cpu;
        int jumps = entry_jumps(p, m, n, k, cases[i].alpha, cases[i].ld);
        if (jumps != cases[i].jumps || c_jumps != cases[i].jumps) {
            tap_diag("case %zu: entry %d, C check %d, expected %d", i, jumps, c_jumps, cases[i].jumps);
            ok = 0;
        }
        /* A CBLAS call with an invalid lda (0) is forwarded too, but here
         * only where the lane takes it: the full path would validate it. */
        int cblas_jumps = cblas_entry_jumps(p, m, n, k, cases[i].alpha, cases[i].ld);
        if (cblas_jumps != cases[i].jumps && !(cases[i].ld == 0 && cblas_jumps == 0)) {
            tap_diag("case %zu: cblas entry %d, expected %d", i, cblas_jumps, cases[i].jumps);
            cblas_ok = 0;
        }
    }
    tap_ok(ok, "entry point and C check agree with the expected path on %zu cases", sizeof cases / sizeof cases[0]);
    tap_ok(cblas_ok, "the CBLAS entry points take the same path on the same %zu cases",
           sizeof cases / sizeof cases[0]);

    /* Where no flop bound applies (mode cpu), only an overflowing m n k
     * takes the full path: the check must not wrap. */
    int64_t saved_bound = ts_lanes[TS_D]->mnk_below;
    ts_lanes[TS_D]->mnk_below = INT64_MAX;
    tap_ok(entry_jumps(TS_D, big, big, 2, one, 0) == 1 && entry_jumps(TS_D, max, max, 2, one, 0) == 1 &&
               entry_jumps(TS_D, big, big, big, one, 0) == 0 && entry_jumps(TS_D, max, max, 3, one, 0) == 0,
           "m n k up to 2^63 - 1 passes an unbounded lane, an overflowing product does not");
    ts_lanes[TS_D]->mnk_below = saved_bound;

    fg_later_object(small_dgemm_jumps, small_dgemm_jumps);
    return tap_done();
}
