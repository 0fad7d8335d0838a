/* Per-routine counters for the exit report (TSSHIM_VERBOSE >= 1). */
#ifndef TS_STATS_H
#define TS_STATS_H

#include "ts_call.h"

/* Records a finished call (lock-free). */
void ts_stats_record(const ts_call *c, int fell_back);

/* A forked child reports its own calls only. */
void ts_stats_reset(void);

/* Writes the report through ts_log at level 1 (one line per routine
 * called, or one saying that none was). */
void ts_stats_report(void);

#endif
