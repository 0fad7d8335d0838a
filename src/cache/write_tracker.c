/* Host write tracking with userfaultfd asynchronous write protection and the
 * PAGEMAP_SCAN ioctl (Linux 6.7): see write_tracker.h for what it answers.
 * This file keeps the handles and the tracker's state (one struct, g): the
 * set-up and self-test, fork safety, arming a range, and turning walks into
 * each handle's written pages.  The parts it uses, none of which keeps
 * state: write_protect.c (the userfaultfd), pagemap_scan.c (the walks),
 * parallel_scan.c (long ranges on several threads), memory_maps.c
 * (/proc/self/maps: what is private anonymous memory). */
#include "cache/write_tracker.h"

#include "cache/memory_maps.h"
#include "cache/pagemap_scan.h"
#include "cache/parallel_scan.h"
#include "cache/track_util.h"
#include "cache/write_protect.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

struct ts_track {
    ts_track *next;
    pid_t pid;                /* the process that made it: a forked child trusts nothing */
    uintptr_t addr, len;      /* the bytes asked for */
    uintptr_t start, end;     /* their page-aligned cover, write-protected */
    uintptr_t reg_start, reg_end; /* the mappings around it, registered whole */
    int invalid;              /* sticky */
    int written_any;          /* some bit of written is set */
    uint64_t *written;        /* a bit per page: written (or zapped) since the last check */
};

/* The tracker's mutable state, all of it: one per process. */
typedef struct {
    pthread_mutex_t lock;
    pthread_once_t fork_once; /* the fork handlers installed */
    pid_t pid;      /* the process the descriptors below belong to; 0: none yet */
    int works;      /* 1: tracking works in this process, -1: it does not, 0: not tried */
    char why[200];  /* why it does not */
    ts_scan_fds fds; /* the userfaultfd and /proc/self/pagemap; -1 when closed */
    int quick;      /* quick_sync may answer: the kernel's fast walk reads swapped pages right */
    uintptr_t page;
    ts_track *live; /* the handles of this process */
    struct page_region vec[SCAN_BATCH]; /* the kernel's answers to the calling thread's walks */
} tracker_state;

static tracker_state g = {
    .lock = PTHREAD_MUTEX_INITIALIZER, .fork_once = PTHREAD_ONCE_INIT, .fds = {.uffd = -1, .pagemap = -1}};

static void close_descriptors(void)
{
    if (g.fds.uffd >= 0)
        close(g.fds.uffd);
    if (g.fds.pagemap >= 0)
        close(g.fds.pagemap);
    g.fds.uffd = g.fds.pagemap = -1;
}

/* In a forked child: the handles (copies of the parent's) all report
 * invalid, and the descriptors are closed unused, because they act on the
 * parent's address space (a userfaultfd and an open pagemap belong to the
 * memory they were opened for): a scan from the child would re-protect the
 * parent's pages and lose its writes.  The child sets up its own on its next
 * call. */
static void forget_parent(void)
{
    int saved = errno;
    for (ts_track *h = g.live; h; h = h->next)
        h->invalid = 1;
    g.live = NULL;
    close_descriptors();
    g.pid = 0;
    g.works = 0;
    errno = saved;
}

/* fork(2) takes the lock first, so a child never inherits it held by a
 * thread it does not have. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&g.lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&g.lock);
}

static void fork_child(void)
{
    forget_parent();
    pthread_mutex_unlock(&g.lock);
}

static void watch_forks(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The pid test catches a child made without the fork handlers (a raw clone
 * system call). */
static void lock(void)
{
    pthread_once(&g.fork_once, watch_forks);
    pthread_mutex_lock(&g.lock);
    if (g.pid && g.pid != getpid())
        forget_parent();
}

static void unlock(void)
{
    pthread_mutex_unlock(&g.lock);
}

static int protect(uintptr_t s, uintptr_t e)
{
    return ts_wp_protect(g.fds.uffd, s, e);
}

/* Best effort: the memory may be gone, or now someone else's. */
static int unregister(uintptr_t s, uintptr_t e)
{
    ts_wp_unregister(g.fds.uffd, s, e);
    return 0;
}

