/* The host write tracker against the ways a program can change memory
 * between two checks: each must be reported, as the pages written or as an
 * invalid range, and memory left alone must be reported clean.  Needs
 * userfaultfd write protection and PAGEMAP_SCAN (Linux 6.7): where
 * ts_tracker_available says no, every point is skipped with its reason.
 * The costs of ts_track_begin and of checks go to '#' lines. */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "cache/write_tracker.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

static size_t P;

enum { MAXSPANS = 64 };

typedef struct {
    ts_track_state st;
    size_t n;
    ts_track_span s[MAXSPANS];
} result;

static result check(ts_track *t)
{
    result r;
    r.st = ts_track_changed(t, r.s, MAXSPANS, &r.n);
    return r;
}

static int clean(ts_track *t)
{
    return check(t).st == TS_TRACK_CLEAN;
}

static int invalid(ts_track *t)
{
    return check(t).st == TS_TRACK_INVALID;
}

/* Written, in exactly the one span [off, off + len). */
static int written_exactly(ts_track *t, size_t off, size_t len)
{
    result r = check(t);
    return r.st == TS_TRACK_WRITTEN && r.n == 1 && r.s[0].offset == off && r.s[0].len == len;
}

/* n fresh pages of private anonymous memory, filled with a pattern unless
 * left unpopulated. */
static char *pages(size_t n, int populate)
{
    char *p = mmap(NULL, n * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        printf("Bail out! mmap of %zu pages failed\n", n);
        exit(1);
    }
    if (populate)
        memset(p, 0x5a, n * P);
    return p;
}

static ts_track *begin(const void *addr, size_t len)
{
    char why[256];
    ts_track *t = ts_track_begin(addr, len, why, sizeof why);
    if (!t)
        tap_diag("ts_track_begin failed: %s", why);
    return t;
}

/* Six pages; the tracked bytes start 100 bytes into page 1 and end 300
 * bytes into page 4, so both end pages are partial and pages 0 and 5 are
 * neighbours outside the range. */
typedef struct {
    char *base, *a;
    size_t len;
    ts_track *t;
} fixture;

static fixture fx_open(int populate)
{
    fixture f;
    f.base = pages(6, populate);
    f.a = f.base + P + 100;
    f.len = 3 * P + 200;
    f.t = begin(f.a, f.len);
    return f;
}

static void fx_close(fixture *f)
{
    ts_track_end(f->t);
    munmap(f->base, 6 * P);
}

/* Page i (1 to 4) of the fixture as a span of the tracked bytes. */
static size_t pg_off(int i)
{
    return i == 1 ? 0 : i * P - P - 100;
}

static size_t pg_len(int i)
{
    return i == 1 ? P - 100 : i == 4 ? 300 : P;
}

static void test_clean(void)
{
    fixture f = fx_open(1);
    int ok = f.t && clean(f.t) && clean(f.t);
    unsigned sum = 0;
    for (size_t i = 0; i < f.len; i++)
        sum += ((volatile char *)f.a)[i];
    tap_ok(ok && clean(f.t), "an untouched range is clean at every check, also after reading every byte (sum %u)", sum);
    fx_close(&f);
}

static void test_unpopulated(void)
{
    fixture f = fx_open(0);
    unsigned sum = 0;
    for (size_t i = 0; i < f.len; i++)
        sum += ((volatile char *)f.a)[i];
    int ok = f.t && clean(f.t);
    f.a[pg_off(3) + 7] = 1;
    tap_ok(ok && written_exactly(f.t, pg_off(3), pg_len(3)) && clean(f.t),
           "never-touched memory: reads leave it clean (sum %u), a first write reports its page", sum);
    fx_close(&f);
}

