/* tsk_gemm(): the tuning table of the present architecture picks, per
 * (class, precision, transposes, width) cell, a compiled instance and its
 * parameters, or cuBLAS (TSK_DECLINED). */
#include <string.h>
#include "tsk_registry.h"

typedef struct {
    int sm;
    const tsk_tuning_row *rows;
    const size_t *nrows;
} tsk_table;

static const tsk_table tsk_tables[] = {
    { 90, tsk_tuning_sm90, &tsk_tuning_sm90_nrows },
};

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

const tsk_tuning_row *tsk_tuning_find(int sm, ts_class cls, ts_prec prec, char ta, char tb, int width)
{
    for (size_t t = 0; t < sizeof tsk_tables / sizeof tsk_tables[0]; t++) {
        if (tsk_tables[t].sm != sm)
            continue;
        for (size_t i = 0; i < *tsk_tables[t].nrows; i++) {
            const tsk_tuning_row *r = &tsk_tables[t].rows[i];
            if (r->cls == cls && r->prec == prec && r->transa == ta && r->transb == tb && r->width == width)
                return r;
        }
    }
    return NULL;
}

tsk_status tsk_gemm(const ts_call *call, const tsk_operands *ops, cudaStream_t stream, int sm)
{
    char ta, tb;
    int cell = tsk_width_cell(call->width);
    if (cell == 0 || (call->cls != TS_CLASS_TSM2 && call->cls != TS_CLASS_ISM2 && call->cls != TS_CLASS_TSMTTSM))
        return TSK_DECLINED;
    tsk_cell_transposes(call, &ta, &tb);
    const tsk_tuning_row *row = tsk_tuning_find(sm, call->cls, call->prec, ta, tb, cell);
    if (row == NULL || row->instance == NULL)
        return TSK_DECLINED;
    const tsk_instance *inst = tsk_instance_find(row->instance);
    if (inst == NULL)
        return TSK_DECLINED;
    /* A cell covers conjugated and mirrored layouts too; an instance entry
     * bound to other transposes may share its compiled code (launch) with
     * one that serves this call. */
    for (size_t i = 0; !tsk_instance_serves(inst, call); i++) {
        if (i == tsk_instance_count())
            return TSK_DECLINED;
        const tsk_instance *x = tsk_instance_at(i);
        if (x->launch == inst->launch && tsk_instance_serves(x, call))
            inst = x;
    }
    return inst->launch(call, ops, stream, &row->params);
}
