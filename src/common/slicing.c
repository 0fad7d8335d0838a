#include "common/slicing.h"

int ts_operand_moves(const ts_call *c, int op)
{
    static const int is_ab[TS_NOP] = { 1, 1, 0 };
    if (is_ab[op] && !ts_call_reads_ab(c))
        return 0;
    ts_residency r = op == TS_OP_A ? c->res_a : op == TS_OP_B ? c->res_b : c->res_c;
    return !ts_residency_gpu_reads(r) || (op == TS_OP_C && !ts_residency_cpu_unreadable(r));
}

ts_slice_dim ts_slice_long_dim(const ts_call *c)
{
    if (!ts_call_reads_ab(c))
        return TS_SLICE_N;
    switch (c->cls) {
    case TS_CLASS_TSMTTSM: return TS_SLICE_K;
    case TS_CLASS_TSM2:
    case TS_CLASS_ISM2: return c->mirror ? TS_SLICE_N : TS_SLICE_M;
    default: return TS_SLICE_N;
    }
}

/* TSM2's one long operand is packed from runs along its stored columns.
 * Cut across them (A 'N' by rows), every column becomes a short strided
 * piece, which costs the packing threads more time per byte than whole
 * columns (docs/performance.md).  So TSM2 is cut along k when k runs along the
 * stored columns and all of C fits in one slice's budget: C then stays on
 * the device, summed over the k slices in order as TSMTTSM's is. */
static ts_slice_dim slice_dim(const ts_call *c, int64_t slice_bytes)
{
    if (ts_call_reads_ab(c) && c->cls == TS_CLASS_TSM2) {
        int k_along_columns = c->mirror ? c->transb != 'N' : c->transa == 'N';
        double c_bytes = (double)c->m * (double)c->n * (double)ts_elem_size(c->prec);
        if (k_along_columns && c_bytes <= (double)slice_bytes)
            return TS_SLICE_K;
    }
    return ts_slice_long_dim(c);
}

static ts_region region(int64_t row, int64_t col, int64_t rows, int64_t cols, int64_t ld)
{
    return (ts_region){ row, col, rows, cols, ld };
}

/* Region of op(A) rows [r0, r0 + rows) and columns [c0, c0 + cols), as
 * stored: transposed when op is a transpose. */
static ts_region op_region(char trans, int64_t r0, int64_t c0, int64_t rows, int64_t cols, int64_t ld)
{
    return trans == 'N' ? region(r0, c0, rows, cols, ld) : region(c0, r0, cols, rows, ld);
}

/* The regions of the sub-call covering [s0, s0 + len) of the sliced dimension. */
static void regions(const ts_call *c, ts_slice_dim dim, int64_t s0, int64_t len, ts_region r[TS_NOP])
{
    int64_t m0 = 0, n0 = 0, k0 = 0, m = c->m, n = c->n, k = c->k;
    if (dim == TS_SLICE_M)
        m0 = s0, m = len;
    else if (dim == TS_SLICE_N)
        n0 = s0, n = len;
    else
        k0 = s0, k = len;
    if (ts_call_reads_ab(c)) {
        r[TS_OP_A] = op_region(c->transa, m0, k0, m, k, c->lda);
        r[TS_OP_B] = op_region(c->transb, k0, n0, k, n, c->ldb);
    } else {
        r[TS_OP_A] = region(0, 0, 0, 0, c->lda);
        r[TS_OP_B] = region(0, 0, 0, 0, c->ldb);
    }
    r[TS_OP_C] = region(m0, n0, m, n, c->ldc);
}

static int64_t dim_extent(const ts_call *c, ts_slice_dim dim)
{
    return dim == TS_SLICE_M ? c->m : dim == TS_SLICE_N ? c->n : c->k;
}

/* What of each operand moves and is cut along dim, and per unit of dim
 * the bytes that cross each way (*in_unit, *out_unit). */
static void plan_begin(ts_slice_plan *p, const ts_call *c, ts_slice_dim dim, int64_t *in_unit, int64_t *out_unit)
{
    int64_t es = (int64_t)ts_elem_size(c->prec);
    p->dim = dim;
    p->extent = dim_extent(c, p->dim);
    p->reads_c = !c->beta_zero;

    /* Elements of each operand per unit of the sliced dimension: a region
     * one unit wide tells which operands are cut and by how much. */
    ts_region unit[TS_NOP], whole[TS_NOP];
    regions(c, p->dim, 0, 1, unit);
    regions(c, p->dim, 0, p->extent, whole);
    *in_unit = *out_unit = 0;
    for (int op = 0; op < TS_NOP; op++) {
        p->moves[op] = ts_operand_moves(c, op);
        p->sliced[op] = ts_region_elems(&whole[op]) > 0 && ts_region_elems(&unit[op]) < ts_region_elems(&whole[op]);
        if (!p->moves[op] || !p->sliced[op])
            continue;
        if (op != TS_OP_C || p->reads_c)
            *in_unit += ts_region_elems(&unit[op]) * es;
        if (op == TS_OP_C)
            *out_unit += ts_region_elems(&unit[op]) * es;
    }
}

