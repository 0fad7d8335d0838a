/* The SYRK, HERK, TRSM, SYMM, HEMM, TRMM, SYR2K and HER2K entry points' forwarding check
 * (shim/level3_adapters.h: assembly on x86-64, Fortran and CBLAS) against
 * its C definition, ts_gate_lane_cpu, and against the expected answer per
 * case, as tests/test_forward_entry does for the GEMMs.  The "CPU BLAS" is
 * recorders: the one in the open lane (the entry's jump) and the resolved
 * routine (what the full path forwards to), so the path a call took is
 * seen, the stack arguments are checked to arrive untouched, and no real
 * BLAS runs. */
#include <limits.h>
#include <string.h>

#include "cpu/cpu_blas.h"
#include "forward_gate.h"
#include "level3_api.h"

static int jumped, forwarded;
static const void *seen; /* the last pointer argument, or the matrix a CBLAS call writes */
static int seen_ld;      /* a CBLAS call's last argument */

#define SYRK_F77 const char *u, const char *t, const int *n, const int *k, const void *al, const void *a, \
                 const int *lda, const void *be, void *c, const int *ldc, size_t l1, size_t l2
#define TRSM_F77 const char *sd, const char *u, const char *t, const char *d, const int *m, const int *n,  \
                 const void *al, const void *a, const int *lda, void *b, const int *ldb, size_t l1, size_t l2, \
                 size_t l3, size_t l4

static int *counter(int lane) { return lane ? &jumped : &forwarded; }

#define REC_SYRK_F77(name, lane) \
    static void name(SYRK_F77) \
    { \
        (void)u, (void)t, (void)n, (void)k, (void)al, (void)a, (void)lda, (void)be, (void)c, (void)l1, (void)l2; \
        ++*counter(lane); \
        seen = ldc; \
    }
#define REC_TRSM_F77(name, lane) \
    static void name(TRSM_F77) \
    { \
        (void)sd, (void)u, (void)t, (void)d, (void)m, (void)n, (void)al, (void)a, (void)lda, (void)b; \
        (void)l1, (void)l2, (void)l3, (void)l4; \
        ++*counter(lane); \
        seen = ldb; \
    }
#define REC_SYRK_CBLAS(name, scalar, lane) \
    static void name(int lo, int u, int t, int n, int k, scalar al, const void *a, int lda, scalar be, void *c, int ldc) \
    { \
        (void)lo, (void)u, (void)t, (void)n, (void)k, (void)al, (void)a, (void)lda, (void)be; \
        ++*counter(lane); \
        seen = c, seen_ld = ldc; \
    }
#define REC_TRSM_CBLAS(name, scalar, lane) \
    static void name(int lo, int sd, int u, int t, int d, int m, int n, scalar al, const void *a, int lda, void *b, \
                     int ldb) \
    { \
        (void)lo, (void)sd, (void)u, (void)t, (void)d, (void)m, (void)n, (void)al, (void)a, (void)lda; \
        ++*counter(lane); \
        seen = b, seen_ld = ldb; \
    }
#define SYMM_F77 const char *sd, const char *u, const int *m, const int *n, const void *al, const void *a, \
                 const int *lda, const void *b, const int *ldb, const void *be, void *c, const int *ldc, size_t l1, \
                 size_t l2
/* SYMM's and HEMM's, and SYR2K's and HER2K's (the same types). */
#define REC_SYMM_F77(name, lane) \
    static void name(SYMM_F77) \
    { \
        (void)sd, (void)u, (void)m, (void)n, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be, (void)c; \
        (void)l1, (void)l2; \
        ++*counter(lane); \
        seen = ldc; \
    }
/* CBLAS SYMM, HEMM, SYR2K (alpha and beta of type scalar), HER2K (alpha by
 * address, beta of type beta_t). */
#define REC_SYMM_CBLAS(name, scalar, beta_t, lane) \
    static void name(int lo, int sd, int u, int m, int n, scalar al, const void *a, int lda, const void *b, int ldb, \
                     beta_t be, void *c, int ldc) \
    { \
        (void)lo, (void)sd, (void)u, (void)m, (void)n, (void)al, (void)a, (void)lda, (void)b, (void)ldb, (void)be; \
        ++*counter(lane); \
        seen = c, seen_ld = ldc; \
    }
