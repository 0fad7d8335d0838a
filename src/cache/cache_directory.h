/* The operand cache's directory (internal to src/cache/): the entries (a
 * host range and its device copy, vouched for by the write tracker), what
 * each must send again, the LRU order within the budget, and the cache's
 * mutable state, all of it in one struct (ts_cache_state) that
 * cache_directory.c owns.  Every function here, and every use of the
 * state but the lock itself, runs under the state's lock. */
#ifndef TS_CACHE_DIRECTORY_H
#define TS_CACHE_DIRECTORY_H

#include "cache/reuse_predictor.h"
#include "cache/write_tracker.h"
#include "common/call.h"
#include "common/gpu_plugin.h"
#include "util/configuration.h"

#include <pthread.h>
#include <stddef.h>

/* Stale spans an entry records before it merges them into one. */
enum { STALE_MAX = 16 };

/* The entry's bytes in its first or last page where that page holds other
 * memory too (an array on malloc's heap): the tracker sees pages, so the
 * neighbours' writes read as writes to the operand.  The device copy holds
 * exactly these bytes there (they are sent from here), so a reported write
 * that left the host's bytes equal to them changed nothing. */
typedef struct {
    size_t off, len;
    char *bytes;
} edge;

struct ts_cache_entry {
    char *host;
    size_t len;
    char *dev;
    ts_track *track;
    ts_track_span stale[STALE_MAX]; /* written since copied: to send before use (may overlap) */
    size_t nstale;
    unsigned long last_use;
    int refs;                       /* calls using it now: never freed under them */
    int quiet;                      /* the tracker's last word on it: nothing written */
    unsigned long news;             /* looks that reported a write (or the range gone), by any call */
    int dead;                       /* no longer found; freed when the last call lets go */
    edge edges[2];                  /* first and last page, where shared */
    struct ts_cache_entry *next;
};
typedef struct ts_cache_entry entry;

/* An operand as bytes: `cols` columns of `rows` bytes, `ld` bytes apart. */
typedef struct {
    char *host;
    size_t rows, cols, ld, len;
} view;

/* The exit report's counts. */
typedef struct {
    unsigned long long hits, refreshed, created, saved, resent, evicted, invalid, churned, failed, untracked, no_room,
        rerun, neighbours;
} ts_cache_counts;

/* The cache's mutable state, all of it: one per process. */
typedef struct {
    pthread_mutex_t lock;
    entry *entries;
    size_t used, budget;        /* bytes held; the most it may hold (the backend's answer) */
    int budget_known;
    unsigned long tick;         /* the LRU clock */
    const ts_gpu_ops *gpu;      /* the backend holding the copies */
    ts_reuse_table reuse;       /* the reuse predictor's table */
    int available;              /* whether the tracker works: asked once, -1 until then */
    char unavailable_why[160];
    char untracked_why[160];    /* the first range the tracker would not take, why */
    ts_cache_counts count;
} ts_cache_state;

/* The state (cache_directory.c's). */
ts_cache_state *ts_cache(void);

/* Whether the tracker works in this process (asked once). */
int ts_dir_usable(void);

/* Whether e's range holds v. */
int ts_dir_holds(const entry *e, const view *v);

/* Takes in what the tracker reports for e: written spans become stale,
 * less any shared edge whose bytes are unchanged. */
ts_track_state ts_dir_take_news(entry *e);

/* Bytes of e still to send (stale spans, counted with their overlaps). */
size_t ts_dir_stale_bytes(const entry *e);

/* e is gone (counted in *cause the first time); freed when no call uses it. */
void ts_dir_drop(entry *e, unsigned long long *cause);

/* Releases a call's reference to e. */
void ts_dir_unref(entry *e);

/* Drops e when the program rewrote most of it since its last use and no
 * call but the asking one (holding `mine` references) uses it; 1 if so. */
int ts_dir_dropped_as_rewritten(entry *e, int mine);

/* The live entry whose range holds v, referenced for the caller (see
 * cache_directory.c); *deferred set when it was taken unasked. */
entry *ts_dir_acquire(const view *v, int defer, int *deferred);

/* A new entry for v, referenced, its copy sent (c->bytes_h2d counts it);
 * NULL when it cannot be made (counted). */
entry *ts_dir_create(ts_call *c, const view *v, const ts_config *cfg);

/* Sends e's stale spans; 0 when the copy equals the host now. */
int ts_dir_refresh(ts_call *c, entry *e, const ts_config *cfg);

#endif