static void test_single_writes(void)
{
    fixture f = fx_open(1);
    f.a[0] = 1;
    int first = f.t && written_exactly(f.t, pg_off(1), pg_len(1)) && clean(f.t);
    f.a[f.len - 1] = 1;
    int last = f.t && written_exactly(f.t, pg_off(4), pg_len(4)) && clean(f.t);
    f.a[pg_off(2) + 123] = 1;
    int middle = f.t && written_exactly(f.t, pg_off(2), pg_len(2)) && clean(f.t);
    tap_ok(first, "a write to the first byte reports the first (partial) page, then the range is clean again");
    tap_ok(last, "a write to the last byte reports the last partial page, clipped to the range");
    tap_ok(middle, "a write to an inner page reports that page alone");
    fx_close(&f);
}

static void test_neighbours(void)
{
    fixture f = fx_open(1);
    f.base[0] = 1;
    f.base[P - 1] = 1;
    f.base[5 * P] = 1;
    f.base[6 * P - 1] = 1;
    tap_ok(f.t && clean(f.t), "writes to the neighbour pages outside the range are not reported");
    fx_close(&f);
}

static void test_bulk(void)
{
    fixture f = fx_open(1);
    memset(f.a, 1, f.len);
    int set = f.t && written_exactly(f.t, 0, f.len);
    char src[3 * 4096];
    memset(src, 7, sizeof src);
    memcpy(f.a + pg_off(2) + 10, src, 2 * P);
    int copy = f.t && written_exactly(f.t, pg_off(2), f.len - pg_off(2));
    tap_ok(set, "memset over the range reports all of it");
    tap_ok(copy, "memcpy over pages 2-4 reports them as one span");
    fx_close(&f);
}

static void *write_page3(void *arg)
{
    ((char *)arg)[pg_off(3) + 99] = 1;
    return NULL;
}

static void test_thread(void)
{
    fixture f = fx_open(1);
    pthread_t th;
    int ok = f.t && clean(f.t) && !pthread_create(&th, NULL, write_page3, f.a) && !pthread_join(th, NULL);
    tap_ok(ok && written_exactly(f.t, pg_off(3), pg_len(3)), "a write by another thread is reported");
    fx_close(&f);
}

/* The kernel writing into the buffer: read(2) from a pipe and from a file,
 * pwrite(2) to /proc/self/mem. */
static void test_kernel_writes(void)
{
    fixture f = fx_open(1);
    int fds[2], ok = f.t && !pipe(fds) && write(fds[1], "abc", 3) == 3 && read(fds[0], f.a + pg_off(3) + 5, 3) == 3;
    tap_ok(ok && written_exactly(f.t, pg_off(3), pg_len(3)), "read(2) from a pipe into the range is reported");
    close(fds[0]);
    close(fds[1]);

    char name[] = "/tmp/test_write_tracker.XXXXXX", data[100];
    int fd = mkstemp(name);
    memset(data, 3, sizeof data);
    ok = f.t && fd >= 0 && !unlink(name) && write(fd, data, sizeof data) == sizeof data && !lseek(fd, 0, SEEK_SET) &&
         read(fd, f.a + f.len - 50, sizeof data - 50) == sizeof data - 50;
    tap_ok(ok && written_exactly(f.t, pg_off(4), pg_len(4)), "read(2) from a file into the last partial page is reported");
    if (fd >= 0)
        close(fd);

    fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        tap_skip("/proc/self/mem cannot be opened for writing here");
    } else {
        ok = f.t && pwrite(fd, "x", 1, (off_t)(uintptr_t)(f.a + pg_off(2))) == 1;
        tap_ok(ok && written_exactly(f.t, pg_off(2), pg_len(2)), "pwrite(2) to /proc/self/mem over the range is reported");
        close(fd);
    }
    fx_close(&f);
}

static void test_free_malloc(void)
{
    /* Blocks this large come from mmap, and a free does not raise the threshold. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    size_t n = 8 << 20;
    char *x = malloc(n);
    memset(x, 1, n);
    ts_track *t = begin(x, n);
    uintptr_t old = (uintptr_t)x;
    free(x);
    char *y = malloc(n);
    memset(y, 1, n);
    /* An allocator that keeps freed blocks mapped (AddressSanitizer's
     * quarantine) changes nothing there until it reuses them. */
    int reused = (uintptr_t)y == old, unmapped = msync((void *)(old & ~(uintptr_t)(P - 1)), P, MS_ASYNC) != 0;
    if (t && !reused && !unmapped)
        tap_skip("free kept the block mapped and malloc did not reuse it: nothing changed there");
    else
        tap_ok(t && invalid(t), "free then malloc (%s address): invalid", reused ? "the same" : "another");
    ts_track_end(t);
    free(y);
}

