/* Running a split call (the plan from split_plan.c): the crew of worker
 * threads, one per part beyond the first, the device copies of a shared
 * A, and the parts' results made one. */
#include "multigpu/split.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "cpu/cpu_blas.h"
#include "util/reentry.h"
#include "common/thread.h"
#include "cpu/host_scale.h"
#include "util/log.h"
#include "util/stats.h"
#include "multigpu/split_state.h"

/* op(A) shared by the parts of a column split (ts_split_shares_a): its stored
 * region, and each part's device copy, laid out as on the host. */
typedef struct {
    const void *host; /* the matrix A's region lies in */
    ts_region whole;
    size_t elem;
    int64_t parts;
    const int *device;          /* part i's device (the split's list) */
    void *copy[TS_MAX_DEVICES]; /* NULL: that part reads A from the host */
} shared_a;

/* One part in flight and what became of it.  A split call runs its parts
 * in up to three rounds, all parts at once in each: where they share A
 * (ts_split_shares_a), each sends its share from the host, then each copies the
 * others' shares from the other devices; then the GEMMs. */
enum { ROUND_UPLOAD, ROUND_PULL, ROUND_GEMM };

typedef struct split_part {
    ts_call sub;
    const ts_gpu_ops *g;
    const ts_config *cfg;
    shared_a *shared;
    int index;
    int round;
    double share_s;       /* seconds of this part's share copies */
    uint64_t share_h2d;   /* bytes of A it sent from the host */
    int rc;
    char why[160];
} part;

/* Columns [first, end) of A that part i sends from the host. */
static ts_region share_of(const shared_a *sa, int64_t i)
{
    ts_region r = sa->whole;
    int64_t first = sa->whole.cols * i / sa->parts, end = sa->whole.cols * (i + 1) / sa->parts;
    r.col += first;
    r.cols = end - first;
    return r;
}

/* Where a region starts in its matrix, and the bytes from its first element
 * to past its last one, in a copy with the matrix's layout. */
static size_t offset_bytes(const ts_region *r, size_t elem) { return (size_t)(r->row + r->col * r->ld) * elem; }
static size_t span_bytes(const ts_region *r, size_t elem)
{
    return r->cols ? (size_t)((r->cols - 1) * r->ld + r->rows) * elem : 0;
}

static void upload_share(part *p)
{
    shared_a *sa = p->shared;
    ts_region r = share_of(sa, p->index);
    p->rc = p->g->replica_upload(p->sub.device, sa->copy[p->index], sa->host, &r, sa->elem, p->sub.res_a, p->cfg);
    p->share_h2d += (uint64_t)ts_region_elems(&r) * sa->elem;
}

/* The other parts' shares into this part's copy; on success the part reads
 * A there (the backend's device view of a cached operand). */
static void pull_shares(part *p)
{
    const shared_a *sa = p->shared;
    char *mine = sa->copy[p->index];
    for (int64_t j = 0; mine && j < sa->parts; j++) {
        ts_region r = share_of(sa, j);
        size_t off = offset_bytes(&r, sa->elem);
        if (j != p->index && p->g->replica_pull(p->sub.device, mine + off, sa->device[j], (char *)sa->copy[j] + off,
                                                span_bytes(&r, sa->elem)))
            mine = NULL;
    }
    if (mine)
        p->sub.cache_dev[TS_OP_A] = mine + offset_bytes(&sa->whole, sa->elem);
}

static void run_part(part *p)
{
    double t0 = ts_now();
    if (p->round == ROUND_UPLOAD)
        upload_share(p);
    else if (p->round == ROUND_PULL)
        pull_shares(p);
    else
        p->rc = p->g->gemm(&p->sub, p->cfg, p->why, sizeof p->why);
    if (p->round != ROUND_GEMM)
        p->share_s += ts_now() - t0;
}

/* The subsystem's state (split_state.h): the crew's, and the decision's
 * one flag. */
ts_split_state ts_split = {
    .call = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .go = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .pulling = PTHREAD_MUTEX_INITIALIZER,
};

static void *worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    ts_reentry_shim_thread();
    pthread_mutex_lock(&ts_split.lock);
    for (;;) {
        while (!ts_split.job[i])
            pthread_cond_wait(&ts_split.go, &ts_split.lock);
        part *p = ts_split.job[i];
        pthread_mutex_unlock(&ts_split.lock);
        run_part(p);
        pthread_mutex_lock(&ts_split.lock);
        ts_split.job[i] = NULL;
        pthread_cond_broadcast(&ts_split.done);
    }
    return NULL;
}