REC_SYMM_F77(lane_symm, 1)
REC_SYMM_F77(resolved_symm, 0)
REC_SYMM_CBLAS(lane_symm_s, float, float, 1)
REC_SYMM_CBLAS(lane_symm_d, double, double, 1)
REC_SYMM_CBLAS(lane_symm_z, const void *, const void *, 1)
REC_SYMM_CBLAS(lane_her2k_c, const void *, float, 1)
REC_SYMM_CBLAS(lane_her2k_z, const void *, double, 1)
REC_SYMM_CBLAS(resolved_symm_s, float, float, 0)
REC_SYMM_CBLAS(resolved_symm_d, double, double, 0)
REC_SYMM_CBLAS(resolved_symm_z, const void *, const void *, 0)
REC_SYMM_CBLAS(resolved_her2k_c, const void *, float, 0)
REC_SYMM_CBLAS(resolved_her2k_z, const void *, double, 0)
REC_SYRK_F77(lane_syrk, 1)
REC_SYRK_F77(resolved_syrk, 0)
REC_TRSM_F77(lane_trsm, 1)
REC_TRSM_F77(resolved_trsm, 0)
REC_SYRK_CBLAS(lane_syrk_s, float, 1)
REC_SYRK_CBLAS(lane_syrk_d, double, 1)
REC_SYRK_CBLAS(lane_syrk_z, const void *, 1)
REC_SYRK_CBLAS(resolved_syrk_s, float, 0)
REC_SYRK_CBLAS(resolved_syrk_d, double, 0)
REC_SYRK_CBLAS(resolved_syrk_z, const void *, 0)
REC_TRSM_CBLAS(lane_trsm_s, float, 1)
REC_TRSM_CBLAS(lane_trsm_d, double, 1)
REC_TRSM_CBLAS(lane_trsm_z, const void *, 1)
REC_TRSM_CBLAS(resolved_trsm_s, float, 0)
REC_TRSM_CBLAS(resolved_trsm_d, double, 0)
REC_TRSM_CBLAS(resolved_trsm_z, const void *, 0)

/* The routines of this test: the rows from ssyrk_ to cblas_zher2k, and
 * SciPy's (scipy_ssyrk_ to scipy_cblas_zher2k), the same offsets apart. */
enum { FIRST = TS_R_ssyrk_, LAST = TS_R_cblas_zher2k, SCIPY = TS_R_scipy_sgemm_ - TS_R_sgemm_ };
_Static_assert(TS_R_scipy_cblas_zher2k - TS_R_scipy_ssyrk_ == LAST - FIRST, "the same rows in both blocks");

/* The routines tested, in order: -1 after the last. */
static int next_routine(int r)
{
    if (r < FIRST)
        return FIRST;
    if (r == LAST)
        return FIRST + SCIPY;
    return r == LAST + SCIPY ? -1 : r + 1;
}

static ts_gemm_fn fn(void (*f)(void)) { return (ts_gemm_fn)f; }
#define FN(f) fn((void (*)(void))(f))

/* The recorders of routine r: in its lane (lane = 1) or as its resolved CPU routine. */
static ts_gemm_fn symm_recorder(ts_routine r, int lane)
{
    if (ts_routine_abi(r) == TS_ABI_F77)
        return lane ? FN(lane_symm) : FN(resolved_symm);
    if (ts_routine_args(r) == TS_ARGS_HER2K)
        return ts_routine_prec(r) == TS_C ? (lane ? FN(lane_her2k_c) : FN(resolved_her2k_c))
                                          : (lane ? FN(lane_her2k_z) : FN(resolved_her2k_z));
    switch (ts_routine_scalar_prec(r)) {
    case TS_S: return lane ? FN(lane_symm_s) : FN(resolved_symm_s);
    case TS_D: return lane ? FN(lane_symm_d) : FN(resolved_symm_d);
    default: return lane ? FN(lane_symm_z) : FN(resolved_symm_z);
    }
}

