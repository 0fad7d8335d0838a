/* The kernel dispatch's index (cuda/kernel_dispatch.c) against the scans it
 * replaced: for every row of the sm_90 table, and for every class,
 * precision, transposes N/T/C, mirror and width from -1 to 70,
 * tsk_tuning_find returns the row a scan of the table finds, and tsk_choose
 * the row and instance that tsk_gemm's per-call search chose.  Then the
 * Gram rule (tsk_gram_instance) over the same keys.  Launches nothing, so
 * it needs no GPU.  Prints TAP. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "tsk_registry.h"

static const int sms[] = { 90, 80, 0 };
static const char transes[3] = { 'N', 'T', 'C' };
#define NSM (sizeof sms / sizeof sms[0])
#define MIN_WIDTH (-1)
#define MAX_WIDTH 70

/* The first row of a cell: the scan tsk_tuning_find made on every call. */
static const tsk_tuning_row *scan_row(int sm, ts_class cls, ts_prec prec, char ta, char tb, int width)
{
    if (sm != 90)
        return NULL;
    for (size_t i = 0; i < tsk_tuning_sm90_nrows; i++) {
        const tsk_tuning_row *r = &tsk_tuning_sm90[i];
        if (r->cls == cls && r->prec == prec && r->transa == ta && r->transb == tb && r->width == width)
            return r;
    }
    return NULL;
}

/* What tsk_gemm ran before the index (NULL: cuBLAS), and the row whose
 * parameters it passed: the cell's row by scan, its instance by name, and
 * where that one does not serve the call, the first sharing its launch that
 * does. */
static const tsk_instance *scan_choice(const ts_call *call, int sm, const tsk_tuning_row **row)
{
    char ta, tb;
    int cell = tsk_width_cell(call->width);
    if (cell == 0 || (call->cls != TS_CLASS_TSM2 && call->cls != TS_CLASS_ISM2 && call->cls != TS_CLASS_TSMTTSM))
        return NULL;
    tsk_cell_transposes(call, &ta, &tb);
    *row = scan_row(sm, call->cls, call->prec, ta, tb, cell);
    if (*row == NULL || (*row)->instance == NULL)
        return NULL;
    const tsk_instance *inst = tsk_instance_find((*row)->instance);
    if (inst == NULL)
        return NULL;
    for (size_t i = 0; !tsk_instance_serves(inst, call); i++) {
        if (i == tsk_instance_count())
            return NULL;
        const tsk_instance *x = tsk_instance_at(i);
        if (x->launch == inst->launch && tsk_instance_serves(x, call))
            inst = x;
    }
    return inst;
}

/* A row's place in the sm_90 table for diagnostics; -1 for none. */
static ptrdiff_t row_index(const tsk_tuning_row *r)
{
    return r != NULL ? r - tsk_tuning_sm90 : -1;
}

static void test_rows(void)
{
    size_t bad = 0;
    for (size_t i = 0; i < tsk_tuning_sm90_nrows; i++) {
        const tsk_tuning_row *r = &tsk_tuning_sm90[i];
        const tsk_tuning_row *want = scan_row(90, r->cls, r->prec, r->transa, r->transb, r->width);
        if (tsk_tuning_find(90, r->cls, r->prec, r->transa, r->transb, r->width) != want) {
            tap_diag("sm_90 row %zu: the index finds another row", i);
            bad++;
        }
    }
    tap_ok(bad == 0, "each of the %zu sm_90 rows: tsk_tuning_find returns the row of the scan", tsk_tuning_sm90_nrows);
}

