/* The operand cache: copies of host operands kept in device memory across
 * calls, so that a program multiplying by the same matrix again sends it
 * over PCIe once.
 *
 * An entry mirrors a range of host bytes [host, host + len) byte for byte
 * (the operand's layout, leading dimension included), so any operand lying
 * inside it, of any type, reads its elements at the same offset.  An entry
 * is used only while the write tracker (write_tracker.h) vouches for it:
 * the bytes it reports written since the last look are recorded as stale
 * and sent again before the copy is used; a range it can no longer vouch
 * for (unmapped, remapped, a forked child) drops the entry.  Memory the
 * tracker cannot cover (shared or file-backed mappings, a program's own
 * userfaultfd, a kernel without the mechanism) is never cached.
 *
 * Only A and B are cached, of TSSHIM_CACHE_MIN_MB or more: a few megabytes
 * cross the link in tens of microseconds, while a block the program
 * rewrites or frees costs the cache milliseconds (protection, a fault per
 * written page, a second run), and the programs measured reused no block
 * that small (docs/performance.md).  A write to a tracked page faults once
 * per page (the protection is re-armed at each look), which costs more than
 * sending the bytes again: C, which the call writes, is never tracked, and
 * an entry found mostly rewritten since its last use (a work array) is
 * dropped and its range not cached again.
 *
 * The directory lives in the core (plain C); the device memory and the
 * copies into it are the GPU backend's (ts_gpu_ops). */
#ifndef TS_OPERAND_CACHE_H
#define TS_OPERAND_CACHE_H

#include "util/configuration.h"
#include "common/gpu_plugin.h"
#include "common/call.h"

/* For a call that may run on the started GPU g: references the entries
 * holding its host operands (after taking in what the tracker reports) and
 * fills c->resident for the cost model (an operand without an entry that
 * earlier calls used counts as partly resident in auto mode: it is expected
 * to be used again). */
void ts_cache_look(ts_call *c, const ts_config *cfg, const ts_gpu_ops *g);

/* Runs a call the GPU takes (g->gemm's answer, never TS_GPU_STALE): first
 * makes the device copies of A and B (host memory) equal their host bytes
 * as far as the tracker has told, sending what changed or creating the
 * entry, and sets c->cache_dev where it succeeded (an operand without one
 * takes the normal transfer path).  A copy the tracker last found unwritten
 * is used without asking it again first: the backend asks (c->prove) while
 * the device computes, before it writes C, and when a write is found after
 * all, the copy is refreshed and the call runs again (the exit report's
 * rerun=). */
int ts_cache_gemm(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, char *why, size_t why_len);

/* c->prove: asks the tracker about the copies c uses unasked; 0 when none
 * was written since it was last asked, else -1 (the written bytes are
 * recorded as stale). */
int ts_cache_prove(ts_call *c);

/* After the call, wherever it ran: releases the call's references. */
void ts_cache_finish(ts_call *c);

/* The exit report's cache line (TSSHIM_VERBOSE >= 1), when the cache was used. */
void ts_cache_report(void);

/* The same counts as one JSON object (tsshim_report_json); "available" is
 * null until the cache was first asked for. */
struct ts_json;
void ts_cache_json(struct ts_json *j);

/* fork() child: counts its own calls only; the parent's entries are never
 * used there (no GPU in the child). */
void ts_cache_after_fork(void);

#endif
