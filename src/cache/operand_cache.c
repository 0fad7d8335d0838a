#include "cache/operand_cache.h"
#include "util/json.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/mpi_launcher.h"
#include "util/log.h"
#include "cache/write_tracker.h"

/* Stale spans an entry records before it merges them into one. */
enum { STALE_MAX = 16, SIGHTINGS = 64 };

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

/* Host ranges calls used, for the cost model's guess that a range used
 * before will be used again (hash of the address, last writer wins). */
typedef struct {
    const char *host;
    size_t len;
    unsigned count;
    int churns; /* found mostly rewritten between two uses: never cached again */
} sighting;

static struct {
    unsigned long long hits, refreshed, created, saved, resent, evicted, invalid, churned, failed, untracked, no_room,
        rerun, neighbours;
} count;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *entries;
static size_t used, budget;
static int budget_known;
static unsigned long tick;
static const ts_gpu_ops *gpu;
static sighting sightings[SIGHTINGS];
static char untracked_why[160];
static int available = -1; /* asked once, under the lock */
static char unavailable_why[160];

static int usable(void)
{
    if (available < 0)
        available = ts_tracker_available(unavailable_why, sizeof unavailable_why);
    return available;
}

/* TSSHIM_CACHE=-1 (the default) keeps the cache off under an MPI launcher:
 * there other processes and the network card write a rank's memory
 * without its page tables (RDMA into registered buffers, XPMEM mappings),
 * which no write protection of this process sees. */
static int cache_on(const ts_config *cfg)
{
    static _Atomic int under_mpi = -1;
    if (under_mpi < 0)
        under_mpi = ts_launcher_local_rank(NULL) >= 0;
    return cfg->cache == 1 || (cfg->cache == -1 && !under_mpi);
}

/* A or B of the call as bytes, when it may be cached.  C never is: the
 * call writes it, and a write to a tracked page faults once per page, which
 * made sending C back slower than sending it up again (docs/performance.md). */
static int operand_view(const ts_call *c, int op, view *v)
{
    const size_t es = ts_elem_size(c->prec);
    int64_t rows, cols, ld;
    const void *p;
    ts_residency r;
    if (op == TS_OP_A)
        rows = ts_rows_a(c), cols = ts_cols_a(c), ld = c->lda, p = c->a, r = c->res_a;
    else
        rows = ts_rows_b(c), cols = ts_cols_b(c), ld = c->ldb, p = c->b, r = c->res_b;
    if (r != TS_MEM_HOST || !p || rows <= 0 || cols <= 0 || !ts_call_reads_ab(c))
        return 0;
    *v = (view){ (char *)p, (size_t)rows * es, (size_t)cols, (size_t)ld * es, 0 };
    v->len = (v->cols - 1) * v->ld + v->rows;
    /* A sparse view (a few rows of a wide array) would mirror mostly gaps. */
    return (int64_t)v->len >= TS_CACHE_MIN_BYTES && 2 * v->rows * v->cols >= v->len;
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
        if (gpu->cache_upload(e->dev + g->off, g->bytes, g->len, cfg))
            return -1;
        *sent += g->len;
        if (i == 0)
            a = g->len; /* the first page's edge starts the range */
        else
            b = g->off;
    }
    if (a < b && gpu->cache_upload(e->dev + a, e->host + a, b - a, cfg))
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
static ts_track_state take_news(entry *e)
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
        count.neighbours++;
        s = TS_TRACK_CLEAN;
    }
    /* Bytes still to send (a write found by a proof, say) are news too:
     * until they are sent and a later look finds nothing new, calls ask
     * first, where acquire can drop a work array rewritten every time. */
    e->quiet = s == TS_TRACK_CLEAN && e->nstale == 0;
    e->news += s != TS_TRACK_CLEAN;
    return s;
}

static size_t stale_bytes(const entry *e)
{
    size_t s = 0;
    for (size_t i = 0; i < e->nstale; i++)
        s += e->stale[i].len;
    return s;
}