static void set_bits(uint64_t *map, size_t from, size_t to)
{
    for (; from < to && from % 64; from++)
        map[from / 64] |= 1ull << (from % 64);
    for (; from + 64 <= to; from += 64)
        map[from / 64] = ~0ull;
    for (; from < to; from++)
        map[from / 64] |= 1ull << (from % 64);
}

/* The first bit at or after from (below end) that equals set, else end. */
static size_t next_bit(const uint64_t *map, size_t from, size_t end, int set)
{
    while (from < end) {
        uint64_t w = (set ? map[from / 64] : ~map[from / 64]) >> (from % 64);
        if (!w) {
            from = (from / 64 + 1) * 64;
            continue;
        }
        for (; !(w & 1); w >>= 1)
            from++;
        return from < end ? from : end;
    }
    return end;
}

/* Pages of [s, e) found written: every live handle covering them gets them,
 * whichever handle's check found them, since the scan re-protected them. */
static void record(uintptr_t s, uintptr_t e)
{
    for (ts_track *h = g.live; h; h = h->next) {
        uintptr_t a = max_u(s, h->start), b = min_u(e, h->end);
        if (h->invalid || a >= b)
            continue;
        set_bits(h->written, (a - h->start) / g.page, (b - h->start) / g.page);
        h->written_any = 1;
    }
}

static void invalidate(uintptr_t s, uintptr_t e)
{
    for (ts_track *h = g.live; h; h = h->next)
        if (h->start < e && s < h->end)
            h->invalid = 1;
}

/* Write-protects [s, e), in parts when it is long. */
static int protect_range(uintptr_t s, uintptr_t e)
{
    return ts_protect_range_parallel(&g.fds, g.page, s, e);
}

/* The common check, of a range mostly or wholly unwritten, made cheap: a
 * walk that asks only for written pages reads just each page's protection
 * bit (the kernel's fast path, several times faster than scan_range's walk
 * that reports every page; tests/test_write_tracker's cost lines), and
 * fails at any mapping not registered for asynchronous write protection
 * (PM_SCAN_CHECK_WPASYNC; device mappings too, which scan_range's gaps
 * would show); msync fails on a hole.  Pages it finds written (zapped ones
 * read as unprotected too) are recorded first, then protected again: a
 * write between the walk and the protection is read by the refresh that
 * follows, and a failure leaves the pages to scan_range as written.
 * Returns 0 when done, 1 when scan_range must decide. */
static int quick_sync(uintptr_t s, uintptr_t e)
{
    if (!g.quick || msync((void *)s, e - s, MS_ASYNC))
        return 1;
    found_list f = { NULL, 0, 0 };
    int status = ts_scan_written(g.fds.pagemap, s, e, g.vec, &f);
    for (size_t j = 0; !status && j < f.n; j += 2)
        record(f.pairs[j], f.pairs[j + 1]);
    for (size_t j = 0; !status && j < f.n; j += 2)
        status = protect(f.pairs[j], f.pairs[j + 1]) ? 1 : 0;
    free(f.pairs);
    return status;
}

/* Collects the writes to [s, e) into the handles covering them and re-arms
 * the range (quick_sync, else the full walk, on several threads when long);
 * -1 when the range is no longer the memory registered: the caller then
 * invalidates the handles over it. */
static int sync_range(uintptr_t s, uintptr_t e)
{
    if (!quick_sync(s, e))
        return 0;
    found_list f = { NULL, 0, 0 };
    int status = ts_scan_range_parallel(&g.fds, g.page, s, e, g.vec, &f);
    for (size_t j = 0; !status && j < f.n; j += 2)
        record(f.pairs[j], f.pairs[j + 1]);
    free(f.pairs);
    return status;
}

/* Calls fn on each piece of [s, e) that no valid live handle covers: with
 * its protected pages, or with its registered mappings when registered. */
static int for_uncovered(uintptr_t s, uintptr_t e, int registered, int (*fn)(uintptr_t, uintptr_t))
{
    uintptr_t x = s;
    while (x < e) {
        uintptr_t next = e, covered_to = 0;
        for (ts_track *h = g.live; h; h = h->next) {
            uintptr_t hs = registered ? h->reg_start : h->start, he = registered ? h->reg_end : h->end;
            if (h->invalid)
                continue;
            if (hs <= x && x < he)
                covered_to = max_u(covered_to, he);
            else if (hs > x)
                next = min_u(next, hs);
        }
        if (covered_to) {
            x = min_u(covered_to, e);
            continue;
        }
        if (fn(x, next))
            return -1;
        x = next;
    }
    return 0;
}

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g.why, sizeof g.why, fmt, ap);
    va_end(ap);
    close_descriptors();
    return g.works = -1;
}

