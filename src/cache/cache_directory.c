/* The operand cache's directory: see cache_directory.h.  Owns the cache's
 * state (one struct, cache). */
#include "cache/cache_directory.h"

#include "util/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ts_cache_state cache = {.lock = PTHREAD_MUTEX_INITIALIZER, .available = -1};

ts_cache_state *ts_cache(void)
{
    return &cache;
}

int ts_dir_usable(void)
{
    if (cache.available < 0)
        cache.available = ts_tracker_available(cache.unavailable_why, sizeof cache.unavailable_why);
    return cache.available;
}

static void add_stale(entry *e, size_t off, size_t len)
{
    if (!len)
        return;
    if (e->nstale == STALE_MAX) {
        size_t lo = e->stale[0].offset, hi = e->stale[0].offset + e->stale[0].len;
        for (size_t i = 1; i < e->nstale; i++) {
            size_t a = e->stale[i].offset, b = a + e->stale[i].len;
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
        e->stale[0] = (ts_track_span){ lo, hi - lo };
        e->nstale = 1;
    }
    e->stale[e->nstale++] = (ts_track_span){ off, len };
}

/* Finds e's shared first and last pages and keeps their bytes; an edge
 * without room for its copy stays unset (its page's writes then count). */
static void edges_find(entry *e)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), s = (uintptr_t)e->host, end = s + e->len;
    if (s % page)
        e->edges[0] = (edge){ 0, page - s % page, NULL };
    if (end % page)
        e->edges[1] = (edge){ e->len - end % page, end % page, NULL };
    for (int i = 0; i < 2; i++)
        if (e->edges[i].len && (e->edges[i].len > e->len || !(e->edges[i].bytes = malloc(e->edges[i].len))))
            e->edges[i] = (edge){ 0, 0, NULL };
}

/* Sends bytes [off, off + len) of e's range to its copy, adding the bytes
 * sent to *sent: a shared edge they touch goes whole, from a fresh copy of
 * the host's bytes (the device then holds what the edge keeps), the rest
 * straight from the host. */
static int send_span(entry *e, size_t off, size_t len, const ts_config *cfg, size_t *sent)
{
    size_t a = off, b = off + len;
    for (int i = 0; i < 2; i++) {
        edge *g = &e->edges[i];
        if (!g->len || a >= g->off + g->len || b <= g->off)
            continue;
        memcpy(g->bytes, e->host + g->off, g->len);
        if (cache.gpu->cache_upload(e->dev + g->off, g->bytes, g->len, cfg))
            return -1;
        *sent += g->len;
        if (i == 0)
            a = g->len; /* the first page's edge starts the range */
        else
            b = g->off;
    }
    if (a < b && cache.gpu->cache_upload(e->dev + a, e->host + a, b - a, cfg))
        return -1;
    *sent += a < b ? b - a : 0;
    return 0;
}

static void edges_free(entry *e)
{
    free(e->edges[0].bytes);
    free(e->edges[1].bytes);
}

static int edge_unchanged(const entry *e, int i)
{
    const edge *g = &e->edges[i];
    return g->len && !memcmp(e->host + g->off, g->bytes, g->len);
}

/* Takes in what the tracker reports: written spans become stale, less any
 * shared edge whose bytes are unchanged. */
ts_track_state ts_dir_take_news(entry *e)
{
    ts_track_span sp[STALE_MAX];
    size_t n = 0, kept = 0;
    ts_track_state s = ts_track_changed(e->track, sp, STALE_MAX, &n);
    /* An unset edge is never unchanged: its page's writes all count. */
    const int head_same = s == TS_TRACK_WRITTEN && edge_unchanged(e, 0);
    const int tail_same = s == TS_TRACK_WRITTEN && edge_unchanged(e, 1);
    for (size_t i = 0; s == TS_TRACK_WRITTEN && i < n; i++) {
        size_t a = sp[i].offset, b = a + sp[i].len;
        if (head_same && a < e->edges[0].len)
            a = e->edges[0].len;
        if (tail_same && b > e->edges[1].off)
            b = e->edges[1].off;
        if (a < b) {
            add_stale(e, a, b - a);
            kept++;
        }
    }
    if (s == TS_TRACK_WRITTEN && !kept) {
        cache.count.neighbours++;
        s = TS_TRACK_CLEAN;
    }
    /* Bytes still to send (a write found by a proof, say) are news too:
     * until they are sent and a later look finds nothing new, calls ask
     * first, where acquire can drop a work array rewritten every time. */
    e->quiet = s == TS_TRACK_CLEAN && e->nstale == 0;
    e->news += s != TS_TRACK_CLEAN;
    return s;
}

size_t ts_dir_stale_bytes(const entry *e)
{
    size_t s = 0;
    for (size_t i = 0; i < e->nstale; i++)
        s += e->stale[i].len;
    return s;
}

