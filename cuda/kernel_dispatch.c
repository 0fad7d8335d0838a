/* tsk_gemm(): the tuning table of the present architecture picks, per
 * (class, precision, transposes, width) cell, a compiled instance and its
 * parameters, or cuBLAS (TSK_DECLINED); Gram calls in double of width 5-32
 * run the direct Gram kernel first (tsk_gram_instance).  The tables are
 * resolved once, on first use, into an index that a call reads with one
 * array access. */
#include <pthread.h>
#include <string.h>
#include "tsk_registry.h"

typedef struct {
    int sm;
    const tsk_tuning_row *rows;
    const size_t *nrows;
} tsk_table;

/* One table per architecture: the index reads the first of an sm. */
static const tsk_table tsk_tables[] = {
    { 90, tsk_tuning_sm90, &tsk_tuning_sm90_nrows },
};
#define TSK_NSM (sizeof tsk_tables / sizeof tsk_tables[0])

/* The instance tables of the kernel files, in registry order. */
static const struct {
    const tsk_instance *list;
    const size_t *n;
} tsk_instance_tables[] = {
    { tsk_tsm2_instances, &tsk_tsm2_ninstances },
    { tsk_tsm2_dmma_instances, &tsk_tsm2_dmma_ninstances },
    { tsk_ism2_instances, &tsk_ism2_ninstances },
    { tsk_ism2_dmma_instances, &tsk_ism2_dmma_ninstances },
    { tsk_tsmttsm_instances, &tsk_tsmttsm_ninstances },
    { tsk_tsmttsm_dmma_instances, &tsk_tsmttsm_dmma_ninstances },
};
#define TSK_NTABLES (sizeof tsk_instance_tables / sizeof tsk_instance_tables[0])

size_t tsk_instance_count(void)
{
    size_t n = 0;
    for (size_t t = 0; t < TSK_NTABLES; t++)
        n += *tsk_instance_tables[t].n;
    return n;
}

const tsk_instance *tsk_instance_at(size_t i)
{
    for (size_t t = 0; t < TSK_NTABLES; t++) {
        if (i < *tsk_instance_tables[t].n)
            return &tsk_instance_tables[t].list[i];
        i -= *tsk_instance_tables[t].n;
    }
    return NULL;
}

const tsk_instance *tsk_instance_find(const char *name)
{
    size_t n = tsk_instance_count();
    for (size_t i = 0; i < n; i++)
        if (strcmp(tsk_instance_at(i)->name, name) == 0)
            return tsk_instance_at(i);
    return NULL;
}

int tsk_instance_serves(const tsk_instance *inst, const ts_call *call)
{
    return inst->cls == call->cls && inst->prec == call->prec && call->width >= inst->min_width &&
           call->width <= inst->max_width &&
           (inst->transa == TSK_ANY_TRANS || inst->transa == call->transa) &&
           (inst->transb == TSK_ANY_TRANS || inst->transb == call->transb);
}

int tsk_width_cell(int64_t width)
{
    int cell = 1;
    while (cell < width && cell < 64)
        cell *= 2;
    return width >= 1 && width <= cell ? cell : 0;
}

void tsk_cell_transposes(const ts_call *call, char *ta, char *tb)
{
    char a = call->transa == 'N' ? 'N' : 'T', b = call->transb == 'N' ? 'N' : 'T';
    if (call->mirror) {
        *ta = b == 'N' ? 'T' : 'N';
        *tb = a == 'N' ? 'T' : 'N';
    } else {
        *ta = a;
        *tb = b;
    }
}

/* The index's keys: the classes with kernels, the transposes of a valid
 * call (a cell's are the first two) and the width cells 1, 2, 4, ..., 64. */
static const ts_class tsk_classes[] = { TS_CLASS_TSM2, TS_CLASS_ISM2, TS_CLASS_TSMTTSM };
static const char tsk_transes[] = { 'N', 'T', 'C' };
#define TSK_NCLASS (sizeof tsk_classes / sizeof tsk_classes[0])
#define TSK_NTRANS (sizeof tsk_transes / sizeof tsk_transes[0])
#define TSK_NCELL 7

/* A cell's first tuning row and the instance it names (NULL: cuBLAS, or a
 * name no longer compiled). */
typedef struct {
    const tsk_tuning_row *row;
    const tsk_instance *named;
} tsk_cell;

/* One architecture's table resolved: its cells by (class, precision, cell
 * transposes, width cell), and what a call runs by (class, precision, the
 * call's transposes, mirror, width cell).  About 30 KB. */
