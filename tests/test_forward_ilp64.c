/* The ILP64 entry points' forwarding check (shim/entry_points.c and
 * shim/level3_adapters.h: assembly on x86-64 reading 64-bit integers)
 * against its C definition and the expected path, for every ILP64 row of
 * the routine list: a dimension with bits above the low 32 (2^32 + 8, which
 * a 32-bit read would take for 8) or a product past 2^63 must take the full
 * path.  The test links the entry points itself; the "CPU BLAS" is two
 * recorders, the lane's routine (the entry's jump) and the resolved one
 * (what the full path forwards to), called with the routines' arguments,
 * which they ignore. */
#include "cpu/cpu_blas.h"
#include "forward_gate.h"
#include "ilp64_types.h"

/* The entry points of the ILP64 rows, in the routine list's order. */
#define DECLARE(symbol, prec, args, abi) void symbol(void);
TS_ILP64_ROUTINES(DECLARE, )
TS_ILP64_ROUTINES(DECLARE, scipy_)
#undef DECLARE
static void (*const entry[])(void) = {
#define ADDRESS(symbol, prec, args, abi) symbol,
    TS_ILP64_ROUTINES(ADDRESS, ) TS_ILP64_ROUTINES(ADDRESS, scipy_)
#undef ADDRESS
};
enum { FIRST = TS_R_sgemm_64_, COUNT = sizeof entry / sizeof entry[0] };
_Static_assert(FIRST + COUNT == TS_R_scipy_sgemm_, "the ILP64 rows come before SciPy's LP64 ones");

static int jumped, forwarded;
static void lane_cpu(void) { jumped++; }
static void resolved_cpu(void) { forwarded++; }

/* C (or B) of the full path's scaling cases: 8 x 8 complex. */
static double cmat[2 * 64];

/* Calls routine r's entry point with dimensions d (GEMM m n k; SYRK n k;
 * TRSM m n), TRSM's side, alpha (a real or complex 1 or 0 of the routine's
 * scalar precision) and leading dimensions ld: 1 when it jumped to the
 * lane, 0 when the full path ran, -1 otherwise. */
static int entry_jumps(ts_routine r, const i64 *d, char side, int alpha_one, i64 ld)
{
    ts_prec sp = ts_routine_scalar_prec(r);
    int single = sp == TS_S || sp == TS_C;
    const void *al = alpha_one ? (single ? (const void *)one_s : one) : (single ? (const void *)zero_s : zero);
    const void *be = single ? (const void *)zero_s : zero;
    float fa = *(const float *)al;
    double da = *(const double *)al;
    char sd[2] = { side, 0 };
    void (*fn)(void) = entry[r - FIRST];
    int left = side == 'L' || side == 'l' ? 141 : 142;
    jumped = forwarded = 0;
    atomic_store(&ts_lanes[r]->cpu, (ts_gemm_fn)lane_cpu);
    int cblas = ts_routine_cblas(r);
    switch (ts_routine_args(r)) {
    case TS_ARGS_GEMM:
        if (!cblas)
            ((gemm_f *)fn)("N", "N", &d[0], &d[1], &d[2], al, cmat, &ld, cmat, &ld, be, cmat, &ld, 1, 1);
        else if (sp == TS_S)
            ((cgemm_s *)fn)(102, 111, 111, d[0], d[1], d[2], fa, cmat, ld, cmat, ld, 0.0f, cmat, ld);
        else if (sp == TS_D)
            ((cgemm_d *)fn)(102, 111, 111, d[0], d[1], d[2], da, cmat, ld, cmat, ld, 0.0, cmat, ld);
        else
            ((cgemm_z *)fn)(102, 111, 111, d[0], d[1], d[2], al, cmat, ld, cmat, ld, be, cmat, ld);
        break;
    case TS_ARGS_SYRK:
    case TS_ARGS_HERK:
        if (!cblas)
            ((syrk_f *)fn)("U", "N", &d[0], &d[1], al, cmat, &ld, be, cmat, &ld, 1, 1);
        else if (sp == TS_S)
            ((csyrk_s *)fn)(102, 121, 111, d[0], d[1], fa, cmat, ld, 0.0f, cmat, ld);
        else if (sp == TS_D)
            ((csyrk_d *)fn)(102, 121, 111, d[0], d[1], da, cmat, ld, 0.0, cmat, ld);
        else
            ((csyrk_z *)fn)(102, 121, 111, d[0], d[1], al, cmat, ld, be, cmat, ld);
        break;
    case TS_ARGS_SYMM:
    case TS_ARGS_HEMM:
        if (!cblas)
            ((symm_f *)fn)(sd, "U", &d[0], &d[1], al, cmat, &ld, cmat, &ld, be, cmat, &ld, 1, 1);
        else if (sp == TS_S)
            ((csymm_s *)fn)(102, left, 121, d[0], d[1], fa, cmat, ld, cmat, ld, 0.0f, cmat, ld);
        else if (sp == TS_D)
            ((csymm_d *)fn)(102, left, 121, d[0], d[1], da, cmat, ld, cmat, ld, 0.0, cmat, ld);
        else
            ((csymm_z *)fn)(102, left, 121, d[0], d[1], al, cmat, ld, cmat, ld, be, cmat, ld);
        break;
    case TS_ARGS_SYR2K:
    case TS_ARGS_HER2K:
        if (!cblas)
            ((symm_f *)fn)("U", "N", &d[0], &d[1], al, cmat, &ld, cmat, &ld, be, cmat, &ld, 1, 1);
        else if (sp == TS_S)
            ((csymm_s *)fn)(102, 121, 111, d[0], d[1], fa, cmat, ld, cmat, ld, 0.0f, cmat, ld);
        else if (sp == TS_D)
            ((csymm_d *)fn)(102, 121, 111, d[0], d[1], da, cmat, ld, cmat, ld, 0.0, cmat, ld);
        else if (ts_routine_args(r) == TS_ARGS_SYR2K)
            ((csymm_z *)fn)(102, 121, 111, d[0], d[1], al, cmat, ld, cmat, ld, be, cmat, ld);
        else if (sp == TS_C)
            ((cher2k_s *)fn)(102, 121, 111, d[0], d[1], al, cmat, ld, cmat, ld, 0.0f, cmat, ld);
        else
            ((cher2k_d *)fn)(102, 121, 111, d[0], d[1], al, cmat, ld, cmat, ld, 0.0, cmat, ld);
        break;
    case TS_ARGS_TRSM:
    case TS_ARGS_TRMM:
        if (!cblas)
            ((trsm_f *)fn)(sd, "U", "N", "N", &d[0], &d[1], al, cmat, &ld, cmat, &ld, 1, 1, 1, 1);
        else if (sp == TS_S)
            ((ctrsm_s *)fn)(102, left, 121, 111, 131, d[0], d[1], fa, cmat, ld, cmat, ld);
        else if (sp == TS_D)
            ((ctrsm_d *)fn)(102, left, 121, 111, 131, d[0], d[1], da, cmat, ld, cmat, ld);
        else
            ((ctrsm_z *)fn)(102, left, 121, 111, 131, d[0], d[1], al, cmat, ld, cmat, ld);
        break;
    }
    if (jumped == 1 && forwarded == 0)
        return 1;
    return jumped == 0 ? 0 : -1;
}

