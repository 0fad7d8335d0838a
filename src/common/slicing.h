/* Slicing of a call whose operands cross the host-device link: the call is
 * cut along its long dimension into sub-calls small enough to pipeline
 * (copy slice i+1 in while slice i computes and slice i-1 comes back).
 * Plain C, no CUDA: the GPU pipeline executes the plan, the unit test checks
 * its arithmetic.
 *
 *   TSM2, ISM2           rows of C and op(A) (m); the mirror: columns (n);
 *                        TSM2 whose long operand is stored with k along
 *                        its columns: k, as TSMTTSM, when C fits a slice
 *   RANKK, REGULAR       columns of C and op(B) (n)
 *   TSMTTSM              k: every slice accumulates into C on the device,
 *                        the first with the call's beta, later ones with 1,
 *                        in slice order, so results are deterministic
 *
 * The operand that is not cut ("resident") is moved once, with the first
 * slice; C of a k-sliced call comes back once, after the last. */
#ifndef TS_SLICING_H
#define TS_SLICING_H

#include <stddef.h>
#include <stdint.h>

#include "common/call.h"

/* A rectangle of a column-major matrix stored with leading dimension ld:
 * rows [row, row + rows) and columns [col, col + cols). */
typedef struct {
    int64_t row, col, rows, cols, ld;
} ts_region;

typedef enum { TS_SLICE_M, TS_SLICE_N, TS_SLICE_K } ts_slice_dim;

typedef struct {
    ts_slice_dim dim;
    int64_t extent;             /* m, n or k */
    int64_t step;               /* slice width along it (the last may be shorter) */
    int64_t count;              /* number of slices */
    int moves[TS_NOP];          /* the operand crosses the link (not used in place) */
    int sliced[TS_NOP];         /* its region changes per slice; else it is resident */
    int reads_c;                /* beta != 0: C is an input */
    int64_t max_elems[TS_NOP];  /* largest region of the operand over the slices */
} ts_slice_plan;

typedef struct {
    int64_t index;
    int64_t m0, n0, k0;         /* where the sub-call starts in the call */
    int64_t m, n, k;            /* its dimensions */
    ts_region r[TS_NOP];        /* what of each stored operand the sub-call uses */
    int load[TS_NOP];           /* copy r[op] host -> device before the kernel */
    int store_c;                /* copy r[C] device -> host after it */
    int first_k;                /* 0 for k-slices after the first: their beta is 1 */
} ts_slice;

/* Whether operand op of a call crosses the link: host and pinned operands
 * do; device operands and managed A and B are used in place.  Managed C is
 * copied so that a failed call leaves it untouched (see cuda/pipeline.c). */
int ts_operand_moves(const ts_call *c, int op);

/* The call's long dimension: rows of C and op(A) for TSM2 and ISM2 (columns
 * for the mirror), k for TSMTTSM, columns of C and op(B) otherwise (and for
 * calls that only scale C). */
ts_slice_dim ts_slice_long_dim(const ts_call *c);

/* Plans a valid, classified call with residency.  slice_bytes bounds the
 * bytes each slice moves per direction (at least one row or column of the
 * sliced dimension is taken, whatever the bound). */
void ts_slice_plan_make(ts_slice_plan *p, const ts_call *c, int64_t slice_bytes);

/* The same cut along dim into at most `parts` slices of equal extent (the
 * last may be shorter; fewer when the extent is smaller): how a call is
 * shared among devices (src/multigpu/split.h). */
void ts_slice_plan_parts(ts_slice_plan *p, const ts_call *c, ts_slice_dim dim, int64_t parts);

/* Slice i (0 <= i < p->count) of the plan. */
void ts_slice_get(const ts_slice_plan *p, const ts_call *c, int64_t i, ts_slice *s);

/* Slices i .. count - 1 as one sub-call (what is left when slice i fails). */
void ts_slice_rest(const ts_slice_plan *p, const ts_call *c, int64_t i, ts_slice *s);

/* A region is copied through staging buffers in pieces of at most
 * piece_bytes (at least one element): runs of whole columns when a column
 * fits, else row ranges of one column. */
int64_t ts_region_npieces(const ts_region *r, size_t elem, size_t piece_bytes);
ts_region ts_region_piece(const ts_region *r, size_t elem, size_t piece_bytes, int64_t i);

static inline int64_t ts_region_elems(const ts_region *r) { return r->rows * r->cols; }

/* Address of the region's first element in a matrix starting at base. */
static inline const void *ts_region_at(const void *base, const ts_region *r, size_t elem)
{
    return (const char *)base + (size_t)(r->row + r->col * r->ld) * elem;
}

#endif