/* Every key, cells or not, on sm_90 and on architectures without a table. */
static void test_cells(void)
{
    size_t bad = 0, found = 0, keys = 0;
    for (size_t s = 0; s < NSM; s++)
        for (int c = 0; c < TS_NCLASS; c++)
            for (int p = 0; p < TS_NPREC; p++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        for (int w = MIN_WIDTH; w <= MAX_WIDTH; w++) {
                            const tsk_tuning_row *want =
                                scan_row(sms[s], (ts_class)c, (ts_prec)p, transes[a], transes[b], w);
                            const tsk_tuning_row *got =
                                tsk_tuning_find(sms[s], (ts_class)c, (ts_prec)p, transes[a], transes[b], w);
                            keys++;
                            found += want != NULL;
                            if (got != want && bad++ < 10)
                                tap_diag("sm %d class %d prec %d %c%c width %d: index row %td, scan row %td", sms[s], c,
                                         p, transes[a], transes[b], w, row_index(got), row_index(want));
                        }
    tap_ok(bad == 0, "tsk_tuning_find equals the scan on %zu keys (%zu with a row)", keys, found);
}

/* Every call shape the dispatch distinguishes, every width of every cell
 * and beyond: the index must give the same instance and row. */
static void test_calls(void)
{
    size_t bad = 0, kernels = 0, calls = 0;
    for (size_t s = 0; s < NSM; s++)
        for (int c = 0; c < TS_NCLASS; c++)
            for (int p = 0; p < TS_NPREC; p++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        for (int m = 0; m < 2; m++)
                            for (int w = MIN_WIDTH; w <= MAX_WIDTH; w++) {
                                const ts_call call = { .cls = (ts_class)c, .prec = (ts_prec)p, .transa = transes[a],
                                                       .transb = transes[b], .mirror = m, .width = w };
                                const tsk_tuning_row *row = NULL;
                                const tsk_instance *want = scan_choice(&call, sms[s], &row);
                                const tsk_choice *got = tsk_choose(&call, sms[s]);
                                calls++;
                                kernels += want != NULL;
                                if (want == NULL ? got == NULL : got != NULL && got->inst == want && got->row == row)
                                    continue;
                                if (bad++ < 10)
                                    tap_diag("sm %d class %d prec %d %c%c mirror %d width %d: index %s (row %td), "
                                             "scan %s (row %td)",
                                             sms[s], c, p, transes[a], transes[b], m, w,
                                             got != NULL ? got->inst->name : "cublas",
                                             row_index(got != NULL ? got->row : NULL),
                                             want != NULL ? want->name : "cublas", row_index(want ? row : NULL));
                            }
    tap_ok(bad == 0, "tsk_choose equals the per-call search on %zu calls (%zu run a kernel)", calls, kernels);
}

/* The index decides a cell at its bound: each instance must serve all of
 * a cell's widths or none (TSK_ROW). */
static void test_whole_cells(void)
{
    size_t bad = 0;
    for (size_t i = 0; i < tsk_instance_count(); i++) {
        const tsk_instance *x = tsk_instance_at(i);
        for (int w = 1; w <= 64; w++) {
            int cell = tsk_width_cell(w);
            if ((w >= x->min_width && w <= x->max_width) != (cell >= x->min_width && cell <= x->max_width)) {
                tap_diag("%s serves part of the cell of width %d", x->name, w);
                bad++;
                break;
            }
        }
    }
    tap_ok(bad == 0, "each of the %zu instances serves whole width cells", tsk_instance_count());
}

/* Every TSMTTSM call key with op(B) in A's array (a Gram call where the
 * layouts along k agree), with op(B) elsewhere, and with m = n - 1 (no
 * Gram call): tsk_gram_instance answers tsmttsm_dmma_d_w<cell> exactly for
 * the Gram calls in double of width 5-32 on sm_90, NULL for every other
 * (tsk_choose, above, is the table's choice for all of them). */
static void test_gram(void)
{
    static const char *const others[] = { "", " (B elsewhere)", " (m = n - 1)" };
    static double x[1];
    size_t bad = 0, routed = 0, calls = 0;
    for (size_t s = 0; s < NSM; s++)
        for (int p = 0; p < TS_NPREC; p++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    for (int other = 0; other < 3; other++)
                        for (int w = MIN_WIDTH; w <= MAX_WIDTH; w++) {
                            const ts_call call = { .cls = TS_CLASS_TSMTTSM, .prec = (ts_prec)p, .transa = transes[a],
                                                   .transb = transes[b], .m = other == 2 ? w - 1 : w, .n = w,
                                                   .k = 1000, .width = w };
                            const tsk_operands ops = { x, 40, other == 1 ? (const void *)(x + 1) : x, 40, NULL, 40 };
                            const int gram = !other && (transes[a] != 'N') == (transes[b] == 'N');
                            const int want = gram && sms[s] == 90 && p == TS_D && w >= 5 && w <= 32;
                            const tsk_instance *got = tsk_gram_instance(&call, &ops, sms[s]);
                            char name[32];
                            snprintf(name, sizeof name, "tsmttsm_dmma_d_w%d", tsk_width_cell(w));
                            calls++;
                            routed += got != NULL;
                            if (want ? got != NULL && strcmp(got->name, name) == 0 : got == NULL)
                                continue;
                            if (bad++ < 10)
                                tap_diag("sm %d prec %d %c%c width %d%s: %s, want %s", sms[s], p, transes[a],
                                         transes[b], w, others[other], got ? got->name : "none",
                                         want ? name : "none");
                        }
    tap_ok(bad == 0, "tsk_gram_instance on %zu TSMTTSM calls: %zu Gram calls in double run tsmttsm_dmma_d_w8/16/32",
           calls, routed);
}

int main(void)
{
    test_rows();
    test_cells();
    test_calls();
    test_whole_cells();
    test_gram();
    return tap_done();
}