/* The C definition with the adapters' dimensions. */
static int c_check_jumps(ts_routine r, const i64 *d, char side, int alpha_one)
{
    ts_prec sp = ts_routine_scalar_prec(r);
    int single = sp == TS_S || sp == TS_C;
    const void *al = alpha_one ? (single ? (const void *)one_s : one) : (single ? (const void *)zero_s : zero);
    atomic_store(&ts_lanes[r]->cpu, (ts_gemm_fn)lane_cpu);
    ts_gemm_fn cpu;
    switch (ts_routine_args(r)) {
    case TS_ARGS_GEMM: cpu = ts_gate_lane_cpu_dims(r, d[0], d[1], d[2], al); break;
    case TS_ARGS_TRSM:
    case TS_ARGS_TRMM:
    case TS_ARGS_SYMM:
    case TS_ARGS_HEMM: cpu = ts_gate_lane_cpu_dims(r, d[0], d[1], side == 'L' || side == 'l' ? d[0] : d[1], al); break;
    default: cpu = ts_gate_lane_cpu_dims(r, d[0], d[0], d[1], al); break;
    }
    return cpu == (ts_gemm_fn)lane_cpu;
}

int main(void)
{
    if (!fg_gate_armed())
        return tap_done();
    for (int r = FIRST; r < FIRST + COUNT; r++)
        atomic_store(&ts_cpu_resolved[r], (ts_gemm_fn)resolved_cpu);
    if (!fg_lanes_can_open())
        return tap_done();
    const i64 high = ((i64)1 << 32) + 8, big = (i64)1 << 32;
    /* jumps: the expected path of GEMM (m n k) and of the other routines
     * (the first two only: SYRK's and SYR2K's n k, the others' m n). */
    const struct {
        i64 d[3];
        char side;
        int alpha_one, jumps[2];
    } cases[] = {
        { { 8, 8, 8 }, 'L', 1, { 1, 1 } },    { { 8, 8, 8 }, 'R', 1, { 1, 1 } },
        { { 8, 8, 8 }, 'L', 0, { 0, 0 } },    { { high, 8, 8 }, 'L', 1, { 0, 0 } },
        { { 8, high, 8 }, 'L', 1, { 0, 0 } }, { { 8, 8, high }, 'L', 1, { 0, 1 } },
        { { 8, high, 8 }, 'R', 1, { 0, 0 } }, { { -1, 8, 8 }, 'L', 1, { 0, 0 } },
        { { 8, -8, 8 }, 'L', 1, { 0, 0 } },
        /* the first product alone passes 2^63 */
        { { big, big, 1 }, 'L', 1, { 0, 0 } },
    };
    int ok = 1, n = 0;
    for (int r = FIRST; r < FIRST + COUNT; r++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            int want = cases[i].jumps[ts_routine_args((ts_routine)r) != TS_ARGS_GEMM];
            /* Only small valid calls carry valid leading dimensions: the
             * others are forwarded by validation, never computed. */
            i64 ld = want || !cases[i].alpha_one ? 8 : 0;
            int e = entry_jumps((ts_routine)r, cases[i].d, cases[i].side, cases[i].alpha_one, ld);
            int cc = c_check_jumps((ts_routine)r, cases[i].d, cases[i].side, cases[i].alpha_one);
            n++;
            if (e != want || cc != want) {
                tap_diag("%s case %zu: entry %d, C check %d, expected %d", ts_routine_symbol((ts_routine)r), i, e, cc,
                         want);
                ok = 0;
            }
        }
    tap_ok(ok, "the %d ILP64 entry points and the C check agree with the expected path on %d cases", COUNT, n);
    return tap_done();
}
