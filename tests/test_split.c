/* One call split across devices (src/multigpu/split_plan.c, split_run.c), without a GPU: the cut of
 * each shape class into blocks, the TSSHIM_SPLIT_* keys, when a call is
 * split, and whole split calls run through a fake backend whose gemm op is
 * the CPU BLAS (and fails on demand), against the CPU BLAS on the whole
 * call: row, column and k blocks, beta = 0 over a C of NaN, a failed part. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "route/classify.h"
#include "common/cost_model.h"
#include "learn/profile.h"
#include "fake_env.h"
#include "entry/gemm_entry.h"
#include "multigpu/split.h"
#include "util/stats.h"
#include "tap.h"
#include "route/validate.h"

/* The CPU BLAS the test links: the fake device computes with it. */
extern void dgemm_(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                   const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
extern void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                   const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);

/* The fake backend: `visible` devices, `free_bytes` free on the home one;
 * its gemm op computes on the CPU and fails for parts on `failing`. */
static int visible = 2, failing = -1, free_asked;
static size_t free_bytes = (size_t)1 << 40;

static int fake_count(void) { return visible; }
static size_t fake_free(void)
{
    free_asked++;
    return free_bytes;
}

static void blas(const ts_call *c)
{
    int m = (int)c->m, n = (int)c->n, k = (int)c->k, lda = (int)c->lda, ldb = (int)c->ldb, ldc = (int)c->ldc;
    (c->prec == TS_D ? dgemm_ : zgemm_)(&c->transa, &c->transb, &m, &n, &k, c->alpha, c->a, &lda, c->b, &ldb, c->beta,
                                        c->c, &ldc, 1, 1);
}

static int fake_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    (void)cfg;
    if (c->device == failing) {
        snprintf(why, why_len, "fake failure on device %d", c->device);
        return -1;
    }
    blas(c);
    c->gpu_path = "fake";
    return 0;
}

static const ts_gpu_ops fake = { .abi = TS_GPU_ABI, .gemm = fake_gemm, .device_count = fake_count,
                                 .home_free = fake_free };

/* Device copies of a shared A (src/multigpu/split_plan.c's ts_split_shares_a) in host memory: a
 * copy starts as NaN, so a share that never arrives shows in C; making one
 * fails on device `alloc_failing`, a pull into one on `pull_failing`.
 * shared_reads counts parts whose gemm read A from a copy. */
static int alloc_failing = -1, pull_failing = -1, copies_made, copies_freed;
static _Atomic int shared_reads; /* parts run on threads of their own */

/* Peer access turned on and off: on[d][p] while device d may reach p;
 * pulls counts copies made while the source was not reachable, and
 * peer_errors any access turned on twice, off while off, or between a
 * device and itself. */
static unsigned char on[3][3];
static int peer_errors;
static _Atomic int unreachable_pulls;

static int fake_peer_on(int device, int peer)
{
    if (device == peer || on[device][peer])
        peer_errors++;
    on[device][peer] = 1;
    return 1;
}

static void fake_peer_off(int device, int peer)
{
    if (!on[device][peer])
        peer_errors++;
    on[device][peer] = 0;
}

static void *fake_replica_alloc(int device, size_t bytes)
{
    void *p = device == alloc_failing ? NULL : malloc(bytes);
    if (p) {
        memset(p, 0xff, bytes);
        copies_made++;
    }
    return p;
}

static void fake_replica_free(int device, void *dev)
{
    (void)device;
    free(dev);
    copies_freed++;
}

static int fake_replica_upload(int device, void *dev, const void *host, const ts_region *r, size_t elem,
                               ts_residency res, const ts_config *cfg)
{
    (void)device, (void)res, (void)cfg;
    for (int64_t j = 0; j < r->cols; j++) {
        ts_region col = { r->row, r->col + j, r->rows, 1, r->ld };
        memcpy((void *)ts_region_at(dev, &col, elem), ts_region_at(host, &col, elem), (size_t)r->rows * elem);
    }
    return 0;
}

