/* Host write tracking with userfaultfd asynchronous write protection and the
 * PAGEMAP_SCAN ioctl (Linux 6.7): see write_tracker.h for what it answers. */
#include "cache/write_tracker.h"

#include "common/clock.h"
#include "common/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Newer than some build machines' kernel headers (Debian 12 has 6.1's); the
 * running kernel decides, and the probe reports a kernel without them. */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
    __u64 start, end, categories;
};
struct pm_scan_arg {
    __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
    __u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#endif

/* Regions one PAGEMAP_SCAN call may return; a longer answer takes more calls. */
enum { SCAN_BATCH = 256 };

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

static struct {
    pthread_mutex_t lock;
    pid_t pid;      /* the process the descriptors below belong to; 0: none yet */
    int works;      /* 1: tracking works in this process, -1: it does not, 0: not tried */
    char why[200];  /* why it does not */
    int uffd, pagemap;
    int quick;      /* quick_sync may answer: the kernel's fast walk reads swapped pages right */
    uintptr_t page;
    ts_track *live; /* the handles of this process */
    struct page_region vec[SCAN_BATCH];
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .uffd = -1, .pagemap = -1};

static uintptr_t max_u(uintptr_t a, uintptr_t b)
{
    return a > b ? a : b;
}

static uintptr_t min_u(uintptr_t a, uintptr_t b)
{
    return a < b ? a : b;
}

static void say(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

static void close_descriptors(void)
{
    if (g.uffd >= 0)
        close(g.uffd);
    if (g.pagemap >= 0)
        close(g.pagemap);
    g.uffd = g.pagemap = -1;
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

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void watch_forks(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The pid test catches a child made without the fork handlers (a raw clone
 * system call). */
static void lock(void)
{
    pthread_once(&fork_once, watch_forks);
    pthread_mutex_lock(&g.lock);
    if (g.pid && g.pid != getpid())
        forget_parent();
}

static void unlock(void)
{
    pthread_mutex_unlock(&g.lock);
}

/* One PAGEMAP_SCAN call over [s, e) with these flags, reporting the pages
 * of category `only` (every page when 0) with the categories `report`.
 * Returns the number of regions in vec (or -1), and where the walk stopped. */
static long pm_scan(uintptr_t s, uintptr_t e, uint64_t flags, uint64_t only, uint64_t report,
                    struct page_region *vec, uintptr_t *walk_end)
{
    struct pm_scan_arg a = {
        .size = sizeof a,
        .flags = flags,
        .start = s,
        .end = e,
        .vec = (uintptr_t)vec,
        .vec_len = SCAN_BATCH,
        .category_mask = only,
        .return_mask = report,
    };
    long n = ioctl(g.pagemap, PAGEMAP_SCAN, &a);
    *walk_end = a.walk_end;
    return n;
}

/* scan_range's walk: every page is reported, with whether it is registered
 * for asynchronous write protection, written since it was protected,
 * present or swapped; written pages are protected again in the same walk
 * (PM_SCAN_WP_MATCHING). */
static long scan_batch(uintptr_t s, uintptr_t e, struct page_region *vec, uintptr_t *walk_end)
{
    return pm_scan(s, e, PM_SCAN_WP_MATCHING, 0, PAGE_IS_WPALLOWED | PAGE_IS_WRITTEN | PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
                   vec, walk_end);
}

static int protect(uintptr_t s, uintptr_t e)
{
    struct uffdio_writeprotect wp = {.range = {s, e - s}, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
    return ioctl(g.uffd, UFFDIO_WRITEPROTECT, &wp);
}

/* Best effort: the memory may be gone, or now someone else's. */
static int unregister(uintptr_t s, uintptr_t e)
{
    struct uffdio_range r = {s, e - s};
    ioctl(g.uffd, UFFDIO_UNREGISTER, &r);
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

/* Pages found written (or zapped) by a scan, in address order. */
typedef struct {
    uintptr_t *pairs; /* start, end, start, end ... */
    size_t n, cap;
} found_list;

static int found_add(found_list *f, uintptr_t s, uintptr_t e)
{
    if (f->n + 2 > f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        uintptr_t *p = realloc(f->pairs, cap * sizeof *p);
        if (!p)
            return -1;
        f->pairs = p;
        f->cap = cap;
    }
    f->pairs[f->n++] = s;
    f->pairs[f->n++] = e;
    return 0;
}

/* Scans [s, e) and re-arms it, collecting the written pages into f.  The
 * regions of the walk must tile [s, e) with pages still registered: the
 * walk skips unmapped addresses and mappings without the registration
 * (munmap, mremap, mmap MAP_FIXED over the range), leaving a gap.  A page
 * neither present nor swapped lost its protection marker: its contents were
 * replaced with zeros without a write (MADV_DONTNEED, a discarded MADV_FREE
 * page), which some kernels report as not written (a dropped huge page); it
 * counts as written and is protected again.  Returns 0, or -1 when the range
 * is no longer the memory registered (or the scan failed).  Touches no
 * handle: several may run at once on disjoint ranges.
 *
 * PM_SCAN_CHECK_WPASYNC is not used: it fails the whole call at the first
 * unregistered mapping, after re-protecting written pages before it whose
 * record the failed call does not return. */
static int scan_range(uintptr_t s, uintptr_t e, struct page_region *vec, found_list *f)
{
    uintptr_t at = s;
    for (;;) {
        uintptr_t walk_end;
        long n = scan_batch(at, e, vec, &walk_end);
        if (n < 0)
            return -1;
        for (long i = 0; i < n; i++) {
            const struct page_region *r = &vec[i];
            if (r->start != at || !(r->categories & PAGE_IS_WPALLOWED))
                return -1;
            int zapped = !(r->categories & (PAGE_IS_PRESENT | PAGE_IS_SWAPPED));
            if ((zapped || (r->categories & PAGE_IS_WRITTEN)) && found_add(f, r->start, r->end))
                return -1;
            if (zapped && protect(r->start, r->end))
                return -1;
            at = r->end;
        }
        if (walk_end >= e)
            return at == e ? 0 : -1;
        /* Stopped early only because the batch was full, right after its last region. */
        if (n < SCAN_BATCH || walk_end != at)
            return -1;
    }
}

/* A walk costs about 1.3 ms per GiB of 4 KiB pages and 50 times less
 * where the kernel made huge pages, protecting 1 GiB of 4 KiB pages about
 * 10 ms (tests/test_write_tracker's cost lines): a long range is cut into
 * parts that threads take at once.  A scan goes parallel only when its
 * first PARALLEL_BYTES took long: starting a thread costs tens of
 * microseconds. */
enum { PARALLEL_BYTES = 256 << 20, MAX_PARTS = 8 };
#define PARALLEL_AFTER_S 200e-6

typedef struct part part;
struct part {
    uintptr_t s, e;
    int (*work)(part *p);
    int status;
    found_list found;                   /* scans: the written pages */
    struct page_region vec[SCAN_BATCH]; /* scans: the kernel's answer */
};

static void *part_run(void *arg)
{
    part *p = arg;
    p->status = p->work(p);
    return NULL;
}

static int scan_part(part *p) { return scan_range(p->s, p->e, p->vec, &p->found); }

static int protect_part(part *p) { return protect(p->s, p->e); }

/* Runs work on [s, e) cut into up to MAX_PARTS page-aligned parts, the
 * calling thread taking the first, and gathers the parts' written pages
 * into out (in address order).  The helpers start with every signal
 * blocked, so the program's handlers only ever run on its own threads; a
 * helper that cannot start leaves its part to the calling thread. */
static int in_parts(uintptr_t s, uintptr_t e, int (*work)(part *), found_list *out)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = (e - s) / PARALLEL_BYTES;
    n = n > MAX_PARTS ? MAX_PARTS : n;
    n = cores > 0 && n > (size_t)cores ? (size_t)cores : n;
    part *p = calloc(n > 1 ? n : 1, sizeof *p);
    if (!p)
        return -1;
    if (n < 2)
        n = 1;
    pthread_t tid[MAX_PARTS];
    int started[MAX_PARTS] = { 0 };
    uintptr_t step = ((e - s) / n + g.page - 1) / g.page * g.page;
    for (size_t i = 0; i < n; i++) {
        p[i].s = s + i * step < e ? s + i * step : e;
        p[i].e = i + 1 == n || s + (i + 1) * step > e ? e : s + (i + 1) * step;
        p[i].work = work;
    }
    for (size_t i = 1; i < n; i++)
        started[i] = ts_thread_start(&tid[i], part_run, &p[i]) == 0;
    part_run(&p[0]);
    int status = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && started[i])
            pthread_join(tid[i], NULL);
        else if (i)
            part_run(&p[i]);
        status |= p[i].status;
        for (size_t j = 0; !status && out && j < p[i].found.n; j += 2)
            status |= found_add(out, p[i].found.pairs[j], p[i].found.pairs[j + 1]);
        free(p[i].found.pairs);
    }
    free(p);
    return status ? -1 : 0;
}

/* Write-protects [s, e), in parts when it is long. */
static int protect_range(uintptr_t s, uintptr_t e)
{
    return e - s >= 2 * (uintptr_t)PARALLEL_BYTES ? in_parts(s, e, protect_part, NULL) : protect(s, e);
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
    int status = 0;
    for (uintptr_t at = s, walk_end; !status; at = walk_end) {
        long n = pm_scan(at, e, PM_SCAN_CHECK_WPASYNC, PAGE_IS_WRITTEN, PAGE_IS_WRITTEN, g.vec, &walk_end);
        for (long i = 0; i < n && !status; i++)
            status = found_add(&f, g.vec[i].start, g.vec[i].end) ? 1 : 0;
        if (n < 0 || (walk_end < e && n < SCAN_BATCH))
            status = 1;
        if (walk_end >= e)
            break;
    }
    for (size_t j = 0; !status && j < f.n; j += 2)
        record(f.pairs[j], f.pairs[j + 1]);
    for (size_t j = 0; !status && j < f.n; j += 2)
        status = protect(f.pairs[j], f.pairs[j + 1]) ? 1 : 0;
    free(f.pairs);
    return status;
}

/* Collects the writes to [s, e) into the handles covering them and re-arms
 * the range (quick_sync, else scan_range); -1 when the range is no longer
 * the memory registered: the caller then invalidates the handles over it. */
static int sync_range(uintptr_t s, uintptr_t e)
{
    if (!quick_sync(s, e))
        return 0;
    found_list f = { NULL, 0, 0 };
    uintptr_t first = e - s > 2 * (uintptr_t)PARALLEL_BYTES ? s + PARALLEL_BYTES : e;
    double t0 = ts_now();
    int status = scan_range(s, first, g.vec, &f);
    double took = ts_now() - t0;
    if (!status && first < e)
        status = took * (double)(e - first) / (double)(first - s) > PARALLEL_AFTER_S ? in_parts(first, e, scan_part, &f)
                                                                                   : scan_range(first, e, g.vec, &f);
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
    long n = scan_batch(p, p + 2 * g.page, g.vec, &walk_end);
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
    struct uffdio_register reg = {.range = {p, 2 * g.page}, .mode = UFFDIO_REGISTER_MODE_WP};
    int armed = !ioctl(g.uffd, UFFDIO_REGISTER, &reg) && !protect(p, p + 2 * g.page);
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
    g.uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (g.uffd < 0) {
        int err = errno;
        if (err == ENOSYS)
            return fail("the kernel has no userfaultfd system call (or a seccomp filter hides it)");
        if (err == EPERM)
            return fail("userfaultfd is not permitted (seccomp filter or vm.unprivileged_userfaultfd)");
        if (err == EINVAL)
            return fail("the kernel lacks UFFD_USER_MODE_ONLY (Linux 5.11 or later is needed)");
        return fail("userfaultfd failed: %s", strerror(err));
    }
    /* WP_UNPOPULATED protects pages never touched too (a marker in the
     * empty page table entry), so that a first write to them is seen. */
    struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED};
    if (ioctl(g.uffd, UFFDIO_API, &api))
        return fail("the kernel lacks asynchronous userfaultfd write protection (UFFD_FEATURE_WP_ASYNC, Linux 6.7)");
    g.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (g.pagemap < 0)
        return fail("cannot open /proc/self/pagemap: %s", strerror(errno));
    g.quick = fast_walk_reads_swap();
    return self_test();
}

typedef enum { MAPS_MORE, MAPS_COVERED, MAPS_HOLE, MAPS_OTHER } maps_verdict;

/* One line of /proc/self/maps against the range still to see, [*at, e);
 * *lo becomes the start of the first mapping over the range. */
static maps_verdict judge_line(const char *line, uintptr_t *at, uintptr_t e, uintptr_t *lo)
{
    unsigned long from, to, inode;
    unsigned major, minor;
    char perms[5];
    int name = 0;
    if (sscanf(line, "%lx-%lx %4s %*x %x:%x %lu %n", &from, &to, perms, &major, &minor, &inode, &name) < 6 || !name)
        return MAPS_OTHER;
    if (to <= *at)
        return MAPS_MORE;
    if (from > *at)
        return MAPS_HOLE;
    *lo = min_u(*lo, from);
    const char *n = line + name;
    int anonymous = !*n || !strcmp(n, "[heap]") || !strcmp(n, "[stack]") || !strncmp(n, "[anon:", 6);
    if (perms[3] != 'p' || major || minor || inode || !anonymous)
        return MAPS_OTHER;
    *at = to;
    return *at >= e ? MAPS_COVERED : MAPS_MORE;
}

/* Whether [s, e) is all private anonymous memory; [*lo, *hi) becomes the
 * extent of the mappings over it. */
static int private_anonymous(uintptr_t s, uintptr_t e, uintptr_t *lo, uintptr_t *hi, char *why, size_t why_len)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(why, why_len, "cannot read /proc/self/maps: %s", strerror(errno));
        return 0;
    }
    char buf[8192];
    size_t have = 0;
    uintptr_t at = s;
    *lo = UINTPTR_MAX;
    maps_verdict v = MAPS_MORE;
    ssize_t got;
    while (v == MAPS_MORE && have < sizeof buf - 1 && (got = read(fd, buf + have, sizeof buf - 1 - have)) > 0) {
        have += (size_t)got;
        buf[have] = '\0';
        char *line = buf, *nl;
        while (v == MAPS_MORE && (nl = strchr(line, '\n'))) {
            *nl = '\0';
            v = judge_line(line, &at, e, lo);
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
    }
    close(fd);
    *hi = at;
    if (v == MAPS_OTHER)
        say(why, why_len,
            "part of the range is not private anonymous memory (shared or file-backed pages can change unseen)");
    else if (v != MAPS_COVERED)
        say(why, why_len, "part of the range is not mapped");
    return v == MAPS_COVERED;
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
    struct uffdio_register reg = {.range = {t->reg_start, t->reg_end - t->reg_start}, .mode = UFFDIO_REGISTER_MODE_WP};
    uintptr_t lo, hi;
    if (ioctl(g.uffd, UFFDIO_REGISTER, &reg)) {
        int err = errno;
        if (err == EBUSY)
            say(why, why_len, "another userfaultfd already watches part of the range");
        else
            say(why, why_len, "UFFDIO_REGISTER failed: %s", strerror(err));
    } else if (for_uncovered(t->start, t->end, 0, protect_range)) {
        say(why, why_len, "UFFDIO_WRITEPROTECT failed: %s", strerror(errno));
    } else if (private_anonymous(t->start, t->end, &lo, &hi, why, why_len)) {
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
    if (private_anonymous(s, e, &t->reg_start, &t->reg_end, why, why_len)) {
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
