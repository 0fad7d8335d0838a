/* Slicing arithmetic: over all slices (and the staging pieces of each
 * region), every element of every operand region that crosses the link is
 * copied exactly once, nothing outside it (ld padding) ever, C never goes up
 * when beta = 0, and the sub-calls cover the sliced dimension exactly. */
#include <stdlib.h>
#include <string.h>

#include "route/classify.h"
#include "common/slicing.h"
#include "tap.h"
#include "route/validate.h"

typedef struct {
    ts_prec prec;
    char ta, tb;
    int64_t m, n, k, pad;
    int beta_zero, alpha_zero;
    ts_residency res[TS_NOP];
} spec;

/* Copy counts per stored element of each operand (ld x cols). */
typedef struct {
    int64_t ld[TS_NOP], rows[TS_NOP], cols[TS_NOP];
    unsigned char *loads[TS_NOP], *stores;
} tally;

static void count_region(unsigned char *counts, const ts_region *r, size_t es, size_t piece_bytes)
{
    ts_region whole = *r;
    for (int64_t i = 0; i < ts_region_npieces(&whole, es, piece_bytes); i++) {
        ts_region p = ts_region_piece(&whole, es, piece_bytes, i);
        for (int64_t j = 0; j < p.cols; j++)
            for (int64_t e = 0; e < p.rows; e++)
                counts[(p.col + j) * p.ld + p.row + e]++;
    }
}

/* 1 when every element inside rows x cols was counted `want` times and
 * every padding element never. */
static int counts_are(const unsigned char *counts, int64_t ld, int64_t rows, int64_t cols, int want)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < ld; i++)
            if (counts[j * ld + i] != (i < rows ? want : 0))
                return 0;
    return 1;
}

static ts_call make_call(const spec *s)
{
    static const double one[2] = { 1, 0 }, zero[2] = { 0, 0 }, half[2] = { 0.5, 0 };
    ts_call c;
    memset(&c, 0, sizeof c);
    c.prec = s->prec;
    c.transa = s->ta;
    c.transb = s->tb;
    c.m = s->m;
    c.n = s->n;
    c.k = s->k;
    c.lda = (s->ta == 'N' ? s->m : s->k) + s->pad;
    c.ldb = (s->tb == 'N' ? s->k : s->n) + s->pad;
    c.ldc = s->m + s->pad;
    c.alpha = s->alpha_zero ? zero : one;
    c.beta = s->beta_zero ? zero : half;
    c.res_a = s->res[TS_OP_A];
    c.res_b = s->res[TS_OP_B];
    c.res_c = s->res[TS_OP_C];
    c.device = -1;
    ts_scalar_flags(&c);
    ts_classify(&c, 40, 8);
    return c;
}

/* Checks one call with one slice budget and piece size; returns a reason
 * for the first failure, or NULL. */