static int fake_replica_pull(int device, void *dst, int src_device, const void *src, size_t bytes)
{
    if (device == pull_failing)
        return -1;
    unreachable_pulls += !on[device][src_device];
    memcpy(dst, src, bytes);
    return 0;
}

static int fake_sharing_gemm(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    ts_call d = *c;
    if (c->cache_dev[TS_OP_A]) {
        d.a = c->cache_dev[TS_OP_A];
        shared_reads++;
    }
    int rc = fake_gemm(&d, cfg, why, why_len);
    c->gpu_path = d.gpu_path;
    return rc;
}

static const ts_gpu_ops fake_sharing = { .abi = TS_GPU_ABI, .gemm = fake_sharing_gemm, .device_count = fake_count,
                                         .home_free = fake_free, .replica_alloc = fake_replica_alloc,
                                         .replica_free = fake_replica_free, .replica_upload = fake_replica_upload,
                                         .replica_pull = fake_replica_pull, .peer_on = fake_peer_on,
                                         .peer_off = fake_peer_off };

/* The backend check_run splits on. */
static const ts_gpu_ops *backend = &fake;

/* A valid, classified call on the given operands, as the route sees it. */
static ts_call make_call(const ts_config *cfg, ts_prec p, char ta, char tb, int64_t m, int64_t n, int64_t k,
                         const void *alpha, const void *a, const void *b, const void *beta, void *cm)
{
    ts_call c;
    ts_call_init(&c, ts_gemm_routine(p), ta, tb, m, n, k, alpha, a, ta == 'N' ? m : k, b, tb == 'N' ? k : n, beta, cm,
                 m);
    ts_validate(&c);
    ts_scalar_flags(&c);
    ts_classify(&c, cfg->min_long, cfg->max_skinny);
    return c;
}

/* Every part's place in the call: blocks in order that cover the long
 * dimension once, operands and C at the block's first element. */
static void check_plan(const ts_config *cfg, char ta, char tb, int64_t m, int64_t n, int64_t k, int parts,
                       ts_slice_dim want_dim, int want_count, const char *what)
{
    static const double one = 1.0, beta = 0.5;
    char *a = (char *)0x100000, *b = (char *)0x200000, *cm = (char *)0x300000, scratch[8];
    ts_call c = make_call(cfg, TS_D, ta, tb, m, n, k, &one, a, b, &beta, cm);
    ts_slice_plan p;
    ts_split_plan(&p, &c, parts);
    int ok = p.dim == want_dim && p.count == want_count;
    int64_t next = 0;
    for (int64_t i = 0; ok && i < p.count; i++) {
        ts_call s;
        ts_split_part(&p, &c, i, (int)i, scratch, cfg, &s);
        int64_t start = next, len = want_dim == TS_SLICE_M ? s.m : want_dim == TS_SLICE_N ? s.n : s.k;
        next += len;
        int64_t rows_a = want_dim == TS_SLICE_M ? start : 0, rows_b = want_dim == TS_SLICE_N ? start : 0;
        int64_t kk = want_dim == TS_SLICE_K ? start : 0;
        /* op(A) is m x k: stored as is for 'N', transposed otherwise. */
        int64_t off_a = ta == 'N' ? rows_a + kk * c.lda : kk + rows_a * c.lda;
        int64_t off_b = tb == 'N' ? kk + rows_b * c.ldb : rows_b + kk * c.ldb;
        ok = s.device == (int)i && s.a == a + 8 * off_a && s.b == b + 8 * off_b && s.cached[0] == NULL &&
             s.lda == c.lda && s.ldb == c.ldb && len > 0;
        if (want_dim == TS_SLICE_K)
            ok = ok && s.c == scratch && s.ldc == m && s.beta_zero && !s.beta_one && *(const double *)s.alpha == 1.0 &&
                 s.m == m && s.n == n;
        else
            ok = ok && s.c == cm + 8 * (want_dim == TS_SLICE_M ? start : start * c.ldc) && s.ldc == c.ldc &&
                 s.beta == &beta && s.k == k;
    }
    tap_ok(ok && next == p.extent, "plan: %s %c%c m=%lld n=%lld k=%lld in %d: %lld parts along %c", what, ta, tb,
           (long long)m, (long long)n, (long long)k, parts, (long long)p.count, "mnk"[p.dim]);
}