static ts_gemm_fn recorder(ts_routine r, int lane)
{
    ts_args kind = ts_routine_args(r);
    if (kind == TS_ARGS_SYMM || kind == TS_ARGS_HEMM || kind == TS_ARGS_SYR2K || kind == TS_ARGS_HER2K)
        return symm_recorder(r, lane);
    int trsm = kind == TS_ARGS_TRSM || kind == TS_ARGS_TRMM;
    if (ts_routine_abi(r) == TS_ABI_F77)
        return trsm ? (lane ? FN(lane_trsm) : FN(resolved_trsm)) : (lane ? FN(lane_syrk) : FN(resolved_syrk));
    switch (ts_routine_scalar_prec(r)) {
    case TS_S: return trsm ? (lane ? FN(lane_trsm_s) : FN(resolved_trsm_s)) : (lane ? FN(lane_syrk_s) : FN(resolved_syrk_s));
    case TS_D: return trsm ? (lane ? FN(lane_trsm_d) : FN(resolved_trsm_d)) : (lane ? FN(lane_syrk_d) : FN(resolved_syrk_d));
    default: return trsm ? (lane ? FN(lane_trsm_z) : FN(resolved_trsm_z)) : (lane ? FN(lane_syrk_z) : FN(resolved_syrk_z));
    }
}

/* C (or B) of the full path's scaling cases: 8 x 8 complex at most. */
static double cmat[2 * 64];

typedef struct {
    int d1, d2;        /* SYRK, HERK: n, k; TRSM: m, n */
    char side;         /* TRSM: 'L', 'l' or 'R' */
    const void *alpha; /* in the routine's scalar precision */
} l3_case;

/* The entry points of the routines with prefix P (none, or SciPy's scipy_). */
LEVEL3_API(scipy_)
#define CALLS(P)                                                                                                  \
    case TS_R_##P##ssyrk_: P##ssyrk_("U", "N", &d1, &d2, al, cmat, &ld, beta, cmat, &ld, 1, 1); break;            \
    case TS_R_##P##dsyrk_: P##dsyrk_("U", "N", &d1, &d2, al, cmat, &ld, beta, cmat, &ld, 1, 1); break;            \
    case TS_R_##P##csyrk_: P##csyrk_("U", "N", &d1, &d2, al, cmat, &ld, beta, cmat, &ld, 1, 1); break;            \
    case TS_R_##P##zsyrk_: P##zsyrk_("U", "N", &d1, &d2, al, cmat, &ld, beta, cmat, &ld, 1, 1); break;            \
    case TS_R_##P##cherk_: P##cherk_("U", "N", &d1, &d2, al, cmat, &ld, beta, cmat, &ld, 1, 1); break;            \
    case TS_R_##P##zherk_: P##zherk_("U", "N", &d1, &d2, al, cmat, &ld, beta, cmat, &ld, 1, 1); break;            \
    case TS_R_##P##strsm_: P##strsm_(side, "U", "N", "N", &d1, &d2, al, cmat, &ld, cmat, &ld, 1, 1, 1, 1); break; \
    case TS_R_##P##dtrsm_: P##dtrsm_(side, "U", "N", "N", &d1, &d2, al, cmat, &ld, cmat, &ld, 1, 1, 1, 1); break; \
    case TS_R_##P##ctrsm_: P##ctrsm_(side, "U", "N", "N", &d1, &d2, al, cmat, &ld, cmat, &ld, 1, 1, 1, 1); break; \
    case TS_R_##P##ztrsm_: P##ztrsm_(side, "U", "N", "N", &d1, &d2, al, cmat, &ld, cmat, &ld, 1, 1, 1, 1); break; \
    case TS_R_##P##cblas_ssyrk: P##cblas_ssyrk(102, 121, 111, d1, d2, fa, cmat, ld, 0.0f, cmat, ld); break;       \
    case TS_R_##P##cblas_dsyrk: P##cblas_dsyrk(102, 121, 111, d1, d2, da, cmat, ld, 0.0, cmat, ld); break;        \
    case TS_R_##P##cblas_csyrk: P##cblas_csyrk(102, 121, 111, d1, d2, al, cmat, ld, beta, cmat, ld); break;       \
    case TS_R_##P##cblas_zsyrk: P##cblas_zsyrk(102, 121, 111, d1, d2, al, cmat, ld, beta, cmat, ld); break;       \
    case TS_R_##P##cblas_cherk: P##cblas_cherk(102, 121, 111, d1, d2, fa, cmat, ld, 0.0f, cmat, ld); break;       \
    case TS_R_##P##cblas_zherk: P##cblas_zherk(102, 121, 111, d1, d2, da, cmat, ld, 0.0, cmat, ld); break;        \
    case TS_R_##P##cblas_strsm: P##cblas_strsm(102, left, 121, 111, 131, d1, d2, fa, cmat, ld, cmat, ld); break;  \
    case TS_R_##P##cblas_dtrsm: P##cblas_dtrsm(102, left, 121, 111, 131, d1, d2, da, cmat, ld, cmat, ld); break;  \
    case TS_R_##P##cblas_ctrsm: P##cblas_ctrsm(102, left, 121, 111, 131, d1, d2, al, cmat, ld, cmat, ld); break;  \
    case TS_R_##P##cblas_ztrsm: P##cblas_ztrsm(102, left, 121, 111, 131, d1, d2, al, cmat, ld, cmat, ld); break;  \
    MORE_CALLS(P)