/* Slices of `step` (clamped to [1, extent]) and the largest region each
 * operand takes. */
static void plan_step(ts_slice_plan *p, const ts_call *c, int64_t step)
{
    if (step < 1)
        step = 1;
    if (step > p->extent)
        step = p->extent;
    p->step = step;
    p->count = step > 0 ? (p->extent + step - 1) / step : 0;

    ts_region widest[TS_NOP], whole[TS_NOP];
    regions(c, p->dim, 0, step, widest);
    regions(c, p->dim, 0, p->extent, whole);
    for (int op = 0; op < TS_NOP; op++)
        p->max_elems[op] = ts_region_elems(p->sliced[op] ? &widest[op] : &whole[op]);
}

void ts_slice_plan_make(ts_slice_plan *p, const ts_call *c, int64_t slice_bytes)
{
    int64_t in_unit, out_unit;
    plan_begin(p, c, slice_dim(c, slice_bytes), &in_unit, &out_unit);
    int64_t per_unit = in_unit > out_unit ? in_unit : out_unit;
    plan_step(p, c, per_unit > 0 ? slice_bytes / per_unit : p->extent);
}

void ts_slice_plan_parts(ts_slice_plan *p, const ts_call *c, ts_slice_dim dim, int64_t parts)
{
    int64_t in_unit, out_unit;
    plan_begin(p, c, dim, &in_unit, &out_unit);
    plan_step(p, c, parts > 0 ? (p->extent + parts - 1) / parts : p->extent);
}

/* The sub-call covering [s0, s0 + len) of the sliced dimension. */
static void span(const ts_slice_plan *p, const ts_call *c, int64_t s0, int64_t len, int first, int last,
                 ts_slice *s)
{
    s->index = p->step > 0 ? s0 / p->step : 0;
    s->m0 = s->n0 = s->k0 = 0;
    s->m = c->m;
    s->n = c->n;
    s->k = c->k;
    if (p->dim == TS_SLICE_M)
        s->m0 = s0, s->m = len;
    else if (p->dim == TS_SLICE_N)
        s->n0 = s0, s->n = len;
    else
        s->k0 = s0, s->k = len;
    regions(c, p->dim, s0, len, s->r);
    for (int op = 0; op < TS_NOP; op++) {
        /* A resident operand is loaded with the first slice and kept. */
        s->load[op] = p->moves[op] && ts_region_elems(&s->r[op]) > 0 && (p->sliced[op] || first);
    }
    s->load[TS_OP_C] = s->load[TS_OP_C] && p->reads_c;
    s->store_c = p->moves[TS_OP_C] && ts_region_elems(&s->r[TS_OP_C]) > 0 && (p->sliced[TS_OP_C] || last);
    s->first_k = p->dim != TS_SLICE_K || first;
}

void ts_slice_get(const ts_slice_plan *p, const ts_call *c, int64_t i, ts_slice *s)
{
    int64_t s0 = i * p->step;
    int64_t len = p->extent - s0 < p->step ? p->extent - s0 : p->step;
    span(p, c, s0, len, i == 0, i == p->count - 1, s);
}

void ts_slice_rest(const ts_slice_plan *p, const ts_call *c, int64_t i, ts_slice *s)
{
    span(p, c, i * p->step, p->extent - i * p->step, i == 0, 1, s);
}

/* Columns per piece when a whole column fits, else 0. */
static int64_t cols_per_piece(const ts_region *r, size_t elem, size_t piece_bytes)
{
    size_t column = (size_t)r->rows * elem;
    return column > 0 && column <= piece_bytes ? (int64_t)(piece_bytes / column) : 0;
}

static int64_t rows_per_piece(size_t elem, size_t piece_bytes)
{
    int64_t rows = (int64_t)(piece_bytes / elem);
    return rows > 0 ? rows : 1;
}

int64_t ts_region_npieces(const ts_region *r, size_t elem, size_t piece_bytes)
{
    if (ts_region_elems(r) == 0)
        return 0;
    int64_t cpp = cols_per_piece(r, elem, piece_bytes);
    if (cpp)
        return (r->cols + cpp - 1) / cpp;
    int64_t rpp = rows_per_piece(elem, piece_bytes);
    return r->cols * ((r->rows + rpp - 1) / rpp);
}

ts_region ts_region_piece(const ts_region *r, size_t elem, size_t piece_bytes, int64_t i)
{
    ts_region p = *r;
    int64_t cpp = cols_per_piece(r, elem, piece_bytes);
    if (cpp) {
        p.col = r->col + i * cpp;
        p.cols = r->col + r->cols - p.col < cpp ? r->col + r->cols - p.col : cpp;
        return p;
    }
    int64_t rpp = rows_per_piece(elem, piece_bytes);
    int64_t per_col = (r->rows + rpp - 1) / rpp;
    p.col = r->col + i / per_col;
    p.cols = 1;
    p.row = r->row + (i % per_col) * rpp;
    p.rows = r->row + r->rows - p.row < rpp ? r->row + r->rows - p.row : rpp;
    return p;
}
