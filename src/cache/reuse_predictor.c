/* The operand cache's reuse predictor: see reuse_predictor.h. */
#include "cache/reuse_predictor.h"

#include <stdint.h>

static ts_sighting *sighting_of(ts_reuse_table *t, const char *host, size_t len)
{
    ts_sighting *s = &t->slot[((uintptr_t)host >> 12 ^ len) % TS_SIGHTINGS];
    if (s->host != host || s->len != len)
        *s = (ts_sighting){ host, len, 0, 0 };
    return s;
}

void ts_reuse_mark_churned(ts_reuse_table *t, const char *host, size_t len)
{
    sighting_of(t, host, len)->churns = 1;
}

int ts_reuse_churned(ts_reuse_table *t, const char *host, size_t len)
{
    return sighting_of(t, host, len)->churns;
}

/* The longer a pattern lasted, the longer it lasts. */
double ts_reuse_expected_resident(ts_reuse_table *t, const char *host, size_t len, size_t elems)
{
    ts_sighting *s = sighting_of(t, host, len);
    unsigned n = s->churns ? 0 : s->count;
    s->count += s->count < 1000;
    return (double)elems * n / (n + 1.0);
}