/* SYMM, HEMM, TRMM, SYR2K, HER2K: SYMM's side, SYR2K's n k. */
#define SYMM_CALL(f) f(side, "U", &d1, &d2, al, cmat, &ld, cmat, &ld, beta, cmat, &ld, 1, 1)
#define SYR2K_CALL(f) f("U", "N", &d1, &d2, al, cmat, &ld, cmat, &ld, beta, cmat, &ld, 1, 1)
#define TRMM_CALL(f) f(side, "U", "N", "N", &d1, &d2, al, cmat, &ld, cmat, &ld, 1, 1, 1, 1)
#define MORE_CALLS(P)                                                                                              \
    case TS_R_##P##ssymm_: SYMM_CALL(P##ssymm_); break;                                                          \
    case TS_R_##P##dsymm_: SYMM_CALL(P##dsymm_); break;                                                          \
    case TS_R_##P##csymm_: SYMM_CALL(P##csymm_); break;                                                          \
    case TS_R_##P##zsymm_: SYMM_CALL(P##zsymm_); break;                                                          \
    case TS_R_##P##chemm_: SYMM_CALL(P##chemm_); break;                                                          \
    case TS_R_##P##zhemm_: SYMM_CALL(P##zhemm_); break;                                                          \
    case TS_R_##P##strmm_: TRMM_CALL(P##strmm_); break;                                                          \
    case TS_R_##P##dtrmm_: TRMM_CALL(P##dtrmm_); break;                                                          \
    case TS_R_##P##ctrmm_: TRMM_CALL(P##ctrmm_); break;                                                          \
    case TS_R_##P##ztrmm_: TRMM_CALL(P##ztrmm_); break;                                                          \
    case TS_R_##P##ssyr2k_: SYR2K_CALL(P##ssyr2k_); break;                                                       \
    case TS_R_##P##dsyr2k_: SYR2K_CALL(P##dsyr2k_); break;                                                       \
    case TS_R_##P##csyr2k_: SYR2K_CALL(P##csyr2k_); break;                                                       \
    case TS_R_##P##zsyr2k_: SYR2K_CALL(P##zsyr2k_); break;                                                       \
    case TS_R_##P##cher2k_: SYR2K_CALL(P##cher2k_); break;                                                       \
    case TS_R_##P##zher2k_: SYR2K_CALL(P##zher2k_); break;                                                       \
    case TS_R_##P##cblas_ssymm: P##cblas_ssymm(102, left, 121, d1, d2, fa, cmat, ld, cmat, ld, 0.0f, cmat, ld); break; \
    case TS_R_##P##cblas_dsymm: P##cblas_dsymm(102, left, 121, d1, d2, da, cmat, ld, cmat, ld, 0.0, cmat, ld); break;  \
    case TS_R_##P##cblas_csymm: P##cblas_csymm(102, left, 121, d1, d2, al, cmat, ld, cmat, ld, beta, cmat, ld); break; \
    case TS_R_##P##cblas_zsymm: P##cblas_zsymm(102, left, 121, d1, d2, al, cmat, ld, cmat, ld, beta, cmat, ld); break; \
    case TS_R_##P##cblas_chemm: P##cblas_chemm(102, left, 121, d1, d2, al, cmat, ld, cmat, ld, beta, cmat, ld); break; \
    case TS_R_##P##cblas_zhemm: P##cblas_zhemm(102, left, 121, d1, d2, al, cmat, ld, cmat, ld, beta, cmat, ld); break; \
    case TS_R_##P##cblas_strmm: P##cblas_strmm(102, left, 121, 111, 131, d1, d2, fa, cmat, ld, cmat, ld); break;   \
    case TS_R_##P##cblas_dtrmm: P##cblas_dtrmm(102, left, 121, 111, 131, d1, d2, da, cmat, ld, cmat, ld); break;   \
    case TS_R_##P##cblas_ctrmm: P##cblas_ctrmm(102, left, 121, 111, 131, d1, d2, al, cmat, ld, cmat, ld); break;   \
    case TS_R_##P##cblas_ztrmm: P##cblas_ztrmm(102, left, 121, 111, 131, d1, d2, al, cmat, ld, cmat, ld); break;   \
    case TS_R_##P##cblas_ssyr2k: P##cblas_ssyr2k(102, 121, 111, d1, d2, fa, cmat, ld, cmat, ld, 0.0f, cmat, ld); break; \
    case TS_R_##P##cblas_dsyr2k: P##cblas_dsyr2k(102, 121, 111, d1, d2, da, cmat, ld, cmat, ld, 0.0, cmat, ld); break; \
    case TS_R_##P##cblas_csyr2k: P##cblas_csyr2k(102, 121, 111, d1, d2, al, cmat, ld, cmat, ld, beta, cmat, ld); break; \
    case TS_R_##P##cblas_zsyr2k: P##cblas_zsyr2k(102, 121, 111, d1, d2, al, cmat, ld, cmat, ld, beta, cmat, ld); break; \
    case TS_R_##P##cblas_cher2k: P##cblas_cher2k(102, 121, 111, d1, d2, al, cmat, ld, cmat, ld, 0.0f, cmat, ld); break; \
    case TS_R_##P##cblas_zher2k: P##cblas_zher2k(102, 121, 111, d1, d2, al, cmat, ld, cmat, ld, 0.0, cmat, ld); break;

