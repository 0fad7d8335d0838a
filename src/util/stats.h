/* Per-routine counters for the exit report (TSSHIM_VERBOSE >= 1). */
#ifndef TS_STATS_H
#define TS_STATS_H

#include "common/call.h"

/* Records a finished call (lock-free). */
void ts_stats_record(const ts_call *c, int fell_back);

/* Records work that ran on a device (-1: the home device): a whole call,
 * or one part of a split call. */
void ts_stats_device(int device, double seconds, uint64_t h2d, uint64_t d2h);

/* A forked child reports its own calls only. */
void ts_stats_reset(void);

/* Writes the report through ts_log at level 1: one line per routine
 * called (or one saying that none was), then one per device that ran
 * work ("device D runs=N gpu_s=S h2d_bytes=X d2h_bytes=Y"); home: the
 * device that calls naming none ran on (-1: none started). */
void ts_stats_report(int home);

/* The same counters as JSON: {"routines": {NAME: {...}}, "devices": {D: {...}}}
 * (tsshim_report_json); only routines called and devices that ran work. */
struct ts_json;
void ts_stats_json(struct ts_json *j, int home);

#endif
