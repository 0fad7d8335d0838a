/* Logging: silent unless TSSHIM_VERBOSE asks; to TSSHIM_LOG (%p = pid,
 * %r = the launcher's rank) or stderr, each line in one write.  Level 1: warnings and the exit report, 2: decisions worth
 * knowing, 3: one trace line per call. */
#ifndef TS_LOG_H
#define TS_LOG_H

#include "common/call.h"

void ts_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Errors the user must see even when silent (a call that cannot run). */
void ts_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The level-3 trace line of a finished call. */
void ts_log_trace(const ts_call *c);

const char *ts_class_name(ts_class cls);

/* After fork the child reopens the log (its %p differs). */
void ts_log_after_fork(void);

#endif