/* Workers 1 .. n - 1 (as many as could be made); called under ts_split.call. */
static int hire(int n)
{
    while (ts_split.workers < n - 1 && !ts_thread_start(NULL, worker, (void *)(intptr_t)(ts_split.workers + 1)))
        ts_split.workers++;
    return ts_split.workers;
}

/* Runs the parts at once; a part without a worker (none could be made)
 * runs on the calling thread after part 0. */
static void run_parts(part *parts, int n)
{
    pthread_mutex_lock(&ts_split.call);
    int helped = hire(n);
    pthread_mutex_lock(&ts_split.lock);
    for (int i = 1; i < n && i <= helped; i++)
        ts_split.job[i] = &parts[i];
    pthread_cond_broadcast(&ts_split.go);
    pthread_mutex_unlock(&ts_split.lock);
    run_part(&parts[0]);
    for (int i = helped + 1; i < n; i++)
        run_part(&parts[i]);
    pthread_mutex_lock(&ts_split.lock);
    for (int i = 1; i < n && i <= helped; i++)
        while (ts_split.job[i])
            pthread_cond_wait(&ts_split.done, &ts_split.lock);
    pthread_mutex_unlock(&ts_split.lock);
    pthread_mutex_unlock(&ts_split.call);
}

/* acc += x over `reals` real numbers of precision p. */
static void add_into(ts_prec p, void *acc, const void *x, size_t reals)
{
    if (p == TS_S || p == TS_C) {
        float *a = acc;
        const float *b = x;
        for (size_t i = 0; i < reals; i++)
            a[i] += b[i];
    } else {
        double *a = acc;
        const double *b = x;
        for (size_t i = 0; i < reals; i++)
            a[i] += b[i];
    }
}

/* The copies given back: the GEMMs are done, or will not read them. */
static void share_end(part *p, int n)
{
    shared_a *sa = p[0].shared;
    for (int i = 0; sa && i < n; i++) {
        p[i].g->replica_free(sa->device[i], sa->copy[i]);
        p[i].shared = NULL;
    }
}

/* Device copies of A for every part (all or none), and the first round:
 * each part sends its share. */
static int share_begin(shared_a *sa, const ts_slice_plan *plan, const ts_call *c, const ts_gpu_ops *g, const int *dev,
                       part *p, int n)
{
    ts_slice s0;
    ts_slice_get(plan, c, 0, &s0);
    sa->host = c->a;
    sa->whole = s0.r[TS_OP_A];
    sa->elem = ts_elem_size(c->prec);
    sa->parts = n;
    sa->device = dev;
    size_t bytes = offset_bytes(&sa->whole, sa->elem) + span_bytes(&sa->whole, sa->elem);
    int made = 0;
    while (made < n && (sa->copy[made] = g->replica_alloc(dev[made], bytes)))
        made++;
    if (made < n) {
        while (made--)
            g->replica_free(dev[made], sa->copy[made]);
        return 0;
    }
    for (int i = 0; i < n; i++)
        p[i].shared = sa, p[i].round = ROUND_UPLOAD;
    return 1;
}

/* After the uploads: whether every share arrived; else the copies are
 * given back now and every part reads A from the host. */
static int shares_sent(part *p, int n)
{
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok = ok && !p[i].rc;
    if (!ok) {
        share_end(p, n);
        ts_log(2, "%s: sharing A among the split parts failed; each part sends all of it",
               ts_routine_symbol(p[0].sub.routine));
    }
    return ok;
}

/* The pulls' round, with each part's device able to reach the others'
 * memory: turned on here, and off again after the round where the program
 * had not turned it on itself.  One split call at a time does this, so
 * that no call turns access off under another's copies. */
