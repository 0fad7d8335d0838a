/* A call's path from the entry adapters down: the dispatcher gathers the
 * facts, asks route for the decision, runs it (CPU BLAS, host scaling, the
 * GPU through the cache, a split or the level-3 path) and records it. */
#ifndef TS_DISPATCH_H
#define TS_DISPATCH_H

#include "common/call.h"
#include "route/route.h"
#include "util/configuration.h"

/* Runs one call (any routine of the list) to completion. */
void ts_dispatch(ts_call *c);

/* The decision alone, facts gathered and a start begun as route asks
 * (the tests' entry to the whole placement). */
ts_action ts_dispatch_place(ts_call *c, const ts_config *cfg, ts_route_facts *f);

/* Hands the plugin what it may call back; every path that can load the
 * plugin calls it first (idempotent). */
void ts_dispatch_init(void);

#endif