static void test_remapping(void)
{
    fixture f = fx_open(1);
    munmap(f.base, 6 * P);
    void *m = mmap(f.base, 6 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    memset(f.base, 0x5a, 6 * P);
    tap_ok(f.t && m == f.base && invalid(f.t) && invalid(f.t),
           "munmap then mmap MAP_FIXED at the same address, same contents: invalid (and stays so)");
    fx_close(&f);

    f = fx_open(1);
    m = mmap(f.base + 2 * P, P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    tap_ok(f.t && m == f.base + 2 * P && invalid(f.t), "mmap MAP_FIXED over one page of the range: invalid");
    fx_close(&f);

    f = fx_open(1);
    munmap(f.base + 3 * P, P);
    tap_ok(f.t && invalid(f.t), "munmap of one page of the range: invalid");
    fx_close(&f);
}

/* The mappings over [p, p + len) in /proc/self/smaps: how many, and how
 * many are registered with a userfaultfd for write protection ("uw"). */
static void smaps(const char *p, size_t len, int *maps, int *uw)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;
    *maps = *uw = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char c;
        if (sscanf(line, "%lx-%lx %c", &lo, &hi, &c) == 3) {
            inside = hi > (uintptr_t)p && lo < (uintptr_t)p + len;
            *maps += inside;
        } else if (inside && !strncmp(line, "VmFlags:", 8)) {
            *uw += strstr(line, " uw") != NULL;
        }
    }
    if (f)
        fclose(f);
}

static void test_registration(void)
{
    char *m = pages(8, 1);
    int maps0, uw0, maps1, uw1, maps2, uw2;
    smaps(m, 8 * P, &maps0, &uw0);
    ts_track *t = begin(m + 2 * P + 10, 3 * P);
    smaps(m, 8 * P, &maps1, &uw1);
    ts_track_end(t);
    smaps(m, 8 * P, &maps2, &uw2);
    tap_ok(t && maps0 == 1 && !uw0 && maps1 == 1 && uw1 == 1,
           "tracking part of a mapping registers the mapping whole: it is not split (%d mapping(s), %d registered)", maps1, uw1);
    tap_ok(t && maps2 == 1 && !uw2, "ts_track_end unregisters it (%d mapping(s), %d registered)", maps2, uw2);
    munmap(m, 8 * P);
}

static void test_mremap(void)
{
    fixture f = fx_open(1);
    char *other = pages(6, 1);
    void *m = mremap(f.base, 6 * P, 6 * P, MREMAP_MAYMOVE | MREMAP_FIXED, other);
    tap_ok(f.t && m == other && invalid(f.t),
           "the program's mremap of its whole mapping to another address works and makes the range invalid");
    ts_track_end(f.t);
    munmap(other, 6 * P);

    f = fx_open(1);
    other = pages(6, 1);
    m = mremap(other, 6 * P, 6 * P, MREMAP_MAYMOVE | MREMAP_FIXED, f.base);
    tap_ok(f.t && m == f.base && invalid(f.t), "mremap of another mapping onto the range: invalid");
    fx_close(&f);

    /* The pages move away; the range stays mapped, empty: it reads zeros. */
    f = fx_open(1);
    other = pages(6, 1);
    m = mremap(f.base, 6 * P, 6 * P, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, other);
    result r = check(f.t);
    int all = r.st == TS_TRACK_WRITTEN && r.n == 1 && r.s[0].offset == 0 && r.s[0].len == f.len;
    tap_ok(f.t && m == other && f.a[0] == 0 && (all || r.st == TS_TRACK_INVALID),
           "mremap MREMAP_DONTUNMAP of the range elsewhere (the range now reads zeros): %s",
           r.st == TS_TRACK_WRITTEN ? "all written" : r.st == TS_TRACK_INVALID ? "invalid" : "NOT REPORTED");
    fx_close(&f);
    munmap(other, 6 * P);

    /* Room to grow in place: twelve pages, the last six given back. */
    char *base = pages(12, 1);
    munmap(base + 6 * P, 6 * P);
    ts_track *t = begin(base + P, 4 * P);
    m = mremap(base, 6 * P, 12 * P, 0);
    int same = t && m == base && clean(t);
    base[2 * P] = 1;
    tap_ok(same && written_exactly(t, P, P),
           "the program's mremap growing its mapping in place works; the range is unchanged (clean), a write is reported");
    ts_track_end(t);
    munmap(base, 12 * P);
}