/* Calls routine r's entry point: 1 when it jumped to the lane (the stack
 * arguments arriving untouched), 0 when the full path ran, -1 otherwise. */
static int entry_jumps(ts_routine r, const l3_case *cs)
{
    static const double beta[2] = { 0.0, 0.0 };
    const void *al = cs->alpha;
    int d1 = cs->d1, d2 = cs->d2, ld = 8;
    char side[2] = { cs->side, 0 };
    jumped = forwarded = 0;
    seen = NULL, seen_ld = -1;
    atomic_store(&ts_lanes[r]->cpu, recorder(r, 1));
    const void *want = &ld;
    int cblas = ts_routine_abi(r) == TS_ABI_CBLAS, left = cs->side == 'L' || cs->side == 'l' ? 141 : 142;
    float fa = *(const float *)al;
    double da = *(const double *)al;
    switch (r) {
        CALLS()
        CALLS(scipy_)
    default: return -1;
    }
    if (jumped == 1 && forwarded == 0)
        return (cblas ? seen == cmat && seen_ld == ld : seen == want) ? 1 : -1;
    return jumped == 0 ? 0 : -1;
}

/* ts_gate_lane_cpu with the adapters' dimensions: SYRK and SYR2K n n k,
 * TRSM, TRMM and SYMM m n and the order of their side. */
static int c_check_jumps(ts_routine r, const l3_case *cs)
{
    int d1 = cs->d1, d2 = cs->d2;
    atomic_store(&ts_lanes[r]->cpu, recorder(r, 1));
    if (ts_routine_side_shaped(r))
        return ts_gate_lane_cpu(r, &d1, &d2, cs->side == 'L' || cs->side == 'l' ? &d1 : &d2, cs->alpha) ==
               recorder(r, 1);
    return ts_gate_lane_cpu(r, &d1, &d1, &d2, cs->alpha) == recorder(r, 1);
}

