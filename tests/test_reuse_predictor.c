/* The operand cache's reuse predictor (src/cache/reuse_predictor.h): uses
 * counted per range, churned ranges remembered.  Two work arrays of one
 * loop, rewritten before every call, once pushed each other's churn mark
 * out of a direct-mapped table at every call, so that both were cached,
 * churned and cached again in turn (the mid-size benchmark's trace showed
 * new/- alternating): a range marked churned must stay so while the
 * program goes on using other ranges. */
#include <stdint.h>

#include "cache/reuse_predictor.h"
#include "tap.h"

static ts_reuse_table table;

/* The address of a page of a mapping at 0x7f0000000000: the predictor
 * only compares and hashes addresses. */
static const char *at(uintptr_t page) { return (const char *)(((uintptr_t)0x7f0000000 + page) << 12); }

int main(void)
{
    /* Ranges at the distances malloc gives arrays of 1 MB and 4 MB: 257 and
     * 1025 pages apart, and arrays 64 pages apart, which a modulus of 64
     * puts in one slot. */
    const size_t mb = (size_t)1 << 20;
    const char *a = at(4096), *b = at(4096 - 257), *c = at(4096 + 64);
    tap_ok(!ts_reuse_churned(&table, a, mb) && ts_reuse_expected_resident(&table, a, mb, 100) == 0.0,
           "a range seen for the first time: not churned, nothing expected resident");
    ts_reuse_expected_resident(&table, a, mb, 100);
    tap_ok(ts_reuse_expected_resident(&table, a, mb, 100) == 100.0 * 2 / 3,
           "seen twice before: two thirds of its elements expected resident");
    ts_reuse_mark_churned(&table, a, mb);
    ts_reuse_mark_churned(&table, b, mb);
    ts_reuse_mark_churned(&table, c, mb);
    int kept = 1;
    for (int call = 0; call < 100; call++) {
        /* What a loop's calls ask of the predictor: each operand in turn. */
        kept &= ts_reuse_churned(&table, a, mb) && ts_reuse_churned(&table, b, mb) && ts_reuse_churned(&table, c, mb);
        ts_reuse_expected_resident(&table, at(8192 + (uintptr_t)call), 2048, 256);
    }
    tap_ok(kept, "three churned arrays (257 and 64 pages apart) stay churned over 100 calls that also use 100 other ranges");
    tap_ok(ts_reuse_expected_resident(&table, a, mb, 100) == 0.0, "a churned range is expected resident in nothing");
    int others = 0;
    for (size_t i = 0; i < 4096; i++)
        others += ts_reuse_churned(&table, at(100000 + i), 4096);
    tap_ok(others == 0, "ranges never marked are not churned");
    int survivors = ts_reuse_churned(&table, a, mb) + ts_reuse_churned(&table, b, mb) + ts_reuse_churned(&table, c, mb);
    tap_ok(survivors == 3, "4096 other ranges do not push the churned ones out (%d of 3 kept)", survivors);
    return tap_done();
}