static void test_madvise(void)
{
    fixture f = fx_open(1);
    madvise(f.base + 2 * P, P, MADV_DONTNEED);
    int ok = f.t && written_exactly(f.t, pg_off(2), pg_len(2));
    tap_ok(ok && f.a[pg_off(2)] == 0 && clean(f.t), "madvise(MADV_DONTNEED) of one page (now zeros) reports that page");
    fx_close(&f);

    /* A huge page is protected whole (one entry): dropping it empties the
     * page table entry above the pages, which some kernels do not report. */
    size_t H = 2 << 20;
    char *raw = pages(2 * H / P, 0), *h = (char *)(((uintptr_t)raw + H - 1) & ~(uintptr_t)(H - 1));
    madvise(h, H, MADV_HUGEPAGE);
    memset(h, 1, H);
    int huge = !madvise(h, H, MADV_COLLAPSE);
    ts_track *t = begin(h, H);
    madvise(h, H, MADV_DONTNEED);
    tap_ok(t && written_exactly(t, 0, H) && clean(t), "madvise(MADV_DONTNEED) of a whole %s reports all of it",
           huge ? "transparent huge page" : "2 MB range (no huge page could be made here)");
    ts_track_end(t);
    munmap(raw, 2 * H);

    /* MADV_FREE lets the kernel drop the page; MADV_PAGEOUT makes it do so now. */
    f = fx_open(1);
    madvise(f.base + 3 * P, P, MADV_FREE);
    madvise(f.base + 3 * P, P, MADV_PAGEOUT);
    result r = check(f.t);
    int dropped = f.a[pg_off(3)] == 0;
    int reported = r.st == TS_TRACK_WRITTEN && r.n == 1 && r.s[0].offset == pg_off(3) && r.s[0].len == pg_len(3);
    tap_ok(f.t && (dropped ? reported : r.st == TS_TRACK_CLEAN), "madvise(MADV_FREE) then MADV_PAGEOUT: %s",
           dropped ? "the page was dropped (zeros) and is reported" : "the page was kept and the range is clean");
    fx_close(&f);
}

static void test_mprotect(void)
{
    fixture f = fx_open(1);
    int ok = f.t && !mprotect(f.base, 6 * P, PROT_READ) && clean(f.t);
    ok = ok && !mprotect(f.base, 6 * P, PROT_READ | PROT_WRITE) && clean(f.t);
    ok = ok && !mprotect(f.base + 2 * P, 2 * P, PROT_NONE) && clean(f.t);
    ok = ok && !mprotect(f.base + 2 * P, 2 * P, PROT_READ | PROT_WRITE) && clean(f.t);
    f.a[pg_off(3)] = 1;
    tap_ok(ok && written_exactly(f.t, pg_off(3), pg_len(3)),
           "mprotect to read-only or none and back changes no byte (clean); a write after it is reported");
    fx_close(&f);
}

/* The child's verdicts, as bits of its exit status. */
enum { CHILD_INVALID = 1, CHILD_OWN = 2 };

static int child_checks(fixture *f)
{
    int bits = invalid(f->t) ? CHILD_INVALID : 0;
    f->a[pg_off(3)] = 2; /* the child's copy of page 3 */
    char *m = pages(2, 1);
    ts_track *c = ts_track_begin(m, 2 * P, NULL, 0);
    if (c && clean(c)) {
        m[P] = 1;
        bits |= written_exactly(c, P, P) ? CHILD_OWN : 0;
    }
    return bits; /* exits with c still armed */
}

