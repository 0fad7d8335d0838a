/* The host copy pool (cuda/copy_pool.h), which packs pageable operands into
 * pinned staging and unpacks C: 2D copies of every shape land exactly in
 * their rectangle, several jobs in flight at once, with waiters that help
 * (ts_copy_finish, ts_copy_help) and workers woken ahead (ts_copy_wake); a
 * job is cut into a part per worker, of 64 KB at least.  Plain C: no GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "copy_pool.h"
#include "tap.h"

enum { NJOBS = 12, GUARD = 0xA5 };

typedef struct {
    size_t rows, cols, elem, sld, dld; /* rows and lds in elements */
    unsigned char *src, *dst;
    ts_copy_job job;
} copy_case;

static void make_case(copy_case *k, size_t rows, size_t cols, size_t elem, size_t spare_s, size_t spare_d, unsigned seed)
{
    k->rows = rows, k->cols = cols, k->elem = elem;
    k->sld = rows + spare_s, k->dld = rows + spare_d;
    size_t sbytes = k->sld * cols * elem, dbytes = k->dld * cols * elem;
    k->src = malloc(sbytes ? sbytes : 1);
    k->dst = malloc(dbytes ? dbytes : 1);
    for (size_t i = 0; i < sbytes; i++)
        k->src[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 12));
    memset(k->dst, GUARD, dbytes);
    memset(&k->job, 0, sizeof k->job);
}

/* Every element of the rectangle copied, every gap byte of dst untouched. */
static int case_ok(const copy_case *k)
{
    const size_t rb = k->rows * k->elem;
    for (size_t c = 0; c < k->cols; c++) {
        const unsigned char *d = k->dst + c * k->dld * k->elem, *s = k->src + c * k->sld * k->elem;
        if (memcmp(d, s, rb))
            return 0;
        for (size_t i = rb; i < k->dld * k->elem; i++)
            if (d[i] != GUARD)
                return 0;
    }
    return 1;
}

static void free_case(copy_case *k)
{
    free(k->src);
    free(k->dst);
}

int main(void)
{
    const int threads = ts_copy_threads();
    tap_ok(threads >= 1, "the pool starts %d worker(s)", threads);
    tap_ok(ts_copy_help() == 0, "with nothing queued, a waiter finds nothing to help with");

    /* Shapes of a mid-size call's pieces and of a large call's buffers:
     * contiguous, strided, single column, wide and short, odd sizes. */
    static const size_t shapes[NJOBS][5] = {
        { 1, 1, 8, 0, 0 },          { 1000, 3, 8, 24, 0 },     { 131072, 1, 8, 0, 0 },
        { 32768, 16, 8, 0, 0 },     { 20000, 16, 16, 0, 5 },   { 3, 70000, 4, 1, 2 },
        { 65536, 24, 4, 0, 0 },     { 8191, 129, 8, 13, 7 },   { 300000, 2, 8, 1, 0 },
        { 64, 8192, 8, 0, 64 },     { 1, 4096, 16, 3, 0 },     { 524288, 8, 1, 17, 9 },
    };
    copy_case k[NJOBS];
    for (int i = 0; i < NJOBS; i++)
        make_case(&k[i], shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], shapes[i][4], (unsigned)i + 1);

    /* All in flight at once, then each waited for (helping). */
    ts_copy_wake();
    for (int i = 0; i < NJOBS; i++)
        ts_copy_submit(&k[i].job, k[i].dst, k[i].dld, k[i].src, k[i].sld, k[i].rows, k[i].cols, k[i].elem);
    for (int i = NJOBS - 1; i >= 0; i--)
        ts_copy_finish(&k[i].job);
    int all = 1;
    for (int i = 0; i < NJOBS; i++)
        all &= tap_ok(ts_copy_done(&k[i].job) && case_ok(&k[i]), "job %d (%zu x %zu of %zu bytes, ld %zu -> %zu) exact",
                      i, k[i].rows, k[i].cols, k[i].elem, k[i].sld, k[i].dld);

    /* Below 768 KB one part, copied by the submitter; above, a part per
     * worker, of 64 KB at least. */
    const size_t bytes[] = { 4096, 65536, 262144, 786431, 786432, 1048576, (size_t)16 << 20 };
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
        copy_case c;
        make_case(&c, bytes[i], 1, 1, 0, 0, 99);
        ts_copy_submit(&c.job, c.dst, c.dld, c.src, c.sld, c.rows, c.cols, 1);
        size_t want = bytes[i] / 65536;
        want = want < 1 || bytes[i] < ((size_t)768 << 10) ? 1 : want > (size_t)threads ? (size_t)threads : want;
        int parts = c.job.parts;
        ts_copy_finish(&c.job);
        tap_ok(parts == (int)want && case_ok(&c), "a %zu-byte job is cut into %d part(s) (expected %zu) and copied", bytes[i],
               parts, want);
        free_case(&c);
    }

    tap_ok(!ts_copy_pooled(786431) && ts_copy_pooled(786432), "ts_copy_pooled: jobs of 768 KB and more go to the pool");

    /* The synchronous copy, of every shape. */
    for (int i = 0; i < NJOBS; i++) {
        memset(k[i].dst, GUARD, k[i].dld * k[i].cols * k[i].elem);
        ts_copy_2d(k[i].dst, k[i].dld, k[i].src, k[i].sld, k[i].rows, k[i].cols, k[i].elem);
        all &= case_ok(&k[i]);
    }
    tap_ok(all, "ts_copy_2d copies every shape exactly");
    for (int i = 0; i < NJOBS; i++)
        free_case(&k[i]);
    printf("1..%d\n", tap_count);
    return tap_failed != 0;
}
