/* The operand cache's reuse predictor (internal to src/cache/): host
 * ranges calls used, for the cost model's guess that a range used before
 * will be used again, and the ranges found to be work arrays (mostly
 * rewritten between two uses), which are never cached again.  No state of
 * its own: the table is the cache's (cache_directory.h). */
#ifndef TS_REUSE_PREDICTOR_H
#define TS_REUSE_PREDICTOR_H

#include <stddef.h>

/* A set-associative table: a range lives in one set of TS_SIGHTING_WAYS
 * ways (a hash of its address and length); a new range takes the way with
 * the fewest uses, a churned range last.  The old direct-mapped table of 64
 * let two arrays of one loop push each other's churn mark out at every
 * call, so that both were cached, churned and cached again in turn
 * (docs/performance.md, mid-size calls). */
enum { TS_SIGHTING_SETS = 256, TS_SIGHTING_WAYS = 4 };

/* A host range calls used. */
typedef struct {
    const char *host;
    size_t len;
    unsigned count;
    int churns; /* found mostly rewritten between two uses: never cached again */
} ts_sighting;

typedef struct {
    ts_sighting slot[TS_SIGHTING_SETS][TS_SIGHTING_WAYS];
} ts_reuse_table;

/* The range's bytes an entry would hold were found mostly rewritten
 * between two uses: it is not cached again. */
void ts_reuse_mark_churned(ts_reuse_table *t, const char *host, size_t len);

/* Whether the range was marked churned (and not pushed out of the table
 * since: that takes TS_SIGHTING_WAYS other ranges of its set, none of them
 * churned). */
int ts_reuse_churned(ts_reuse_table *t, const char *host, size_t len);

/* Counts one more use of the range, and answers how many of its `elems`
 * elements the model may count as resident: a range seen in n earlier
 * calls is expected in about n more, so its upload spreads over them
 * (elems * n / (n + 1); 0 for a churned range). */
double ts_reuse_expected_resident(ts_reuse_table *t, const char *host, size_t len, size_t elems);

#endif