/* One scan of the scratch pages [p, p + 2 pages): 1 when the first page
 * alone is written, 0 when none is, -1 otherwise (errno set on an error). */
static int scratch_scan(uintptr_t p)
{
    uintptr_t walk_end;
    long n = ts_scan_batch(g.fds.pagemap, p, p + 2 * g.page, g.vec, &walk_end);
    int first = 0, other = n <= 0;
    for (long i = 0; i < n; i++)
        if (g.vec[i].categories & PAGE_IS_WRITTEN) {
            if (g.vec[i].start == p && g.vec[i].end == p + g.page)
                first = 1;
            else
                other = 1;
        }
    return other ? -1 : first;
}

/* Protects two scratch pages, writes to the first, and scans twice: the
 * first answer must be that page alone, the second (after re-arming) none. */
static int self_test(void)
{
    uintptr_t p = (uintptr_t)mmap(NULL, 2 * g.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == (uintptr_t)MAP_FAILED)
        return fail("no scratch memory for the self-test: %s", strerror(errno));
    int armed = !ts_wp_register(g.fds.uffd, p, p + 2 * g.page) && !protect(p, p + 2 * g.page);
    if (armed)
        *(volatile char *)p = 1;
    errno = 0;
    int first = armed ? scratch_scan(p) : -1, err = errno;
    int second = first == 1 ? scratch_scan(p) : -1;
    munmap((void *)p, 2 * g.page);
    if (armed && (err == ENOTTY || err == EINVAL))
        return fail("the kernel lacks the PAGEMAP_SCAN ioctl (Linux 6.7 or later is needed)");
    if (first != 1 || second != 0)
        return fail("the write-protect self-test failed (%s)",
                    !armed ? "cannot register scratch memory" : "wrong pages reported");
    return g.works = 1;
}

/* Before Linux 6.9 the kernel's written-pages-only walk read a swapped-out
 * page's entry as if it were present, so a page written and then swapped
 * out could read as unwritten ("fs/proc/task_mmu: fix uffd-wp confusion in
 * pagemap_scan_pmd_entry()", 6.9 and some 6.8 stable releases): there only
 * the full walk is trusted. */
static int fast_walk_reads_swap(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
        return 0;
    return major > 6 || (major == 6 && minor >= 9);
}

/* Once per process: 1 when tracking works, -1 (reason in g.why) when not. */
static int set_up(void)
{
    if (g.works)
        return g.works;
    g.pid = getpid();
    g.page = (uintptr_t)sysconf(_SC_PAGESIZE);
    char why[sizeof g.why];
    g.fds.uffd = ts_wp_open(why, sizeof why);
    if (g.fds.uffd < 0)
        return fail("%s", why);
    g.fds.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (g.fds.pagemap < 0)
        return fail("cannot open /proc/self/pagemap: %s", strerror(errno));
    g.quick = fast_walk_reads_swap();
    return self_test();
}

/* Registers the mappings around t whole (registering a part would split a
 * mapping, and the program's mremap of all of it would then fail) and
 * protects the pages of t no other handle covers: those were re-protected
 * by settle_overlaps, and protecting them again would erase writes since
 * then that their handles have not collected.  The memory is checked again
 * once registered: memory replaced after this check is not registered,
 * which the checks see. */
static int arm(ts_track *t, char *why, size_t why_len)
{
    uintptr_t lo, hi;
    if (ts_wp_register(g.fds.uffd, t->reg_start, t->reg_end)) {
        int err = errno;
        if (err == EBUSY)
            say(why, why_len, "another userfaultfd already watches part of the range");
        else
            say(why, why_len, "UFFDIO_REGISTER failed: %s", strerror(err));
    } else if (for_uncovered(t->start, t->end, 0, protect_range)) {
        say(why, why_len, "UFFDIO_WRITEPROTECT failed: %s", strerror(errno));
    } else if (ts_maps_private_anonymous(t->start, t->end, &lo, &hi, why, why_len)) {
        return 0;
    }
    for_uncovered(t->reg_start, t->reg_end, 1, unregister); /* including what a failed registration did */
    return -1;
}

