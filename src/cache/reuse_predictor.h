/* The operand cache's reuse predictor (internal to src/cache/): host
 * ranges calls used, for the cost model's guess that a range used before
 * will be used again, and the ranges found to be work arrays (mostly
 * rewritten between two uses), which are never cached again.  No state of
 * its own: the table is the cache's (cache_directory.h). */
#ifndef TS_REUSE_PREDICTOR_H
#define TS_REUSE_PREDICTOR_H

#include <stddef.h>

enum { TS_SIGHTINGS = 64 };

/* A host range calls used (hash of the address, last writer wins). */
typedef struct {
    const char *host;
    size_t len;
    unsigned count;
    int churns; /* found mostly rewritten between two uses: never cached again */
} ts_sighting;

typedef struct {
    ts_sighting slot[TS_SIGHTINGS];
} ts_reuse_table;

/* The range's bytes an entry would hold were found mostly rewritten
 * between two uses: it is not cached again. */
void ts_reuse_mark_churned(ts_reuse_table *t, const char *host, size_t len);

/* Whether the range was marked churned (and not pushed out of the table
 * by another range since). */
int ts_reuse_churned(ts_reuse_table *t, const char *host, size_t len);

/* Counts one more use of the range, and answers how many of its `elems`
 * elements the model may count as resident: a range seen in n earlier
 * calls is expected in about n more, so its upload spreads over them
 * (elems * n / (n + 1); 0 for a churned range). */
double ts_reuse_expected_resident(ts_reuse_table *t, const char *host, size_t len, size_t elems);

#endif
