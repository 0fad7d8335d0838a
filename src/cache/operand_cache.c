/* The operand cache's public face (operand_cache.h): a call's look, its
 * run with the cached copies and the second run when a proof finds a write
 * (ts_cache_gemm), its release, the exit report and the forked child.  The
 * parts: cache_directory.c (the entries and the cache's state, one
 * struct), reuse_predictor.c (which ranges earn an upload), cache_proof.c
 * (ts_cache_prove, while the device computes). */
#include "cache/operand_cache.h"
#include "util/json.h"

#include "cache/cache_directory.h"
#include "common/clock.h"
#include "common/mpi_launcher.h"
#include "util/log.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* TSSHIM_CACHE=-1 (the default) keeps the cache off under an MPI launcher:
 * there other processes and the network card write a rank's memory
 * without its page tables (RDMA into registered buffers, XPMEM mappings),
 * which no write protection of this process sees. */
static int cache_on(const ts_config *cfg)
{
    return cfg->cache == 1 || (cfg->cache == -1 && !ts_launcher_present());
}

/* A or B of the call as bytes, when it may be cached.  C never is: the
 * call writes it, and a write to a tracked page faults once per page, which
 * made sending C back slower than sending it up again (docs/performance.md);
 * nor are operands below TSSHIM_CACHE_MIN_MB (operand_cache.h). */
static int operand_view(const ts_call *c, const ts_config *cfg, int op, view *v)
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
    return (int64_t)v->len >= cfg->cache_min_mb << 20 && 2 * v->rows * v->cols >= v->len;
}

/* The entry for operand op, referenced: A's when it holds B too (a Gram
 * matrix's two operands are one array), with A's standing with the
 * tracker; else ts_dir_acquire's, recorded in c->unproven when it asked
 * nothing. */
static entry *take_entry(ts_call *c, int op, const view *v, int defer)
{
    entry *a = op == TS_OP_B ? c->cached[TS_OP_A] : NULL;
    if (a && !a->dead && ts_dir_holds(a, v)) {
        a->refs++;
        if (c->unproven & 1u << TS_OP_A) {
            c->unproven |= 1u << op;
            c->cache_news[op] = c->cache_news[TS_OP_A];
        }
        return a;
    }
    int deferred = 0;
    entry *e = ts_dir_acquire(v, defer, &deferred);
    if (e && deferred) {
        c->unproven |= 1u << op;
        c->cache_news[op] = e->news;
    }
    return e;
}

void ts_cache_look(ts_call *c, const ts_config *cfg, const ts_gpu_ops *g)
{
    ts_cache_state *const cache = ts_cache();
    /* A device operand runs the call on its own device, not the cache's. */
    if (!cache_on(cfg) || c->device >= 0)
        return;
    view v;
    pthread_mutex_lock(&cache->lock);
    for (int op = 0; op < TS_NCACHED; op++) {
        if (!operand_view(c, cfg, op, &v))
            continue;
        entry *e = g && ts_dir_usable() ? (cache->gpu = g, take_entry(c, op, &v, 1)) : NULL;
        if (e) {
            size_t stale = ts_dir_stale_bytes(e), elems = v.rows * v.cols;
            c->cached[op] = e;
            c->resident[op] = stale < elems ? (double)(elems - stale) : 0.0;
        } else if (ts_dir_usable() && (!cache->budget_known || v.len <= cache->budget)) {
            /* Only what the cache could keep earns its upload back. */
            c->resident[op] = ts_reuse_expected_resident(&cache->reuse, v.host, v.len, v.rows * v.cols);
        }
    }
    pthread_mutex_unlock(&cache->lock);
}

/* ts_cache_gemm's first part: the device copies equal to the host as far
 * as is known (copies written lately asked now, the others left to
 * ts_cache_prove with `defer`). */
