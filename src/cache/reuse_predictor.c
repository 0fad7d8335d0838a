/* The operand cache's reuse predictor: see reuse_predictor.h. */
#include "cache/reuse_predictor.h"

#include <stdint.h>

/* Fibonacci hashing of the page and the length: arrays of one program lie
 * at regular distances, which a plain modulus maps to few sets. */
static unsigned set_of(const char *host, size_t len)
{
    uint64_t x = ((uint64_t)(uintptr_t)host >> 12) * 0x9E3779B97F4A7C15ull ^ (uint64_t)len * 0xC2B2AE3D27D4EB4Full;
    return (unsigned)(x >> 40) % TS_SIGHTING_SETS;
}

/* The range's way, made anew in the way least worth keeping when absent. */
static ts_sighting *sighting_of(ts_reuse_table *t, const char *host, size_t len)
{
    ts_sighting *set = t->slot[set_of(host, len)], *victim = &set[0];
    for (int w = 0; w < TS_SIGHTING_WAYS; w++) {
        ts_sighting *s = &set[w];
        if (s->host == host && s->len == len)
            return s;
        if (s->churns < victim->churns || (s->churns == victim->churns && s->count < victim->count))
            victim = s;
    }
    *victim = (ts_sighting){ host, len, 0, 0 };
    return victim;
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