static void pull_round(part *p, int n)
{
    const ts_gpu_ops *g = p[0].g;
    const int *dev = p[0].shared->device;
    unsigned char turned_on[TS_MAX_DEVICES][TS_MAX_DEVICES]; /* part i's device to part j's */
    pthread_mutex_lock(&ts_split.pulling);
    for (int i = 0; i < n; i++) {
        p[i].round = ROUND_PULL;
        for (int j = 0; j < n; j++)
            turned_on[i][j] = dev[i] != dev[j] && g->peer_on(dev[i], dev[j]);
    }
    run_parts(p, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (turned_on[i][j])
                g->peer_off(dev[i], dev[j]);
    pthread_mutex_unlock(&ts_split.pulling);
}

/* Shares A among the parts where it can, before their GEMMs. */
static void share(part *p, int n, const ts_slice_plan *plan, const ts_call *c, const ts_gpu_ops *g, const int *dev,
                  shared_a *sa)
{
    if (!ts_split_shares_a(plan, c, g) || !share_begin(sa, plan, c, g, dev, p, n))
        return;
    run_parts(p, n);
    if (shares_sent(p, n))
        pull_round(p, n);
}

/* TSSHIM_VERBOSE=3: one line per part, before the call's trace line. */
static void trace_parts(const ts_call *c, const ts_slice_plan *plan, const part *parts, int n)
{
    const char dim = plan->dim == TS_SLICE_M ? 'm' : plan->dim == TS_SLICE_N ? 'n' : 'k';
    for (int i = 0; i < n; i++) {
        const ts_call *s = &parts[i].sub;
        int64_t start = (int64_t)i * plan->step;
        ts_log(3,
               "%s split part %d/%d device=%d %c=%lld+%lld path=%s gpu=%.3gs h2d=%llu d2h=%llu a=%s share=%.3gs "
               "%s%s",
               ts_routine_symbol(c->routine), i, n, s->device, dim, (long long)start,
               (long long)(dim == 'm' ? s->m : dim == 'n' ? s->n : s->k), s->gpu_path ? s->gpu_path : "-",
               s->gpu_seconds, (unsigned long long)s->bytes_h2d, (unsigned long long)s->bytes_d2h,
               s->cache_dev[TS_OP_A] ? "shared" : "own", parts[i].share_s, parts[i].rc ? "failed: " : "ok",
               parts[i].rc ? parts[i].why : "");
        if (s->gpu_phases && s->gpu_phases[0])
            ts_log(3, "%s", s->gpu_phases);
    }
}

int ts_split_gemm(const ts_gpu_ops *g, ts_call *c, const ts_config *cfg, const int *dev, int parts, char *why,
                  size_t why_len)
{
    double t0 = ts_now();
    ts_slice_plan plan;
    ts_split_plan(&plan, c, parts);
    int n = (int)plan.count, ksplit = plan.dim == TS_SLICE_K;
    size_t c_bytes = (size_t)(c->m * c->n) * ts_elem_size(c->prec);
    part *p = calloc((size_t)n, sizeof *p);
    unsigned char *scratch = ksplit ? malloc((size_t)n * c_bytes) : NULL;
    if (!p || (ksplit && !scratch)) {
        free(p);
        free(scratch);
        snprintf(why, why_len, "no host memory to split the call");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        ts_split_part(&plan, c, i, dev[i], ksplit ? scratch + (size_t)i * c_bytes : NULL, cfg, &p[i].sub);
        p[i].g = g;
        p[i].cfg = cfg;
        p[i].index = i;
    }
    shared_a sa;
    share(p, n, &plan, c, g, dev, &sa);
    for (int i = 0; i < n; i++)
        p[i].round = ROUND_GEMM;
    run_parts(p, n);

    share_end(p, n);
    int failed = 0, first_failed = -1;
    for (int i = 0; i < n; i++) {
        p[i].sub.bytes_h2d += p[i].share_h2d;
        p[i].sub.gpu_seconds += p[i].share_s;
        c->bytes_h2d += p[i].sub.bytes_h2d;
        c->bytes_d2h += p[i].sub.bytes_d2h;
        if (!p[i].rc)
            ts_stats_device(p[i].sub.device, p[i].sub.gpu_seconds, p[i].sub.bytes_h2d, p[i].sub.bytes_d2h);
        else if (!failed++)
            first_failed = i;
    }
    int rc = failed && (ksplit || failed == n) ? -1 : 0;
    if (!failed && ksplit) {
        /* In part order, so that results do not depend on which part ends first. */
        size_t reals = (size_t)(c->m * c->n) * (ts_prec_is_complex(c->prec) ? 2 : 1);
        for (int i = 1; i < n; i++)
            add_into(c->prec, scratch, scratch + (size_t)i * c_bytes, reals);
        ts_host_update(c, scratch, c->m);
    } else if (!rc) {
        for (int i = 0; i < n; i++)
            if (p[i].rc)
                ts_cpu_gemm_descriptor(&p[i].sub);
    }
    if (failed)
        snprintf(why, why_len, "%d of %d split parts failed; part %d on device %d: %s", failed, n, first_failed,
                 p[first_failed].sub.device, p[first_failed].why);
    if (failed && !rc)
        ts_log(2, "%s: %s; the CPU computed their blocks", ts_routine_symbol(c->routine), why);
    c->split = n;
    c->gpu_path = failed && !rc ? "gpu+cpu" : p[0].sub.gpu_path;
    c->gpu_phases = NULL;
    c->gpu_seconds = ts_now() - t0;
    if (cfg->verbose >= 3)
        trace_parts(c, &plan, p, n);
    free(scratch);
    free(p);
    return rc;
}