static void test_fork(void)
{
    fixture f = fx_open(1);
    if (f.t)
        f.a[pg_off(2)] = 1; /* before the fork, not collected yet */
    pid_t pid = f.t ? fork() : -1;
    if (pid == 0)
        _exit(child_checks(&f));
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    int bits = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    tap_ok(bits & CHILD_INVALID, "fork: in the child, the inherited handle is invalid");
    tap_ok(bits & CHILD_OWN, "fork: the child tracks memory of its own (and exits normally with it armed)");
    tap_ok(f.t && written_exactly(f.t, pg_off(2), pg_len(2)),
           "fork: the parent sees its write from before the fork, not the child's, "
           "and the child's check took nothing from it");
    if (f.t)
        f.a[pg_off(4)] = 3;
    tap_ok(f.t && written_exactly(f.t, pg_off(4), pg_len(4)),
           "fork: a write by the parent after the fork (copy on write) is reported");
    fx_close(&f);
}

/* A covers pages 0-2 and B pages 2-4 of five. */
static void test_overlap(void)
{
    char *m = pages(5, 1);
    ts_track *a = begin(m, 3 * P), *b = begin(m + 2 * P, 3 * P);
    int ok = a && b;
    m[2 * P + 5] = 1;
    tap_ok(ok && written_exactly(a, 2 * P, P) && written_exactly(b, 0, P),
           "overlapping ranges: a write to the shared page is reported to both (the first check re-arms it)");
    m[0] = 1;
    m[4 * P] = 1;
    tap_ok(ok && written_exactly(a, 0, P) && written_exactly(b, 2 * P, P),
           "overlapping ranges: a write to a page of one only is reported to that one");

    m[2 * P + 9] = 1;
    ts_track *c = begin(m + P, 3 * P);
    tap_ok(ok && c && written_exactly(a, 2 * P, P) && written_exactly(b, 0, P) && clean(c),
           "a new overlapping range does not take a write not yet collected by the others, and starts clean");

    ts_track_end(b);
    m[2 * P + 11] = 1;
    m[4 * P + 1] = 1;
    tap_ok(ok && c && written_exactly(a, 2 * P, P) && written_exactly(c, P, P),
           "after one overlapping handle ends, the others still see writes to the pages they shared");
    ts_track_end(a);
    ts_track_end(c);

    ts_track *again = begin(m, 5 * P);
    m[3 * P] = 1;
    tap_ok(again && written_exactly(again, 3 * P, P), "after every handle ended, the range can be tracked anew");
    ts_track_end(again);
    munmap(m, 5 * P);
}

/* Threads tracking the same four pages, each writing to its own page and
 * checking its own handle, while the others' checks re-arm those pages. */
typedef struct {
    char *buf;
    size_t id;
    int misses;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    ts_track *t = ts_track_begin(w->buf, 4 * P, NULL, 0);
    for (int i = 0; t && i < 1000; i++) {
        w->buf[w->id * P + i % 64] = (char)i;
        result r = check(t);
        int seen = 0;
        for (size_t k = 0; k < r.n; k++)
            seen |= r.s[k].offset <= w->id * P && w->id * P < r.s[k].offset + r.s[k].len;
        w->misses += r.st != TS_TRACK_WRITTEN || !seen;
    }
    w->misses += !t;
    ts_track_end(t);
    return NULL;
}

static void test_threads(void)
{
    char *m = pages(4, 1);
    worker w[4];
    pthread_t th[4];
    int ok = 1, misses = 0;
    for (size_t i = 0; i < 4; i++) {
        w[i] = (worker){m, i, 0};
        ok &= !pthread_create(&th[i], NULL, work, &w[i]);
    }
    for (size_t i = 0; i < 4; i++) {
        ok &= !pthread_join(th[i], NULL);
        misses += w[i].misses;
    }
    tap_ok(ok && !misses,
           "4 threads with overlapping handles, each writing its page and checking, 1000 times: "
           "every write reported to its writer (%d missed)", misses);
    munmap(m, 4 * P);
}