typedef struct {
    tsk_cell cell[TSK_NCLASS][TS_NPREC][2][2][TSK_NCELL];
    tsk_choice choice[TSK_NCLASS][TS_NPREC][TSK_NTRANS][TSK_NTRANS][2][TSK_NCELL];
} tsk_index;

static tsk_index tsk_indexes[TSK_NSM];
static pthread_once_t tsk_indexes_once = PTHREAD_ONCE_INIT;

/* The instances Gram calls in double run (tsk_gram_instance), by width cell
 * slot, looked up with the index. */
static const char *const tsk_gram_d_names[] = { "tsmttsm_dmma_d_w8", "tsmttsm_dmma_d_w16", "tsmttsm_dmma_d_w32" };
static const tsk_instance *tsk_gram_d[TSK_NCELL];

static int tsk_class_slot(ts_class cls)
{
    for (size_t i = 0; i < TSK_NCLASS; i++)
        if (tsk_classes[i] == cls)
            return (int)i;
    return -1;
}

static int tsk_trans_slot(char t)
{
    for (size_t i = 0; i < TSK_NTRANS; i++)
        if (tsk_transes[i] == t)
            return (int)i;
    return -1;
}

/* A width cell's slot: 1 -> 0, 2 -> 1, ..., 64 -> 6; -1 for 0 (no cell). */
static int tsk_cell_slot(int cell)
{
    return cell == 0 ? -1 : __builtin_ctz((unsigned)cell);
}

/* The index entry of a cell, or NULL where no call has that cell: another
 * class, 'C' (tsk_cell_transposes gives 'N' or 'T'), a width that is no
 * cell's bound. */
static tsk_cell *tsk_cell_at(tsk_index *ix, ts_class cls, ts_prec prec, char ta, char tb, int64_t width)
{
    int c = tsk_class_slot(cls), a = tsk_trans_slot(ta), b = tsk_trans_slot(tb);
    int w = tsk_width_cell(width) == width ? tsk_cell_slot((int)width) : -1;
    if (c < 0 || (unsigned)prec >= TS_NPREC || a < 0 || a > 1 || b < 0 || b > 1 || w < 0)
        return NULL;
    return &ix->cell[c][prec][a][b][w];
}

/* The index entry of a call, or NULL where tsk_gemm declines it whatever
 * the table says (another class, wider than 64) or it is not valid. */
static tsk_choice *tsk_choice_at(tsk_index *ix, const ts_call *call)
{
    int c = tsk_class_slot(call->cls), a = tsk_trans_slot(call->transa), b = tsk_trans_slot(call->transb);
    int w = tsk_cell_slot(tsk_width_cell(call->width));
    if (c < 0 || (unsigned)call->prec >= TS_NPREC || a < 0 || b < 0 || w < 0)
        return NULL;
    return &ix->choice[c][call->prec][a][b][call->mirror != 0][w];
}

/* The first row of each cell, as a scan of the table finds it, and its
 * instance looked up by name.  The tuner writes rows of cells only (the
 * unit test checks that the index finds each row). */
static void tsk_index_cells(tsk_index *ix, const tsk_table *t)
{
    for (size_t i = 0; i < *t->nrows; i++) {
        const tsk_tuning_row *r = &t->rows[i];
        tsk_cell *cell = tsk_cell_at(ix, r->cls, r->prec, r->transa, r->transb, r->width);
        if (cell != NULL && cell->row == NULL)
            *cell = (tsk_cell){ r, r->instance != NULL ? tsk_instance_find(r->instance) : NULL };
    }
}

/* The instance that runs `call`: the named one, or else the first that
 * shares its compiled code (launch) and serves the call.  A cell covers
 * conjugated and mirrored layouts too, and an instance entry bound to other
 * transposes may share its code with one that serves this call. */
static const tsk_instance *tsk_serving(const tsk_instance *named, const ts_call *call)
{
    if (named == NULL || tsk_instance_serves(named, call))
        return named;
    for (size_t i = 0; i < tsk_instance_count(); i++) {
        const tsk_instance *x = tsk_instance_at(i);
        if (x->launch == named->launch && tsk_instance_serves(x, call))
            return x;
    }
    return NULL;
}

/* What `call` runs, decided at its cell's bound: an instance's width range
 * is whole cells (TSK_ROW), so the choice holds for every width of the cell. */