/* Before [s, e) is registered: the pages it shares with live handles are
 * scanned first, so that their writes are recorded in those handles, and a
 * handle whose memory was replaced turns invalid before the new
 * registration could make the new memory look tracked. */
static void settle_overlaps(uintptr_t s, uintptr_t e)
{
    for (ts_track *h = g.live; h; h = h->next) {
        uintptr_t a = max_u(s, h->start), b = min_u(e, h->end);
        if (!h->invalid && a < b && sync_range(a, b))
            invalidate(a, b);
    }
}

static ts_track *start_tracking(uintptr_t addr, size_t len, char *why, size_t why_len)
{
    if (!len || addr + len < addr || addr + len > UINTPTR_MAX - g.page) {
        say(why, why_len, "an empty range, or one that wraps around");
        return NULL;
    }
    uintptr_t s = addr & ~(g.page - 1), e = (addr + len + g.page - 1) & ~(g.page - 1);
    ts_track *t = calloc(1, sizeof *t);
    uint64_t *written = calloc(((e - s) / g.page + 63) / 64, sizeof *written);
    if (!t || !written) {
        free(t);
        free(written);
        say(why, why_len, "out of memory");
        return NULL;
    }
    *t = (ts_track){.pid = getpid(), .addr = addr, .len = len, .start = s, .end = e, .written = written};
    if (ts_maps_private_anonymous(s, e, &t->reg_start, &t->reg_end, why, why_len)) {
        settle_overlaps(t->reg_start, t->reg_end);
        if (!arm(t, why, why_len)) {
            t->next = g.live;
            g.live = t;
            return t;
        }
    }
    free(written);
    free(t);
    return NULL;
}

/* The written pages of t as spans of its bytes; clears them. */
static ts_track_state collect(ts_track *t, ts_track_span *spans, size_t cap, size_t *n)
{
    if (!t->written_any)
        return TS_TRACK_CLEAN;
    size_t pages = (t->end - t->start) / g.page, k = 0;
    for (size_t p = next_bit(t->written, 0, pages, 1); p < pages;) {
        size_t q = next_bit(t->written, p, pages, 0);
        uintptr_t a = max_u(t->start + p * g.page, t->addr), b = min_u(t->start + q * g.page, t->addr + t->len);
        if (k < cap)
            spans[k++] = (ts_track_span){a - t->addr, b - a};
        else if (cap)
            spans[cap - 1].len = b - t->addr - spans[cap - 1].offset;
        p = next_bit(t->written, q, pages, 1);
    }
    memset(t->written, 0, (pages + 63) / 64 * sizeof *t->written);
    t->written_any = 0;
    if (n)
        *n = k;
    return TS_TRACK_WRITTEN;
}

int ts_tracker_available(char *why, size_t len)
{
    int saved = errno;
    lock();
    int works = set_up() > 0;
    if (!works)
        say(why, len, "%s", g.why);
    unlock();
    errno = saved;
    return works;
}

ts_track *ts_track_begin(const void *addr, size_t len, char *why, size_t why_len)
{
    int saved = errno;
    lock();
    ts_track *t = NULL;
    if (set_up() < 0)
        say(why, why_len, "%s", g.why);
    else
        t = start_tracking((uintptr_t)addr, len, why, why_len);
    unlock();
    errno = saved;
    return t;
}

ts_track_state ts_track_changed(ts_track *t, ts_track_span *spans, size_t cap, size_t *n)
{
    int saved = errno;
    if (n)
        *n = 0;
    lock();
    ts_track_state state = TS_TRACK_INVALID;
    if (t && t->pid == getpid() && !t->invalid) {
        if (sync_range(t->start, t->end))
            invalidate(t->start, t->end);
        else
            state = collect(t, spans, cap, n);
    }
    unlock();
    errno = saved;
    return state;
}

void ts_track_end(ts_track *t)
{
    if (!t)
        return;
    int saved = errno;
    lock();
    if (t->pid == getpid()) {
        ts_track **link = &g.live;
        while (*link && *link != t)
            link = &(*link)->next;
        if (*link) {
            *link = t->next;
            for_uncovered(t->reg_start, t->reg_end, 1, unregister);
        }
    }
    unlock();
    free(t->written);
    free(t);
    errno = saved;
}