static const char *check(const spec *s, int64_t slice_bytes, size_t piece_bytes, int64_t *nslices)
{
    ts_call c = make_call(s);
    size_t es = ts_elem_size(c.prec);
    ts_slice_plan p;
    ts_slice_plan_make(&p, &c, slice_bytes);
    *nslices = p.count;

    tally t;
    t.ld[TS_OP_A] = c.lda, t.rows[TS_OP_A] = ts_rows_a(&c), t.cols[TS_OP_A] = ts_cols_a(&c);
    t.ld[TS_OP_B] = c.ldb, t.rows[TS_OP_B] = ts_rows_b(&c), t.cols[TS_OP_B] = ts_cols_b(&c);
    t.ld[TS_OP_C] = c.ldc, t.rows[TS_OP_C] = c.m, t.cols[TS_OP_C] = c.n;
    for (int op = 0; op < TS_NOP; op++)
        t.loads[op] = calloc((size_t)(t.ld[op] * t.cols[op]) + 1, 1);
    t.stores = calloc((size_t)(t.ld[TS_OP_C] * t.cols[TS_OP_C]) + 1, 1);
    unsigned char *computed = calloc((size_t)(c.ldc * c.n) + 1, 1);

    const char *why = NULL;
    int64_t next = 0, ksum = 0;
    for (int64_t i = 0; i < p.count && !why; i++) {
        ts_slice sl;
        ts_slice_get(&p, &c, i, &sl);
        int64_t start = p.dim == TS_SLICE_M ? sl.m0 : p.dim == TS_SLICE_N ? sl.n0 : sl.k0;
        int64_t len = p.dim == TS_SLICE_M ? sl.m : p.dim == TS_SLICE_N ? sl.n : sl.k;
        if (start != next || len < 1)
            why = "slices are not contiguous";
        next = start + len;
        ksum += sl.k;
        if (sl.first_k != (p.dim != TS_SLICE_K || i == 0))
            why = "only the first k-slice uses the call's beta";
        /* The sub-call's regions have its shape (op(A) is sub.m x sub.k). */
        if (c.k > 0 && !c.alpha_zero) {
            ts_region a = sl.r[TS_OP_A];
            int64_t am = c.transa == 'N' ? a.rows : a.cols, ak = c.transa == 'N' ? a.cols : a.rows;
            if (am != sl.m || ak != sl.k)
                why = "region of A does not match the sub-call";
        }
        if (sl.r[TS_OP_C].rows != sl.m || sl.r[TS_OP_C].cols != sl.n)
            why = "region of C does not match the sub-call";
        int64_t in_bytes = 0, out_bytes = 0;
        for (int op = 0; op < TS_NOP; op++) {
            if (!sl.load[op])
                continue;
            count_region(t.loads[op], &sl.r[op], es, piece_bytes);
            if (p.sliced[op])
                in_bytes += ts_region_elems(&sl.r[op]) * (int64_t)es;
        }
        if (sl.store_c) {
            count_region(t.stores, &sl.r[TS_OP_C], es, piece_bytes);
            if (p.sliced[TS_OP_C])
                out_bytes = ts_region_elems(&sl.r[TS_OP_C]) * (int64_t)es;
        }
        if (p.dim != TS_SLICE_K)
            count_region(computed, &sl.r[TS_OP_C], es, piece_bytes);
        if (p.step > 1 && (in_bytes > slice_bytes || out_bytes > slice_bytes))
            why = "a slice of more than one unit exceeds the budget";
    }
    if (!why && next != p.extent)
        why = "slices do not cover the sliced dimension";
    if (!why && p.dim == TS_SLICE_K && ksum != c.k)
        why = "k-slices do not add up to k";
    if (!why && p.dim != TS_SLICE_K && !counts_are(computed, c.ldc, c.m, c.n, 1))
        why = "some element of C is computed by no slice or by two";
    for (int op = 0; op < TS_NOP && !why; op++) {
        int read = op == TS_OP_C ? !c.beta_zero : !(c.alpha_zero || c.k == 0);
        int want = read && ts_operand_moves(&c, op);
        if (!counts_are(t.loads[op], t.ld[op], t.rows[op], t.cols[op], want))
            why = op == TS_OP_C && c.beta_zero ? "C was uploaded with beta = 0"
                                               : "an operand element is not uploaded exactly once (or padding is)";
    }
    if (!why && !counts_are(t.stores, c.ldc, c.m, c.n, ts_operand_moves(&c, TS_OP_C)))
        why = "C is not downloaded exactly once (or padding is)";
    for (int op = 0; op < TS_NOP; op++)
        free(t.loads[op]);
    free(t.stores);
    free(computed);
    return why;
}

static const char *class_label(const spec *s)
{
    ts_call c = make_call(s);
    static char buf[64];
    static const char *const names[TS_NCLASS] = { "none", "tsm2", "ism2", "tsmttsm", "rankk", "regular" };
    snprintf(buf, sizeof buf, "%s%s", names[c.cls], c.mirror ? "(mirror)" : "");
    return buf;
}

