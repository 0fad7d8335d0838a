/* The operand cache's proof (ts_cache_prove, operand_cache.h): while the
 * device computes, and before the backend writes the first byte of C, asks
 * the tracker about the copies a call took unasked. */
#include "cache/operand_cache.h"

#include "cache/cache_directory.h"
#include "common/clock.h"

#include <pthread.h>
#include <time.h>

/* The lock within about PROVE_WAIT_NS, else 0.  The backend proves while
 * it holds its staging ring, which a thread holding the lock may be
 * waiting for (an upload in create or refresh): blocking here could
 * deadlock, and giving up only costs the call its second run. */
#define PROVE_WAIT_NS 2000000L
static int lock_soon(pthread_mutex_t *lock)
{
    for (long waited = 0; pthread_mutex_trylock(lock); waited += 20000) {
        if (waited >= PROVE_WAIT_NS)
            return 0;
        nanosleep(&(struct timespec){ 0, 20000 }, NULL);
    }
    return 1;
}

int ts_cache_prove(ts_call *c)
{
    ts_cache_state *const cache = ts_cache();
    double t0 = ts_now();
    if (!lock_soon(&cache->lock)) {
        /* Unasked still: the second run's prepare asks (ts_cache_gemm). */
        c->unproven = 0;
        return -1;
    }
    int all_current = 1;
    const entry *asked = NULL;
    for (int op = 0; op < TS_NCACHED; op++) {
        entry *e = c->cached[op];
        if (!e || !(c->unproven & 1u << op))
            continue;
        if (e != asked) {
            asked = e;
            if (ts_dir_take_news(e) == TS_TRACK_INVALID)
                ts_dir_drop(e, &cache->count.invalid);
        }
        /* Any write reported since the call took the copy, to this look
         * or to another thread's (which may have sent it meanwhile, under
         * the device's reads): the call's result may not be kept. */
        all_current &= e->news == c->cache_news[op];
    }
    c->unproven = 0;
    pthread_mutex_unlock(&cache->lock);
    c->prove_seconds += ts_now() - t0;
    return all_current ? 0 : -1;
}
