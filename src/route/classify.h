/* Shape classes (docs/architecture.md) with the skinny/long thresholds. */
#ifndef TS_CLASSIFY_H
#define TS_CLASSIFY_H

#include "common/call.h"

/* Sets cls, mirror and width of a valid call. */
void ts_classify(ts_call *c, int64_t min_long, int64_t max_skinny);

#endif
