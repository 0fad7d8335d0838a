/* One call on several GPUs, in one process without MPI.  A GEMM on host
 * data that the route sent to the GPU, predicted to take at least
 * TSSHIM_SPLIT_MIN_MS on one GPU or larger than the home device's free
 * memory, is cut along its long dimension into one sub-call per device of
 * the list (TSSHIM_SPLIT_DEVICES, else every visible device), and the
 * sub-calls run at once, one thread per device, each through the backend's
 * gemm op on its own device (its own stream, cuBLAS handle and staging
 * ring there):
 *
 *   TSM2, ISM2        row blocks of op(A) and C (the mirror: column blocks)
 *   TSMTTSM           k blocks: part d computes A_d^T B_d (alpha 1, beta 0)
 *                     into a host scratch; the host adds the parts in order
 *                     and forms C = alpha sum + beta C (beta = 0 never
 *                     reads C)
 *   RANKK, REGULAR    column blocks of op(B) and C
 *
 * Failures: the gemm op leaves a host C untouched when it fails.  A k-split
 * call with a failed part has written only scratch: it fails whole, C
 * untouched, and the caller computes it on the CPU.  Row and column blocks
 * are disjoint: the CPU BLAS computes the failed parts' blocks (the others
 * are final already), unless every part failed, when the call fails whole.
 *
 * A column split shares op(A), which every part reads whole: each part
 * sends its share of A's columns from the host to its device and takes the
 * rest from the other parts' devices, peer to peer (NVLink where there is
 * one), so the host sends A once.  When a copy cannot be made (device
 * memory, a failed share) every part reads A from the host instead.
 *
 * Parts never use the operand cache: it lives on the home device.  Under an
 * MPI launcher each rank owns its device, and nothing is split unless
 * TSSHIM_SPLIT=1.
 *
 * split_plan.c decides and plans (ts_split_devices, ts_split_plan,
 * ts_split_part); split_run.c runs the parts (ts_split_gemm: the worker
 * crew, the shared A's device copies, the parts' results). */
#ifndef TS_SPLIT_H
#define TS_SPLIT_H

#include "util/configuration.h"
#include "common/gpu_plugin.h"
#include "common/slicing.h"
#include "common/call.h"

/* The devices a GEMM that the route sent to the GPU is shared among
 * (dev[0 .. parts - 1], repeats allowed), or 0 when it runs whole: split
 * off, a device operand, fewer than two devices or parts, short and small
 * enough for one device, or parts predicted no faster than the whole call
 * (an operand the cache holds on the home device, which parts re-send; the
 * host's copies of pageable data, which all parts share).  Forced to the
 * GPU, it first looks at the operand cache (ts_cache_look), as auto mode's
 * route does. */
int ts_split_devices(ts_call *c, const ts_config *cfg, const ts_gpu_ops *g, int dev[TS_MAX_DEVICES]);

/* Cuts a valid, classified call into at most `parts` equal blocks of its
 * long dimension (ts_slice_long_dim; fewer when it is shorter). */
void ts_split_plan(ts_slice_plan *p, const ts_call *c, int parts);

/* Block i of the plan as a call of its own on `device`, classified, without
 * the operand cache; for a k-split, C is `scratch` (m x n, ldc = m) and
 * the scalars are 1 and 0. */
void ts_split_part(const ts_slice_plan *p, const ts_call *c, int64_t i, int device, void *scratch,
                   const ts_config *cfg, ts_call *sub);

/* Whether the parts of plan p share op(A) (a column split whose every part
 * reads all of A, host memory, a backend that makes device copies): each
 * sends its share from the host and takes the rest from the other parts'
 * devices (split_run.c). */
int ts_split_shares_a(const ts_slice_plan *p, const ts_call *c, const ts_gpu_ops *g);

/* Runs c split among dev[0 .. parts - 1] (from ts_split_devices): 0 when C
 * is final (path gpu+cpu when the CPU computed failed parts' blocks), else
 * -1 with why filled and C untouched. */
int ts_split_gemm(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, const int *dev, int parts, char *why,
                  size_t why_len);

#endif