static void prepare(ts_call *c, const ts_config *cfg, const ts_gpu_ops *g, int defer)
{
    ts_cache_state *const cache = ts_cache();
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
        need += operand_view(c, cfg, op, &v) ? v.len : 0;
    if (!need || (cfg->gpu_mem_limit_mb && need > (size_t)cfg->gpu_mem_limit_mb << 20))
        return;
    double t0 = ts_now();
    pthread_mutex_lock(&cache->lock);
    if (!ts_dir_usable()) {
        pthread_mutex_unlock(&cache->lock);
        return;
    }
    cache->gpu = g;
    if (!cache->budget_known) {
        cache->budget = g->cache_budget(cfg);
        cache->budget_known = 1;
    }
    for (int op = 0; op < TS_NCACHED; op++) {
        if (!operand_view(c, cfg, op, &v))
            continue;
        entry *e = c->cached[op];
        unsigned bit = 1u << op;
        /* Left unasked by the route's look (or by the first run): a first
         * run leaves it so, a second asks now (cheap: the proof just
         * asked), and drops it as acquire would, gone or a work array. */
        if (e && (looked & bit)) {
            if (defer)
                c->unproven |= bit;
            else if (!e->dead && ts_dir_take_news(e) == TS_TRACK_INVALID)
                ts_dir_drop(e, &cache->count.invalid);
            else if (!e->dead)
                ts_dir_dropped_as_rewritten(e, (c->cached[TS_OP_A] == e) + (c->cached[TS_OP_B] == e));
        }
        if (e && e->dead) {
            ts_dir_unref(e);
            e = c->cached[op] = NULL;
            c->unproven &= ~bit;
        }
        /* A and B may be one array (a Gram matrix): the entry made for A serves B. */
        if (!e)
            e = take_entry(c, op, &v, defer);
        const char *state = "hit";
        if (!e) {
            c->unproven &= ~bit;
            if (ts_reuse_churned(&cache->reuse, v.host, v.len))
                continue;
            e = ts_dir_create(c, &v, cfg);
            state = "new";
        } else if (e->nstale) {
            if (ts_dir_refresh(c, e, cfg)) {
                ts_dir_drop(e, &cache->count.failed);
                ts_dir_unref(e);
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
            cache->count.hits += state[0] == 'h';
            cache->count.refreshed += state[0] == 'r';
            cache->count.saved += v.rows * v.cols;
        }
        c->cache_state[op] = state;
        e->last_use = ++cache->tick;
        c->cache_dev[op] = e->dev + (v.host - e->host);
    }
    c->prove = c->unproven ? ts_cache_prove : NULL;
    pthread_mutex_unlock(&cache->lock);
    c->cache_seconds += ts_now() - t0;
}

int ts_cache_gemm(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    ts_cache_state *const cache = ts_cache();
    prepare(c, cfg, g, 1);
    /* The copies this run takes unasked: the proof clears c->unproven
     * whether or not it could ask (it gives up when the lock stays taken),
     * and the second run's prepare must ask about each of them again. */
    const unsigned unasked = c->unproven;
    int rc = g->gemm(c, cfg, why, why_len);
    if (rc != TS_GPU_STALE)
        return rc;
    pthread_mutex_lock(&cache->lock);
    cache->count.rerun++;
    /* Not hits after all: the second run counts what it does. */
    view v;
    for (int op = 0; op < TS_NCACHED; op++)
        if (c->cache_state[op] && c->cache_state[op][0] == 'h' && operand_view(c, cfg, op, &v)) {
            cache->count.hits--;
            cache->count.saved -= v.rows * v.cols;
        }
    pthread_mutex_unlock(&cache->lock);
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
    ts_cache_state *const cache = ts_cache();
    if (!c->cached[TS_OP_A] && !c->cached[TS_OP_B])
        return;
    pthread_mutex_lock(&cache->lock);
    for (int op = 0; op < TS_NCACHED; op++)
        if (c->cached[op]) {
            ts_dir_unref(c->cached[op]);
            c->cached[op] = NULL;
        }
    pthread_mutex_unlock(&cache->lock);
}

void ts_cache_report(void)
{
    ts_cache_state *const cache = ts_cache();
    if (cache->available == 0) {
        ts_log(1, "cache unavailable: %s", cache->unavailable_why);
        return;
    }
    const ts_cache_counts *n = &cache->count;
    if (!n->created && !n->untracked && !n->no_room)
        return;
    ts_log(1,
           "cache hits=%llu refreshed=%llu new=%llu bytes_not_sent=%llu bytes_resent=%llu evicted=%llu "
           "invalidated=%llu churned=%llu failed=%llu no_room=%llu rerun=%llu neighbour_writes=%llu untracked=%llu%s%s%s",
           n->hits, n->refreshed, n->created, n->saved, n->resent, n->evicted, n->invalid, n->churned, n->failed,
           n->no_room, n->rerun, n->neighbours, n->untracked, n->untracked ? " (" : "", cache->untracked_why,
           n->untracked ? ")" : "");
}

void ts_cache_json(ts_json *j)
{
    ts_cache_state *const cache = ts_cache();
    pthread_mutex_lock(&cache->lock);
    const ts_cache_counts *n = &cache->count;
    ts_json_add(j, "{\"available\": %s, ", cache->available < 0 ? "null" : cache->available ? "true" : "false");
    ts_json_add(j, "\"unavailable_why\": ");
    ts_json_string(j, cache->available == 0 ? cache->unavailable_why : "");
    ts_json_add(j,
                ", \"hits\": %llu, \"refreshed\": %llu, \"new\": %llu, \"bytes_not_sent\": %llu, "
                "\"bytes_resent\": %llu, \"evicted\": %llu, \"invalidated\": %llu, \"churned\": %llu, "
                "\"failed\": %llu, \"no_room\": %llu, \"rerun\": %llu, \"neighbour_writes\": %llu, "
                "\"untracked\": %llu}",
                n->hits, n->refreshed, n->created, n->saved, n->resent, n->evicted, n->invalid, n->churned, n->failed,
                n->no_room, n->rerun, n->neighbours, n->untracked);
    pthread_mutex_unlock(&cache->lock);
}

void ts_cache_after_fork(void)
{
    ts_cache_state *const cache = ts_cache();
    /* Another thread of the parent may have held the lock at the fork. */
    pthread_mutex_init(&cache->lock, NULL);
    cache->count = (ts_cache_counts){ 0 };
}