static void test_operands_in_one_page(void)
{
    char *m = pages(1, 1);
    ts_track *x = begin(m + 100, 1000), *y = begin(m + 1500, 1000);
    m[100] = 1;
    tap_ok(x && y && written_exactly(x, 0, 1000) && written_exactly(y, 0, 1000),
           "two operands in one page: a write to one is reported to both (page granularity, clipped to each)");
    ts_track_end(x);
    ts_track_end(y);
    munmap(m, P);
}

static void test_many_spans(void)
{
    enum { N = 1024 };
    char *m = pages(N, 1);
    ts_track *t = begin(m, N * P);
    static ts_track_span s[N];
    size_t n = 0;
    for (int i = 0; i < N; i += 2)
        m[i * P] = 1;
    int ok = t && ts_track_changed(t, s, N, &n) == TS_TRACK_WRITTEN && n == N / 2;
    for (size_t i = 0; ok && i < n; i++)
        ok = s[i].offset == 2 * i * P && s[i].len == P;
    tap_ok(ok, "every other page of 1024 written: 512 exact spans (%zu)", n);

    for (int i = 0; i < N; i += 2)
        m[i * P] = 1;
    ok = t && ts_track_changed(t, s, 8, &n) == TS_TRACK_WRITTEN && n == 8 && s[6].offset == 12 * P && s[6].len == P &&
         s[7].offset == 14 * P && s[7].len == (N - 1) * P - 14 * P;
    tap_ok(ok && t && clean(t), "with room for 8 spans, the last one is widened to the last written page");
    ts_track_end(t);
    munmap(m, N * P);
}

static void test_refused(void)
{
    char why[256] = "";
    char *sh = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ts_track *t = ts_track_begin(sh, 4 * P, why, sizeof why);
    tap_ok(!t && *why, "shared anonymous memory is refused (%s)", why);
    ts_track_end(t);
    munmap(sh, 4 * P);

    char name[] = "/tmp/test_write_tracker.XXXXXX";
    int fd = mkstemp(name);
    *why = '\0';
    char *file = fd >= 0 && !unlink(name) && !ftruncate(fd, 4 * (off_t)P)
                     ? mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
                     : MAP_FAILED;
    t = file != MAP_FAILED ? ts_track_begin(file, 4 * P, why, sizeof why) : NULL;
    tap_ok(file != MAP_FAILED && !t && *why, "a private file mapping is refused (%s)", why);
    ts_track_end(t);
    if (file != MAP_FAILED)
        munmap(file, 4 * P);
    if (fd >= 0)
        close(fd);

    /* The program's own userfaultfd watching the range. */
    char *m = pages(4, 1);
    int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    struct uffdio_api api = {.api = UFFD_API};
    struct uffdio_register reg = {.range = {(uintptr_t)m, 4 * P}, .mode = UFFDIO_REGISTER_MODE_MISSING};
    int own = uffd >= 0 && !ioctl(uffd, UFFDIO_API, &api) && !ioctl(uffd, UFFDIO_REGISTER, &reg);
    *why = '\0';
    t = own ? ts_track_begin(m + P, P, why, sizeof why) : NULL;
    tap_ok(own && !t && *why, "memory the program watches with its own userfaultfd is refused (%s)", why);
    ts_track_end(t);
    if (uffd >= 0)
        close(uffd);
    munmap(m, 4 * P);
}