/* Small calls' paths: TRSM alone, and TRSM's plus CBLAS SYRK's. */
static const l3_case small = { 8, 8, 'L', one };
static int small_trsm_jumps(void) { return entry_jumps(TS_R_dtrsm_, &small); }
static int small_trsm_syrk_jumps(void) { return small_trsm_jumps() + entry_jumps(TS_R_cblas_dsyrk, &small); }

int main(void)
{
    if (!fg_gate_armed())
        return tap_done();
    for (int r = FIRST; r >= 0; r = next_routine(r))
        atomic_store(&ts_cpu_resolved[r], recorder((ts_routine)r, 0));

    /* The first forwarded call opens its lane, when the loader watch vouches. */
    int eight = 8;
    dsyrk_("U", "N", &eight, &eight, one, cmat, &eight, one, cmat, &eight, 1, 1);
    if (!fg_first_call_opens(forwarded, atomic_load(&ts_lanes[TS_R_dsyrk_]->cpu), recorder(TS_R_dsyrk_, 0)))
        return tap_done();

    static const int max = INT_MAX;
    int ok = 1, cases = 0;
    for (int r = FIRST; r >= 0; r = next_routine(r)) {
        ts_routine rt = (ts_routine)r;
        ts_prec sp = ts_routine_scalar_prec(rt);
        int single = sp == TS_S || sp == TS_C, complex = ts_prec_is_complex(sp), side = ts_routine_side_shaped(rt);
        const void *one_p = single ? (const void *)one_s : one, *zero_p = single ? (const void *)zero_s : zero;
        const void *negzero_p = single ? (const void *)negzero_s : negzero, *imag_p = single ? (const void *)imag_s : imag;
        /* Dimensions where the triangle's side decides: m n n is above the
         * lane's bound, m m n below (side L). */
        int bound = (int)(ts_lanes[r]->mnk_below < INT_MAX ? ts_lanes[r]->mnk_below : INT_MAX);
        int wide = bound / 2 + 1;
        const struct {
            l3_case c;
            int jumps;
        } table[] = {
            { { 8, 8, 'L', one_p }, 1 },        { { 8, 8, 'R', one_p }, 1 },      { { 8, 8, 'l', one_p }, 1 },
            { { 8, 8, 'L', zero_p }, 0 },       { { 8, 8, 'L', negzero_p }, 0 },
            { { 8, 8, 'L', imag_p }, complex }, { { 8, 8, 'L', single ? (const void *)one_s : nan2 }, 1 },
            { { 0, 8, 'L', one_p }, 0 },        { { 8, 0, 'L', one_p }, 0 },      { { -1, 8, 'L', one_p }, 0 },
            { { 8, -1, 'L', one_p }, 0 },       { { max, max, 'L', one_p }, 0 },
            /* TRSM, TRMM, SYMM, HEMM: a 1 x wide B with the triangle or
             * symmetric matrix on the left (m n m = wide) or the right (m n n
             * = wide^2); SYRK, SYR2K: n n k = wide either way. */
            { { 1, wide, 'L', one_p }, 1 },     { { 1, wide, 'R', one_p }, !side }, { { 1, wide, 'l', one_p }, 1 },
        };
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
            int e = entry_jumps(rt, &table[i].c), cc = c_check_jumps(rt, &table[i].c);
            cases++;
            if (e != table[i].jumps || cc != table[i].jumps) {
                tap_diag("%s case %zu: entry %d, C check %d, expected %d", ts_routine_symbol(rt), i, e, cc,
                         table[i].jumps);
                ok = 0;
            }
        }
    }
    tap_ok(ok, "SYRK, HERK, TRSM, SYMM, HEMM, TRMM, SYR2K and HER2K entry points (Fortran and CBLAS) and the C check agree with the expected "
               "path on %d cases, stack arguments untouched", cases);

    fg_later_object(small_trsm_syrk_jumps, small_trsm_jumps);
    return tap_done();
}