static void fill(double *x, size_t reals, unsigned seed)
{
    for (size_t i = 0; i < reals; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (double)(seed >> 8 & 0xffff) / 32768.0 - 1.0;
    }
}

/* A whole split call through the fake backend against the CPU BLAS. */
static void check_run(const ts_config *cfg, ts_prec p, char ta, char tb, int64_t m, int64_t n, int64_t k, int nan_c,
                      const char *what)
{
    static const double alpha[2] = { 0.75, -0.5 }, beta[2] = { -0.5, 0.25 }, zero[2] = { 0, 0 };
    int r = p == TS_Z ? 2 : 1;
    size_t ra = (size_t)(m * k * r), rb = (size_t)(k * n * r), rc = (size_t)(m * n * r);
    double *a = malloc(ra * 8), *b = malloc(rb * 8), *c0 = malloc(rc * 8), *got = malloc(rc * 8),
           *want = malloc(rc * 8);
    fill(a, ra, 1);
    fill(b, rb, 2);
    fill(c0, rc, 3);
    for (size_t i = 0; nan_c && i < rc; i++)
        c0[i] = NAN;
    memcpy(got, c0, rc * 8);
    memcpy(want, c0, rc * 8);
    const void *be = nan_c ? zero : beta;
    ts_call ref = make_call(cfg, p, ta, tb, m, n, k, alpha, a, b, be, want);
    blas(&ref);
    ts_call c = make_call(cfg, p, ta, tb, m, n, k, alpha, a, b, be, got);
    int dev[TS_MAX_DEVICES];
    int parts = ts_split_devices(&c, cfg, backend, dev);
    char why[256] = "";
    int rc_split = parts ? ts_split_gemm(backend, &c, cfg, dev, parts, why, sizeof why) : -2;
    double worst = 0;
    for (size_t i = 0; i < rc; i++) {
        double d = fabs(got[i] - want[i]) / (1.0 + fabs(want[i]));
        worst = isnan(d) ? INFINITY : d > worst ? d : worst;
    }
    int failed_k = failing >= 0 && ts_slice_long_dim(&c) == TS_SLICE_K;
    char name = p == TS_D ? 'd' : 'z';
    if (failed_k)
        tap_ok(rc_split == -1 && !memcmp(got, c0, rc * 8), "run: %cgemm %c%c %s: C untouched (%s)", name, ta, tb, what,
               why);
    else
        tap_ok(rc_split == 0 && c.split == parts && parts > 1 && worst < 1e-12 &&
                   !strcmp(c.gpu_path, failing >= 0 ? "gpu+cpu" : "fake"),
               "run: %cgemm %c%c %s: %d parts, path %s, worst relative difference %.3g%s%s", name, ta, tb, what, parts,
               c.gpu_path ? c.gpu_path : "-", worst, why[0] ? "; " : "", why);
    free(a), free(b), free(c0), free(got), free(want);
}

/* The exit report's device lines in `path`: runs[d] for devices 0 .. 2,
 * -1 where a device has no line. */
static void device_runs(const char *path, long runs[3])
{
    FILE *f = fopen(path, "r");
    char line[512];
    runs[0] = runs[1] = runs[2] = -1;
    while (f && fgets(line, sizeof line, f)) {
        int d;
        long n;
        if (sscanf(line, "tsshim: device %d runs=%ld ", &d, &n) == 2 && d >= 0 && d < 3)
            runs[d] = n;
    }
    if (f)
        fclose(f);
}