int main(void)
{
    enum { L = 103, W = 5 };
    /* m, n, k of each class with long = 103 (a tail for every budget below). */
    static const int64_t shapes[][3] = {
        { L, W, L },     /* TSM2 */
        { W, L, L },     /* TSM2 mirror */
        { L, W, 3 },     /* ISM2 */
        { 4, L, W },     /* ISM2 mirror */
        { W, 3, L },     /* TSMTTSM */
        { L, L - 2, 2 }, /* RANKK */
        { 20, 30, 25 },  /* REGULAR */
    };
    static const char trans[] = { 'N', 'T', 'C' };
    static const ts_residency all_host[TS_NOP] = { TS_MEM_HOST, TS_MEM_HOST, TS_MEM_HOST };
    static const ts_residency mixed[][TS_NOP] = {
        { TS_MEM_DEVICE, TS_MEM_HOST, TS_MEM_HOST },
        { TS_MEM_PINNED, TS_MEM_MANAGED, TS_MEM_MANAGED },
        { TS_MEM_HOST, TS_MEM_PINNED, TS_MEM_DEVICE },
    };

    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        for (int prec = TS_D; prec <= TS_Z; prec += 2) {
            int cases = 0, multi = 0;
            const char *why = NULL;
            char first[160] = "";
            for (int ta = 0; ta < 3; ta++)
                for (int tb = 0; tb < 3; tb++)
                    for (int pad = 0; pad <= 3; pad += 3)
                        for (int bz = 0; bz < 2; bz++)
                            for (int64_t budget = 1; budget <= 4096; budget *= 8) {
                                spec s = { (ts_prec)prec, trans[ta], trans[tb], shapes[sh][0], shapes[sh][1],
                                           shapes[sh][2], pad, bz, 0, { 0 } };
                                memcpy(s.res, all_host, sizeof s.res);
                                int64_t count;
                                size_t es = ts_elem_size(s.prec);
                                const char *w = check(&s, budget * (int64_t)es, 7 * es, &count);
                                cases++;
                                multi += count > 2;
                                if (w && !why) {
                                    why = w;
                                    snprintf(first, sizeof first, " (first: %c%c pad=%d beta0=%d budget=%lld: %s)",
                                             s.ta, s.tb, (int)pad, bz, (long long)budget, w);
                                }
                            }
            tap_ok(!why && multi > 0, "%s %s: %d plans (%d with 3+ slices), every element once%s",
                   class_label(&(spec){ TS_D, 'N', 'N', shapes[sh][0], shapes[sh][1], shapes[sh][2], 0, 0, 0, { 0 } }),
                   prec == TS_D ? "D" : "Z", cases, multi, first);
        }
    }

    /* Residency: device operands and managed inputs are used in place. */
    for (size_t r = 0; r < sizeof mixed / sizeof mixed[0]; r++) {
        const char *why = NULL;
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0] && !why; sh++)
            for (int bz = 0; bz < 2 && !why; bz++) {
                spec s = { TS_D, 'T', 'N', shapes[sh][0], shapes[sh][1], shapes[sh][2], 2, bz, 0, { 0 } };
                memcpy(s.res, mixed[r], sizeof s.res);
                int64_t count;
                why = check(&s, 64, 24, &count);
            }
        tap_ok(!why, "residency A/B/C = %d/%d/%d: only what crosses the link is copied%s%s", mixed[r][0],
               mixed[r][1], mixed[r][2], why ? ": " : "", why ? why : "");
    }

    /* beta = 0 never uploads C, but C still comes back. */
    {
        spec s = { TS_D, 'N', 'N', L, W, L, 1, 1, 0, { 0 } };
        ts_call c = make_call(&s);
        ts_slice_plan p;
        ts_slice_plan_make(&p, &c, 256);
        int up = 0, down = 0;
        for (int64_t i = 0; i < p.count; i++) {
            ts_slice sl;
            ts_slice_get(&p, &c, i, &sl);
            up += sl.load[TS_OP_C];
            down += sl.store_c;
        }
        tap_ok(p.count > 1 && up == 0 && down == p.count, "beta = 0: %lld slices, C uploaded %d times, downloaded %d",
               (long long)p.count, up, down);
    }

    /* alpha = 0: A and B are never read; C is sliced by columns. */
    {
        spec s = { TS_D, 'N', 'N', L, W, L, 0, 0, 1, { 0 } };
        int64_t count;
        const char *why = check(&s, 80, 64, &count);
        tap_ok(!why, "alpha = 0: no copy of A or B, C once each way (%lld slices)%s%s", (long long)count,
               why ? ": " : "", why ? why : "");
    }

    /* TSMTTSM: k-slices add up to k, C goes up once (beta != 0) and down once. */
    {
        spec s = { TS_D, 'T', 'N', 8, 8, 1000, 0, 0, 0, { 0 } };
        ts_call c = make_call(&s);
        ts_slice_plan p;
        ts_slice_plan_make(&p, &c, 8 * 16 * 7);
        int64_t k = 0;
        int up = 0, down = 0, first = 0;
        for (int64_t i = 0; i < p.count; i++) {
            ts_slice sl;
            ts_slice_get(&p, &c, i, &sl);
            k += sl.k;
            up += sl.load[TS_OP_C];
            down += sl.store_c;
            first += sl.first_k;
        }
        tap_ok(p.dim == TS_SLICE_K && p.count == 143 && k == 1000 && up == 1 && down == 1 && first == 1,
               "TSMTTSM 8x8x1000 in 7-row k-slices: %lld slices, sum of k %lld, C up %d down %d", (long long)p.count,
               (long long)k, up, down);
    }

    /* TSM2 is cut along the stored columns of its long operand: k for A 'N'
     * (mirror: B 'T') while all of C fits one slice, else the long side of C. */
    {
        static const struct {
            char ta, tb;
            int mirror;
            int64_t budget_elems;
            ts_slice_dim want;
        } cut[] = {
            { 'N', 'N', 0, 8 * L * W, TS_SLICE_K }, { 'N', 'N', 0, L * W - 1, TS_SLICE_M },
            { 'T', 'N', 0, 8 * L * W, TS_SLICE_M }, { 'N', 'T', 1, 8 * L * W, TS_SLICE_K },
            { 'N', 'N', 1, 8 * L * W, TS_SLICE_N }, { 'N', 'C', 1, L * W - 1, TS_SLICE_N },
        };
        const char *why = NULL;
        for (size_t i = 0; i < sizeof cut / sizeof cut[0] && !why; i++) {
            spec s = { TS_D, cut[i].ta, cut[i].tb, cut[i].mirror ? W : L, cut[i].mirror ? L : W, L, 0, 0, 0, { 0 } };
            ts_call c = make_call(&s);
            ts_slice_plan p;
            ts_slice_plan_make(&p, &c, cut[i].budget_elems * 8);
            if (c.cls != TS_CLASS_TSM2 || c.mirror != cut[i].mirror || p.dim != cut[i].want)
                why = "a TSM2 layout is cut along the wrong dimension";
        }
        tap_ok(!why, "TSM2 is cut along the long operand's stored columns when C fits a slice%s%s", why ? ": " : "",
               why ? why : "");
    }

    /* What is left after slice 2 fails: the rest of C, from where slice 2 starts. */
    {
        spec s = { TS_D, 'T', 'N', L, W, L, 2, 0, 0, { 0 } };
        ts_call c = make_call(&s);
        ts_slice_plan p;
        ts_slice_plan_make(&p, &c, 10 * L * 8);
        ts_slice s2, rest;
        ts_slice_get(&p, &c, 2, &s2);
        ts_slice_rest(&p, &c, 2, &rest);
        tap_ok(p.dim == TS_SLICE_M && rest.m0 == s2.m0 && rest.m == L - s2.m0 && rest.r[TS_OP_A].col == s2.m0 &&
                   rest.r[TS_OP_A].cols == rest.m && rest.r[TS_OP_C].row == s2.m0 && rest.r[TS_OP_B].cols == W,
               "the rest after slice 2 starts at m0 = %lld and runs to m", (long long)rest.m0);
    }

    /* Pieces: a column longer than a piece is split by rows. */
    {
        ts_region r = { 3, 2, 10, 4, 20 };
        int64_t n = ts_region_npieces(&r, 8, 32);
        ts_region last = ts_region_piece(&r, 8, 32, n - 1);
        tap_ok(n == 12 && last.row == 11 && last.rows == 2 && last.col == 5 && last.cols == 1,
               "a 10 x 4 region in 4-element pieces: %lld pieces, last %lld rows at (%lld, %lld)", (long long)n,
               (long long)last.rows, (long long)last.row, (long long)last.col);
    }
    return tap_done();
}