static void destroy(entry *e)
{
    for (entry **p = &cache.entries; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    ts_track_end(e->track);
    cache.gpu->cache_free(e->dev);
    cache.used -= e->len;
    edges_free(e);
    free(e);
}

void ts_dir_drop(entry *e, unsigned long long *cause)
{
    if (!e->dead)
        (*cause)++;
    e->dead = 1;
    if (!e->refs)
        destroy(e);
}

void ts_dir_unref(entry *e)
{
    if (--e->refs == 0 && e->dead)
        destroy(e);
}

/* Drops e when the program rewrote most of it since its last use and no
 * call but the asking one (holding `mine` references) uses it: a work
 * array rewritten every iteration costs a fault per page for each write
 * while tracked, more than sending it again, so its range is not cached
 * again. */
int ts_dir_dropped_as_rewritten(entry *e, int mine)
{
    if (e->refs > mine || 2 * ts_dir_stale_bytes(e) < e->len)
        return 0;
    ts_reuse_mark_churned(&cache.reuse, e->host, e->len);
    ts_log(3, "cache: the copy of %p (%zu bytes) was mostly rewritten since its last use: dropped, not cached again",
           (const void *)e->host, e->len);
    ts_dir_drop(e, &cache.count.churned);
    return 1;
}

int ts_dir_holds(const entry *e, const view *v)
{
    return v->host >= e->host && v->host + v->len <= e->host + e->len;
}

/* The live entry whose range holds v, with the tracker's news taken in and
 * a reference for the caller; entries the tracker disowns are dropped, and
 * so are those the program rewrote mostly since their last use
 * (ts_dir_dropped_as_rewritten).  With `defer`, an entry the tracker last
 * found unwritten is
 * taken without asking it now: the call sets *deferred and asks later,
 * while the device computes (ts_cache_prove), which hides the walk of a
 * large operand's pages; an entry written lately is asked now, since a
 * write found that late costs the call a second run. */
entry *ts_dir_acquire(const view *v, int defer, int *deferred)
{
    for (entry *e = cache.entries, *next; e; e = next) {
        next = e->next;
        if (e->dead || !ts_dir_holds(e, v))
            continue;
        if (defer && e->quiet) {
            *deferred = 1;
            e->refs++;
            return e;
        }
        if (ts_dir_take_news(e) == TS_TRACK_INVALID) {
            ts_dir_drop(e, &cache.count.invalid);
            continue;
        }
        if (ts_dir_dropped_as_rewritten(e, 0))
            continue;
        e->refs++;
        return e;
    }
    return NULL;
}

/* Room for `len` more bytes, evicting the least recently used entries no
 * call is using. */
static int make_room(size_t len)
{
    while (cache.used + len > cache.budget) {
        entry *lru = NULL;
        for (entry *e = cache.entries; e; e = e->next)
            if (!e->refs && (!lru || e->last_use < lru->last_use))
                lru = e;
        if (!lru)
            return 0;
        ts_dir_drop(lru, &cache.count.evicted);
    }
    return 1;
}

/* A new entry for v, referenced, its copy sent. */
entry *ts_dir_create(ts_call *c, const view *v, const ts_config *cfg)
{
    char why[160];
    if (v->len > cache.budget || !make_room(v->len)) {
        cache.count.no_room++;
        return NULL;
    }
    /* Tracking starts before the copy: a write racing with it is reported
     * at the next look. */
    ts_track *t = ts_track_begin(v->host, v->len, why, sizeof why);
    if (!t) {
        if (!cache.count.untracked++)
            snprintf(cache.untracked_why, sizeof cache.untracked_why, "%s", why);
        return NULL;
    }
    entry *e = calloc(1, sizeof *e);
    char *dev = e ? cache.gpu->cache_alloc(v->len) : NULL;
    if (e) {
        *e = (entry){ .host = v->host, .len = v->len, .dev = dev, .track = t, .refs = 1 };
        edges_find(e);
    }
    size_t sent = 0;
    if (!dev || send_span(e, 0, v->len, cfg, &sent)) {
        if (dev)
            cache.gpu->cache_free(dev);
        if (e)
            edges_free(e);
        free(e);
        ts_track_end(t);
        cache.count.failed++;
        return NULL;
    }
    e->next = cache.entries;
    cache.entries = e;
    cache.used += v->len;
    cache.count.created++;
    c->bytes_h2d += sent;
    ts_log(3, "cache: new copy of %p (%zu bytes)", (const void *)v->host, v->len);
    return e;
}

/* Sends the stale spans; 0 when the copy equals the host now. */
int ts_dir_refresh(ts_call *c, entry *e, const ts_config *cfg)
{
    for (size_t i = 0; i < e->nstale; i++) {
        ts_log(3, "cache: sending bytes %zu..%zu of the copy of %p (%zu bytes), written since it was made",
               e->stale[i].offset, e->stale[i].offset + e->stale[i].len, (void *)e->host, e->len);
        size_t sent = 0;
        int err = send_span(e, e->stale[i].offset, e->stale[i].len, cfg, &sent);
        cache.count.resent += sent;
        c->bytes_h2d += sent;
        if (err)
            return -1;
    }
    e->nstale = 0;
    return 0;
}