int main(void)
{
    /* Built-in cost figures, whatever profile this machine has; the exit
     * report (ts_stats_report) into a file of this test's. */
    setenv("TSSHIM_PROFILE", "/nonexistent/tsshim-profile", 1);
    char report[] = "/tmp/test_split.XXXXXX";
    int report_fd = mkstemp(report);
    setenv("TSSHIM_VERBOSE", "1", 1);
    setenv("TSSHIM_LOG", report, 1);
    ts_config cfg;

    tap_ok(load_config(&cfg, NULL, NULL) == 0 && cfg.split == -1 && cfg.split_devices.count == 0 && cfg.split_min_ms == 20,
           "defaults: TSSHIM_SPLIT=-1, no device list, TSSHIM_SPLIT_MIN_MS=20");
    static const char *const lists[] = { "TSSHIM_SPLIT_DEVICES", "0, 2,2 ,1", NULL };
    tap_ok(load_config(&cfg, lists, NULL) == 0 && cfg.split_devices.count == 4 && cfg.split_devices.dev[0] == 0 &&
               cfg.split_devices.dev[1] == 2 && cfg.split_devices.dev[2] == 2 && cfg.split_devices.dev[3] == 1,
           "TSSHIM_SPLIT_DEVICES=\"0, 2,2 ,1\": four entries, repeats kept");
    static const char *const bad[][3] = { { "TSSHIM_SPLIT_DEVICES", "0,x", NULL },
                                          { "TSSHIM_SPLIT_DEVICES", "-1", NULL },
                                          { "TSSHIM_SPLIT_DEVICES", "64", NULL },
                                          { "TSSHIM_SPLIT", "2", NULL },
                                          { "TSSHIM_SPLIT_MIN_MS", "-1", NULL } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tap_ok(load_config(&cfg, bad[i], NULL) == 1 && cfg.split_devices.count == 0 && cfg.split == -1 && cfg.split_min_ms == 20,
               "%s=%s rejected, default kept", bad[i][0], bad[i][1]);

    static const char *const small[] = { "TSSHIM_MIN_LONG", "100", "TSSHIM_MAX_SKINNY", "8", "TSSHIM_SPLIT", "1",
                                         "TSSHIM_SPLIT_MIN_MS", "0", NULL };
    load_config(&cfg, small, NULL);
    check_plan(&cfg, 'N', 'N', 1000, 4, 300, 3, TS_SLICE_M, 3, "TSM2");
    check_plan(&cfg, 'T', 'C', 1000, 4, 300, 3, TS_SLICE_M, 3, "TSM2");
    check_plan(&cfg, 'C', 'T', 4, 1000, 300, 2, TS_SLICE_N, 2, "TSM2 mirror");
    check_plan(&cfg, 'N', 'T', 1001, 3, 5, 4, TS_SLICE_M, 4, "ISM2");
    check_plan(&cfg, 'T', 'N', 4, 3, 1001, 3, TS_SLICE_K, 3, "TSMTTSM");
    check_plan(&cfg, 'N', 'C', 4, 3, 1001, 2, TS_SLICE_K, 2, "TSMTTSM");
    check_plan(&cfg, 'T', 'T', 300, 300, 300, 2, TS_SLICE_N, 2, "regular");
    check_plan(&cfg, 'N', 'N', 300, 2, 50, 4, TS_SLICE_N, 2, "n = 2 in 4");

    /* When a call is split. */
    static const double one = 1.0;
    static double a[1], b[1], cm[1];
    ts_call big = make_call(&cfg, TS_D, 'T', 'N', 8, 8, 1 << 24, &one, a, b, &one, cm);
    int dev[TS_MAX_DEVICES];
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 2 && dev[0] == 0 && dev[1] == 1,
           "two visible devices: a Gram call is split over devices 0 and 1");
    visible = 1;
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 0, "one visible device: not split");
    static const char *const twice[] = { "TSSHIM_MIN_LONG", "100", "TSSHIM_SPLIT", "1", "TSSHIM_SPLIT_DEVICES", "0,0",
                                         NULL };
    load_config(&cfg, twice, NULL);
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 2 && dev[0] == 0 && dev[1] == 0,
           "TSSHIM_SPLIT_DEVICES=0,0 on one device: split in two (%.0f ms predicted on one GPU)",
           1e3 * ts_predict_gpu_seconds(&big, ts_profile_get()));
    static const char *const missing[] = { "TSSHIM_SPLIT", "1", "TSSHIM_SPLIT_DEVICES", "0,1", NULL };
    load_config(&cfg, missing, NULL);
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 0, "a listed device that is not visible: not split");
    visible = 3;
    static const char *const slow[] = { "TSSHIM_SPLIT", "1", "TSSHIM_SPLIT_MIN_MS", "1e6", NULL };
    load_config(&cfg, slow, NULL);
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 0, "predicted below TSSHIM_SPLIT_MIN_MS, fits: not split");
    free_bytes = 1 << 20;
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 3, "below TSSHIM_SPLIT_MIN_MS but larger than free memory: split");
    /* A small call does not ask the device for its free memory (a driver
     * call per small call forced to the GPU), and runs whole. */
    ts_call little = make_call(&cfg, TS_D, 'N', 'N', 64, 64, 64, &one, a, b, &one, cm);
    free_asked = 0;
    tap_ok(ts_split_devices(&little, &cfg, &fake, dev) == 0 && free_asked == 0,
           "a 64^3 call, even with 1 MiB free: not split, free memory not asked (%d)", free_asked);
    free_bytes = (size_t)1 << 40;
    static const char *const off[] = { "TSSHIM_SPLIT", "0", NULL };
    load_config(&cfg, off, NULL);
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 0, "TSSHIM_SPLIT=0: not split");
    static const char *const pinned[] = { "TSSHIM_SPLIT", "-1", "TSSHIM_DEVICE", "1", NULL };
    load_config(&cfg, pinned, NULL);
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 0, "TSSHIM_SPLIT=-1 with TSSHIM_DEVICE=1: not split");
    load_config(&cfg, small, NULL);
    big.res_b = TS_MEM_DEVICE;
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 0, "a device operand: not split");
    big.res_b = TS_MEM_PINNED;
    tap_ok(ts_split_devices(&big, &cfg, &fake, dev) == 3, "pinned operands: split");
    /* Column blocks of a square call each need all of A: on 8 devices the
     * host would copy 8 A's of pageable memory, more time than the whole
     * call takes on one; from pinned memory only the links count. */
    visible = 8;
    ts_call square = make_call(&cfg, TS_D, 'N', 'N', 20000, 20000, 20000, &one, a, b, &one, cm);
    square.beta_zero = 1;
    tap_ok(ts_split_devices(&square, &cfg, &fake, dev) == 0,
           "a pageable square call on 8 devices: not split (the host's copies of A, %.0f ms, bound the parts)",
           1e3 * 9 * 20000.0 * 20000 * 8 / (ts_profile_get()->host_copy_gbs * 1e9));
    square.res_a = square.res_b = square.res_c = TS_MEM_PINNED;
    tap_ok(ts_split_devices(&square, &cfg, &fake, dev) == 8, "the same call on pinned memory: split in 8");
    visible = 3;
    /* A pageable A of 12.8 GB: split while nothing of it is on the home
     * device; once the cache expects to hold half of it (seen once
     * before), the whole call re-sends less than the parts together. */
    ts_call reused = make_call(&cfg, TS_D, 'N', 'N', 40000, 8, 40000, &one, a, b, &one, cm);
    reused.beta_zero = 1;
    int first = ts_split_devices(&reused, &cfg, &fake, dev);
    reused.resident[TS_OP_A] = 0.5 * 40000.0 * 40000 * 8;
    tap_ok(first == 3 && ts_split_devices(&reused, &cfg, &fake, dev) == 0,
           "a pageable TSM2 call: split in 3 when new (%d), run whole once half of A is expected resident", first);

    /* Whole calls through the fake backend, over devices 0, 1, 2. */
    static const char trans[] = "NTC";
    for (int p = TS_D; p <= TS_Z; p += 2)
        for (int x = 0; x < 3; x++) {
            char ta = trans[x], tb = trans[(x + 1) % 3];
            check_run(&cfg, (ts_prec)p, ta, tb, 1000, 5, 200, 0, "TSM2");
            check_run(&cfg, (ts_prec)p, ta, tb, 6, 5, 1000, 0, "TSMTTSM");
            check_run(&cfg, (ts_prec)p, ta, tb, 6, 5, 1000, 1, "TSMTTSM, beta 0, C NaN");
            check_run(&cfg, (ts_prec)p, ta, tb, 150, 140, 130, 0, "regular");
        }
    failing = 1;
    check_run(&cfg, TS_D, 'N', 'N', 1000, 5, 200, 0, "TSM2, device 1 failing");
    check_run(&cfg, TS_Z, 'N', 'T', 150, 140, 130, 1, "regular, beta 0, C NaN, device 1 failing");
    check_run(&cfg, TS_D, 'T', 'N', 6, 5, 1000, 0, "TSMTTSM, device 1 failing");

    failing = -1;

    /* Sharing A among the parts of a column split: every part reads A from
     * its device copy (which holds NaN wherever a share did not arrive),
     * every copy is given back; a row or k split shares nothing; a copy
     * that cannot be made, or a pull that fails, leaves those parts on the
     * host's A.  Before them, the statistics' device lines. */
    long runs[3];
    ts_stats_report(-1);
    backend = &fake_sharing;
    for (int p = TS_D; p <= TS_Z; p += 2)
        for (int x = 0; x < 3; x++) {
            char ta = trans[x], tb = trans[(x + 1) % 3];
            shared_reads = 0;
            check_run(&cfg, (ts_prec)p, ta, tb, 150, 140, 130, 0, "regular, A shared");
            tap_ok(shared_reads == 3 && copies_made == copies_freed,
                   "regular %c%c, A shared: %d of 3 parts read the shared copy, %d of %d copies given back", ta, tb,
                   shared_reads, copies_freed, copies_made);
        }
    shared_reads = 0;
    check_run(&cfg, TS_D, 'N', 'N', 1000, 5, 200, 0, "TSM2, rows split");
    check_run(&cfg, TS_D, 'T', 'N', 6, 5, 1000, 0, "TSMTTSM, k split");
    tap_ok(shared_reads == 0 && copies_made == copies_freed, "row and k splits share nothing (%d shared reads)",
           shared_reads);
    alloc_failing = 2;
    check_run(&cfg, TS_D, 'T', 'N', 150, 140, 130, 0, "regular, no copy on device 2");
    tap_ok(shared_reads == 0 && copies_made == copies_freed,
           "no copy on device 2: no part reads a copy (%d), the made ones given back",
           shared_reads);
    int left_on = 0;
    for (int d = 0; d < 3; d++)
        for (int q = 0; q < 3; q++)
            left_on += on[d][q];
    tap_ok(peer_errors == 0 && unreachable_pulls == 0 && left_on == 0,
           "peer access: on for every pull between two devices, off after the pulls (%d errors, %d pulls unreachable, "
           "%d left on)", peer_errors, unreachable_pulls, left_on);
    alloc_failing = -1;
    pull_failing = 1;
    check_run(&cfg, TS_Z, 'N', 'C', 150, 140, 130, 1, "regular, beta 0, C NaN, a pull to device 1 failing");
    tap_ok(shared_reads == 2 && copies_made == copies_freed,
           "a pull to device 1 failing: parts 0 and 2 read their copies (%d)",
           shared_reads);
    pull_failing = -1;
    /* The square call that was not split above: sharing A, the host copies
     * A once and B and C in eighths, and 8 devices beat one. */
    visible = 8;
    square.res_a = square.res_b = square.res_c = TS_MEM_HOST;
    tap_ok(ts_split_devices(&square, &cfg, &fake_sharing, dev) == 8,
           "a pageable square call on 8 devices, A shared: split in 8");
    visible = 3;
    backend = &fake;

    device_runs(report, runs);
    tap_ok(report_fd >= 0 && runs[0] > 3 && runs[2] == runs[0] && runs[1] == runs[0] - 3,
           "exit report: each device's line counts the parts it ran (devices 0, 1, 2: %ld, %ld, %ld runs)", runs[0],
           runs[1], runs[2]);
    if (report_fd >= 0) {
        close(report_fd);
        unlink(report);
    }
    return tap_done();
}