static tsk_choice tsk_resolve(tsk_index *ix, const ts_call *call)
{
    char ta, tb;
    tsk_cell_transposes(call, &ta, &tb);
    const tsk_cell *cell = tsk_cell_at(ix, call->cls, call->prec, ta, tb, call->width);
    const tsk_instance *inst = tsk_serving(cell->named, call);
    return (tsk_choice){ inst, inst != NULL ? cell->row : NULL };
}

static void tsk_index_choices(tsk_index *ix)
{
    for (size_t c = 0; c < TSK_NCLASS; c++)
        for (int p = 0; p < TS_NPREC; p++)
            for (size_t a = 0; a < TSK_NTRANS; a++)
                for (size_t b = 0; b < TSK_NTRANS; b++)
                    for (int m = 0; m < 2; m++)
                        for (int w = 0; w < TSK_NCELL; w++) {
                            const ts_call call = { .cls = tsk_classes[c], .prec = (ts_prec)p,
                                                   .transa = tsk_transes[a], .transb = tsk_transes[b],
                                                   .mirror = m, .width = 1 << w };
                            *tsk_choice_at(ix, &call) = tsk_resolve(ix, &call);
                        }
}

static void tsk_index_build(void)
{
    for (size_t t = 0; t < TSK_NSM; t++) {
        tsk_index_cells(&tsk_indexes[t], &tsk_tables[t]);
        tsk_index_choices(&tsk_indexes[t]);
    }
    for (size_t i = 0; i < sizeof tsk_gram_d_names / sizeof tsk_gram_d_names[0]; i++) {
        const tsk_instance *x = tsk_instance_find(tsk_gram_d_names[i]);
        if (x != NULL)
            tsk_gram_d[tsk_cell_slot(x->max_width)] = x;
    }
}

/* The index of `sm`'s table, built on the first use of any, or NULL. */
static tsk_index *tsk_index_of(int sm)
{
    pthread_once(&tsk_indexes_once, tsk_index_build);
    for (size_t t = 0; t < TSK_NSM; t++)
        if (tsk_tables[t].sm == sm)
            return &tsk_indexes[t];
    return NULL;
}

const tsk_tuning_row *tsk_tuning_find(int sm, ts_class cls, ts_prec prec, char ta, char tb, int width)
{
    tsk_index *ix = tsk_index_of(sm);
    const tsk_cell *cell = ix != NULL ? tsk_cell_at(ix, cls, prec, ta, tb, width) : NULL;
    return cell != NULL ? cell->row : NULL;
}

const tsk_choice *tsk_choose(const ts_call *call, int sm)
{
    tsk_index *ix = tsk_index_of(sm);
    const tsk_choice *choice = ix != NULL ? tsk_choice_at(ix, call) : NULL;
    return choice != NULL && choice->inst != NULL ? choice : NULL;
}

/* The table's cells were timed on two distinct operands, where cuBLAS
 * (widths 9-32) and the register-tile kernels (5-8) won in double.  A Gram
 * call passes one array as both: cuBLAS's GEMM reads it twice, and the
 * register-tile kernel, which stages each chunk once, was bound by its
 * work per chunk, not by memory.  The Gram kernel (kernels/gram_dmma.cu)
 * loads each value once straight into FP64 tensor-core fragments, so it
 * runs such calls of width 5-32 whatever the cell says, on architectures
 * with a table (DMMA needs sm_90; docs/performance.md, SYRK and TRSM on
 * device data). */
const tsk_instance *tsk_gram_instance(const ts_call *call, const tsk_operands *ops, int sm)
{
    if (call->prec != TS_D || !tsk_aliased(call, ops) || tsk_index_of(sm) == NULL)
        return NULL;
    const int w = tsk_cell_slot(tsk_width_cell(call->width));
    const tsk_instance *inst = w >= 0 ? tsk_gram_d[w] : NULL;
    return inst != NULL && tsk_instance_serves(inst, call) ? inst : NULL;
}

tsk_status tsk_gemm(const ts_call *call, const tsk_operands *ops, cudaStream_t stream, int sm)
{
    const tsk_instance *gram = tsk_gram_instance(call, ops, sm);
    if (gram != NULL) {
        const tsk_status s = gram->launch(call, ops, stream, NULL);
        if (s != TSK_DECLINED)
            return s;
    }
    const tsk_choice *choice = tsk_choose(call, sm);
    return choice != NULL ? choice->inst->launch(call, ops, stream, &choice->row->params) : TSK_DECLINED;
}