static void destroy(entry *e)
{
    for (entry **p = &entries; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    ts_track_end(e->track);
    gpu->cache_free(e->dev);
    used -= e->len;
    edges_free(e);
    free(e);
}

static void kill(entry *e, unsigned long long *cause)
{
    if (!e->dead)
        (*cause)++;
    e->dead = 1;
    if (!e->refs)
        destroy(e);
}

static void unref(entry *e)
{
    if (--e->refs == 0 && e->dead)
        destroy(e);
}

static sighting *sighting_of(const char *host, size_t len)
{
    sighting *s = &sightings[((uintptr_t)host >> 12 ^ len) % SIGHTINGS];
    if (s->host != host || s->len != len)
        *s = (sighting){ host, len, 0, 0 };
    return s;
}

/* Drops e when the program rewrote most of it since its last use and no
 * call but the asking one (holding `mine` references) uses it: a work
 * array rewritten every iteration costs a fault per page for each write
 * while tracked, more than sending it again, so its range is not cached
 * again. */
static int dropped_as_rewritten(entry *e, int mine)
{
    if (e->refs > mine || 2 * stale_bytes(e) < e->len)
        return 0;
    sighting_of(e->host, e->len)->churns = 1;
    kill(e, &count.churned);
    return 1;
}

static int holds(const entry *e, const view *v) { return v->host >= e->host && v->host + v->len <= e->host + e->len; }

/* The live entry whose range holds v, with the tracker's news taken in and
 * a reference for the caller; entries the tracker disowns are dropped, and
 * so are those the program rewrote mostly since their last use
 * (dropped_as_rewritten).  With `defer`, an entry the tracker last found unwritten is
 * taken without asking it now: the call sets *deferred and asks later,
 * while the device computes (ts_cache_prove), which hides the walk of a
 * large operand's pages; an entry written lately is asked now, since a
 * write found that late costs the call a second run. */
static entry *acquire(const view *v, int defer, int *deferred)
{
    for (entry *e = entries, *next; e; e = next) {
        next = e->next;
        if (e->dead || !holds(e, v))
            continue;
        if (defer && e->quiet) {
            *deferred = 1;
            e->refs++;
            return e;
        }
        if (take_news(e) == TS_TRACK_INVALID) {
            kill(e, &count.invalid);
            continue;
        }
        if (dropped_as_rewritten(e, 0))
            continue;
        e->refs++;
        return e;
    }
    return NULL;
}

/* A range seen in n earlier calls is expected in about n more (the longer
 * a pattern lasted, the longer it lasts): the model spreads its upload over
 * them. */
static double expected_resident(const view *v)
{
    sighting *s = sighting_of(v->host, v->len);
    unsigned n = s->churns ? 0 : s->count;
    s->count += s->count < 1000;
    return (double)(v->rows * v->cols) * n / (n + 1.0);
}

/* The entry for operand op, referenced: A's when it holds B too (a Gram
 * matrix's two operands are one array), with A's standing with the
 * tracker; else acquire's, recorded in c->unproven when it asked nothing. */
static entry *take_entry(ts_call *c, int op, const view *v, int defer)
{
    entry *a = op == TS_OP_B ? c->cached[TS_OP_A] : NULL;
    if (a && !a->dead && holds(a, v)) {
        a->refs++;
        if (c->unproven & 1u << TS_OP_A) {
            c->unproven |= 1u << op;
            c->cache_news[op] = c->cache_news[TS_OP_A];
        }
        return a;
    }
    int deferred = 0;
    entry *e = acquire(v, defer, &deferred);
    if (e && deferred) {
        c->unproven |= 1u << op;
        c->cache_news[op] = e->news;
    }
    return e;
}

void ts_cache_look(ts_call *c, const ts_config *cfg, const ts_gpu_ops *g)
{
    /* A device operand runs the call on its own device, not the cache's. */
    if (!cache_on(cfg) || c->device >= 0)
        return;
    view v;
    pthread_mutex_lock(&lock);
    for (int op = 0; op < TS_NCACHED; op++) {
        if (!operand_view(c, op, &v))
            continue;
        entry *e = g && usable() ? (gpu = g, take_entry(c, op, &v, 1)) : NULL;
        if (e) {
            size_t stale = stale_bytes(e), elems = v.rows * v.cols;
            c->cached[op] = e;
            c->resident[op] = stale < elems ? (double)(elems - stale) : 0.0;
        } else if (usable() && (!budget_known || v.len <= budget)) {
            /* Only what the cache could keep earns its upload back. */
            c->resident[op] = expected_resident(&v);
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Room for `len` more bytes, evicting the least recently used entries no
 * call is using. */
static int make_room(size_t len)
{
    while (used + len > budget) {
        entry *lru = NULL;
        for (entry *e = entries; e; e = e->next)
            if (!e->refs && (!lru || e->last_use < lru->last_use))
                lru = e;
        if (!lru)
            return 0;
        kill(lru, &count.evicted);
    }
    return 1;
}

/* A new entry for v, referenced, its copy sent. */
static entry *create(ts_call *c, const view *v, const ts_config *cfg)
{
    char why[160];
    if (v->len > budget || !make_room(v->len)) {
        count.no_room++;
        return NULL;
    }
    /* Tracking starts before the copy: a write racing with it is reported
     * at the next look. */
    ts_track *t = ts_track_begin(v->host, v->len, why, sizeof why);
    if (!t) {
        if (!count.untracked++)
            snprintf(untracked_why, sizeof untracked_why, "%s", why);
        return NULL;
    }
    entry *e = calloc(1, sizeof *e);
    char *dev = e ? gpu->cache_alloc(v->len) : NULL;
    if (e) {
        *e = (entry){ .host = v->host, .len = v->len, .dev = dev, .track = t, .refs = 1 };
        edges_find(e);
    }
    size_t sent = 0;
    if (!dev || send_span(e, 0, v->len, cfg, &sent)) {
        if (dev)
            gpu->cache_free(dev);
        if (e)
            edges_free(e);
        free(e);
        ts_track_end(t);
        count.failed++;
        return NULL;
    }
    e->next = entries;
    entries = e;
    used += v->len;
    count.created++;
    c->bytes_h2d += sent;
    return e;
}

/* Sends the stale spans; 0 when the copy equals the host now. */
static int refresh(ts_call *c, entry *e, const ts_config *cfg)
{
    for (size_t i = 0; i < e->nstale; i++) {
        ts_log(3, "cache: sending bytes %zu..%zu of the copy of %p (%zu bytes), written since it was made",
               e->stale[i].offset, e->stale[i].offset + e->stale[i].len, (void *)e->host, e->len);
        size_t sent = 0;
        int err = send_span(e, e->stale[i].offset, e->stale[i].len, cfg, &sent);
        count.resent += sent;
        c->bytes_h2d += sent;
        if (err)
            return -1;
    }
    e->nstale = 0;
    return 0;
}

/* The lock within about PROVE_WAIT_NS, else 0.  The backend proves while
 * it holds its staging ring, which a thread holding the lock may be
 * waiting for (an upload in create or refresh): blocking here could
 * deadlock, and giving up only costs the call its second run. */
#define PROVE_WAIT_NS 2000000L
static int lock_soon(void)
{
    for (long waited = 0; pthread_mutex_trylock(&lock); waited += 20000) {
        if (waited >= PROVE_WAIT_NS)
            return 0;
        nanosleep(&(struct timespec){ 0, 20000 }, NULL);
    }
    return 1;
}

int ts_cache_prove(ts_call *c)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!lock_soon()) {
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
            if (take_news(e) == TS_TRACK_INVALID)
                kill(e, &count.invalid);
        }
        /* Any write reported since the call took the copy, to this look
         * or to another thread's (which may have sent it meanwhile, under
         * the device's reads): the call's result may not be kept. */
        all_current &= e->news == c->cache_news[op];
    }
    c->unproven = 0;
    pthread_mutex_unlock(&lock);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    c->prove_seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return all_current ? 0 : -1;
}

/* ts_cache_gemm's first part: the device copies equal to the host as far
 * as is known (copies written lately asked now, the others left to
 * ts_cache_prove with `defer`). */
static void prepare(ts_call *c, const ts_config *cfg, const ts_gpu_ops *g, int defer)
{
    view v;
    /* Only a copy the call reads awaits proof: none until one is set up. */
    unsigned looked = c->unproven;
    c->unproven = 0;
    c->prove = NULL;
    /* Set anew below: a second run must not read the first's copies (one
     * may be gone). */
    for (int op = 0; op < TS_NCACHED; op++) {
        c->cache_dev[op] = NULL;
        c->cache_state[op] = NULL;
    }
    if (!cache_on(cfg) || c->device >= 0)
        return;
    /* TSSHIM_GPU_MEM_LIMIT bounds a call's device memory, cached copies
     * included: such a call takes the normal paths, which apply it.  A
     * call with nothing to cache takes no lock. */
    size_t need = 0;
    for (int op = 0; op < TS_NCACHED; op++)
        need += operand_view(c, op, &v) ? v.len : 0;
    if (!need || (cfg->gpu_mem_limit_mb && need > (size_t)cfg->gpu_mem_limit_mb << 20))
        return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_mutex_lock(&lock);
    if (!usable()) {
        pthread_mutex_unlock(&lock);
        return;
    }
    gpu = g;
    if (!budget_known) {
        budget = g->cache_budget(cfg);
        budget_known = 1;
    }
    for (int op = 0; op < TS_NCACHED; op++) {
        if (!operand_view(c, op, &v))
            continue;
        entry *e = c->cached[op];
        unsigned bit = 1u << op;
        /* Left unasked by the route's look (or by the first run): a first
         * run leaves it so, a second asks now (cheap: the proof just
         * asked), and drops it as acquire would, gone or a work array. */
        if (e && (looked & bit)) {
            if (defer)
                c->unproven |= bit;
            else if (!e->dead && take_news(e) == TS_TRACK_INVALID)
                kill(e, &count.invalid);
            else if (!e->dead)
                dropped_as_rewritten(e, (c->cached[TS_OP_A] == e) + (c->cached[TS_OP_B] == e));
        }
        if (e && e->dead) {
            unref(e);
            e = c->cached[op] = NULL;
            c->unproven &= ~bit;
        }
        /* A and B may be one array (a Gram matrix): the entry made for A serves B. */
        if (!e)
            e = take_entry(c, op, &v, defer);
        const char *state = "hit";
        if (!e) {
            c->unproven &= ~bit;
            if (sighting_of(v.host, v.len)->churns)
                continue;
            e = create(c, &v, cfg);
            state = "new";
        } else if (e->nstale) {
            if (refresh(c, e, cfg)) {
                kill(e, &count.failed);
                unref(e);
                e = NULL;
            }
            state = "refreshed";
        }
        c->cached[op] = e;
        if (!e) {
            c->unproven &= ~bit;
            continue;
        }
        if (state[0] != 'n') {
            count.hits += state[0] == 'h';
            count.refreshed += state[0] == 'r';
            count.saved += v.rows * v.cols;
        }
        c->cache_state[op] = state;
        e->last_use = ++tick;
        c->cache_dev[op] = e->dev + (v.host - e->host);
    }
    c->prove = c->unproven ? ts_cache_prove : NULL;
    pthread_mutex_unlock(&lock);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    c->cache_seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

int ts_cache_gemm(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    prepare(c, cfg, g, 1);
    /* The copies this run takes unasked: the proof clears c->unproven
     * whether or not it could ask (it gives up when the lock stays taken),
     * and the second run's prepare must ask about each of them again. */
    const unsigned unasked = c->unproven;
    int rc = g->gemm(c, cfg, why, why_len);
    if (rc != TS_GPU_STALE)
        return rc;
    pthread_mutex_lock(&lock);
    count.rerun++;
    /* Not hits after all: the second run counts what it does. */
    view v;
    for (int op = 0; op < TS_NCACHED; op++)
        if (c->cache_state[op] && c->cache_state[op][0] == 'h' && operand_view(c, op, &v)) {
            count.hits--;
            count.saved -= v.rows * v.cols;
        }
    pthread_mutex_unlock(&lock);
    /* The call's GPU time is both runs' (the learned rates see it). */
    double first_s = c->gpu_seconds;
    c->unproven = unasked;
    prepare(c, cfg, g, 0);
    rc = g->gemm(c, cfg, why, why_len);
    c->gpu_seconds += first_s;
    if (rc == TS_GPU_STALE) {
        /* Nothing was left to prove: a backend that says so is wrong. */
        snprintf(why, why_len, "a cached operand proved stale twice");
        return -1;
    }
    return rc;
}

void ts_cache_finish(ts_call *c)
{
    if (!c->cached[TS_OP_A] && !c->cached[TS_OP_B])
        return;
    pthread_mutex_lock(&lock);
    for (int op = 0; op < TS_NCACHED; op++)
        if (c->cached[op]) {
            unref(c->cached[op]);
            c->cached[op] = NULL;
        }
    pthread_mutex_unlock(&lock);
}

void ts_cache_report(void)
{
    if (available == 0) {
        ts_log(1, "cache unavailable: %s", unavailable_why);
        return;
    }
    if (!count.created && !count.untracked && !count.no_room)
        return;
    ts_log(1,
           "cache hits=%llu refreshed=%llu new=%llu bytes_not_sent=%llu bytes_resent=%llu evicted=%llu "
           "invalidated=%llu churned=%llu failed=%llu no_room=%llu rerun=%llu neighbour_writes=%llu untracked=%llu%s%s%s",
           count.hits, count.refreshed, count.created, count.saved, count.resent, count.evicted, count.invalid,
           count.churned, count.failed, count.no_room, count.rerun, count.neighbours, count.untracked, count.untracked ? " (" : "", untracked_why,
           count.untracked ? ")" : "");
}

void ts_cache_json(ts_json *j)
{
    pthread_mutex_lock(&lock);
    ts_json_add(j, "{\"available\": %s, ", available < 0 ? "null" : available ? "true" : "false");
    ts_json_add(j, "\"unavailable_why\": ");
    ts_json_string(j, available == 0 ? unavailable_why : "");
    ts_json_add(j,
                ", \"hits\": %llu, \"refreshed\": %llu, \"new\": %llu, \"bytes_not_sent\": %llu, "
                "\"bytes_resent\": %llu, \"evicted\": %llu, \"invalidated\": %llu, \"churned\": %llu, "
                "\"failed\": %llu, \"no_room\": %llu, \"rerun\": %llu, \"neighbour_writes\": %llu, "
                "\"untracked\": %llu}",
                count.hits, count.refreshed, count.created, count.saved, count.resent, count.evicted, count.invalid,
                count.churned, count.failed, count.no_room, count.rerun, count.neighbours, count.untracked);
    pthread_mutex_unlock(&lock);
}

void ts_cache_after_fork(void)
{
    /* Another thread of the parent may have held the lock at the fork. */
    pthread_mutex_init(&lock, NULL);
    count = (__typeof__(count)){ 0 };
}