static void test_errno(void)
{
    char *m = pages(2, 1);
    int ok = 1;
    errno = EDOM;
    ts_tracker_available(NULL, 0);
    ok &= errno == EDOM;
    ts_track *t = ts_track_begin(m, 0, NULL, 0);
    ok &= !t && errno == EDOM;
    t = ts_track_begin(m, 2 * P, NULL, 0);
    ok &= t && errno == EDOM;
    m[0] = 1;
    ok &= t && ts_track_changed(t, NULL, 0, NULL) == TS_TRACK_WRITTEN && errno == EDOM;
    munmap(m, 2 * P);
    ok &= t && ts_track_changed(t, NULL, 0, NULL) == TS_TRACK_INVALID && errno == EDOM;
    ts_track_end(t);
    tap_ok(ok && errno == EDOM, "errno is preserved by every call, failing or not");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Costs on 1 GiB of populated memory, with 4 KiB pages and huge pages. */
static void measure_gib(int advice, const char *kind)
{
    size_t len = (size_t)1 << 30;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        tap_diag("no 1 GiB to measure with");
        return;
    }
    madvise(m, len, advice);
    memset(m, 1, len);
    double t0 = now();
    ts_track *t = ts_track_begin(m, len, NULL, 0);
    double t1 = now();
    ts_track_state st = t ? ts_track_changed(t, NULL, 0, NULL) : TS_TRACK_INVALID;
    double t2 = now();
    for (size_t i = 0; i < len; i += 1 << 20)
        m[i] = 2;
    double t3 = now();
    ts_track_state st2 = t ? ts_track_changed(t, NULL, 0, NULL) : TS_TRACK_INVALID;
    double t4 = now();
    tap_diag("1 GiB, %s: begin %.2f ms, clean check %.2f ms (%s), check after 1024 scattered writes %.2f ms (%s)", kind,
             (t1 - t0) * 1e3, (t2 - t1) * 1e3, st == TS_TRACK_CLEAN ? "clean" : "NOT clean", (t4 - t3) * 1e3,
             st2 == TS_TRACK_WRITTEN ? "written" : "NOT written");
    ts_track_end(t);
    munmap(m, len);
}

static void measure(void)
{
    measure_gib(MADV_NOHUGEPAGE, "4 KiB pages");
    measure_gib(MADV_HUGEPAGE, "huge pages where the kernel made them");
    size_t len = 1 << 20;
    char *m = pages(len / P, 1);
    ts_track *t = ts_track_begin(m, len, NULL, 0);
    enum { REPS = 1000 };
    double t0 = now();
    for (int i = 0; t && i < REPS; i++)
        ts_track_changed(t, NULL, 0, NULL);
    double t1 = now();
    for (int i = 0; t && i < REPS; i++) {
        m[(size_t)i * P % len] = 1;
        ts_track_changed(t, NULL, 0, NULL);
    }
    double t2 = now();
    tap_diag("1 MB: clean check %.2f us, check after a one-page write %.2f us (mean of %d)", (t1 - t0) * 1e6 / REPS,
             (t2 - t1) * 1e6 / REPS, REPS);
    ts_track_end(t);
    munmap(m, len);
}

static const struct {
    void (*run)(void);
    int points;
    const char *what;
} tests[] = {
    {test_clean, 1, "clean range"},
    {test_unpopulated, 1, "unpopulated range"},
    {test_single_writes, 3, "single writes"},
    {test_neighbours, 1, "neighbour pages"},
    {test_bulk, 2, "memset and memcpy"},
    {test_thread, 1, "another thread"},
    {test_kernel_writes, 3, "kernel writes"},
    {test_free_malloc, 1, "free and malloc"},
    {test_remapping, 3, "munmap and mmap"},
    {test_registration, 2, "registration"},
    {test_mremap, 4, "mremap"},
    {test_madvise, 3, "madvise"},
    {test_mprotect, 1, "mprotect"},
    {test_fork, 4, "fork"},
    {test_overlap, 5, "overlapping ranges"},
    {test_threads, 1, "threads"},
    {test_operands_in_one_page, 1, "operands sharing a page"},
    {test_many_spans, 2, "many spans"},
    {test_refused, 3, "refused memory"},
    {test_errno, 1, "errno"},
};

int main(void)
{
    P = (size_t)sysconf(_SC_PAGESIZE);
    char why[256] = "";
    int available = ts_tracker_available(why, sizeof why);
    tap_diag("write tracking %s%s", available ? "available" : "unavailable: ", why);
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        for (int k = 0; !available && k < tests[i].points; k++)
            tap_skip("%s: %s", tests[i].what, why);
        if (available)
            tests[i].run();
    }
    if (available)
        measure();
    return tap_done();
}
