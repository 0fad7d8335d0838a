/* The write tracker's PAGEMAP_SCAN walks: see pagemap_scan.h. */
#include "cache/pagemap_scan.h"

#include "cache/write_protect.h"

#include <stdlib.h>

int ts_found_add(found_list *f, uintptr_t s, uintptr_t e)
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

/* One PAGEMAP_SCAN call over [s, e) with these flags, reporting the pages
 * of category `only` (every page when 0) with the categories `report`.
 * Returns the number of regions in vec (or -1), and where the walk stopped. */
static long pm_scan(int pagemap, uintptr_t s, uintptr_t e, uint64_t flags, uint64_t only, uint64_t report,
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
    long n = ioctl(pagemap, PAGEMAP_SCAN, &a);
    *walk_end = a.walk_end;
    return n;
}

long ts_scan_batch(int pagemap, uintptr_t s, uintptr_t e, struct page_region *vec, uintptr_t *walk_end)
{
    return pm_scan(pagemap, s, e, PM_SCAN_WP_MATCHING, 0,
                   PAGE_IS_WPALLOWED | PAGE_IS_WRITTEN | PAGE_IS_PRESENT | PAGE_IS_SWAPPED, vec, walk_end);
}

/* The regions of the walk must tile [s, e) with pages still registered:
 * the walk skips unmapped addresses and mappings without the registration
 * (munmap, mremap, mmap MAP_FIXED over the range), leaving a gap.  A page
 * neither present nor swapped lost its protection marker: its contents were
 * replaced with zeros without a write (MADV_DONTNEED, a discarded MADV_FREE
 * page), which some kernels report as not written (a dropped huge page); it
 * counts as written and is protected again.
 *
 * PM_SCAN_CHECK_WPASYNC is not used: it fails the whole call at the first
 * unregistered mapping, after re-protecting written pages before it whose
 * record the failed call does not return. */
int ts_scan_range(const ts_scan_fds *fds, uintptr_t s, uintptr_t e, struct page_region *vec, found_list *f)
{
    uintptr_t at = s;
    for (;;) {
        uintptr_t walk_end;
        long n = ts_scan_batch(fds->pagemap, at, e, vec, &walk_end);
        if (n < 0)
            return -1;
        for (long i = 0; i < n; i++) {
            const struct page_region *r = &vec[i];
            if (r->start != at || !(r->categories & PAGE_IS_WPALLOWED))
                return -1;
            int zapped = !(r->categories & (PAGE_IS_PRESENT | PAGE_IS_SWAPPED));
            if ((zapped || (r->categories & PAGE_IS_WRITTEN)) && ts_found_add(f, r->start, r->end))
                return -1;
            if (zapped && ts_wp_protect(fds->uffd, r->start, r->end))
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

/* The kernel's fast path: a walk that asks only for written pages reads
 * just each page's protection bit, several times faster than
 * ts_scan_range's walk that reports every page (tests/test_write_tracker's
 * cost lines); it also fails at device mappings, which ts_scan_range's gaps
 * would show.  Zapped pages read as unprotected too. */
int ts_scan_written(int pagemap, uintptr_t s, uintptr_t e, struct page_region *vec, found_list *f)
{
    int status = 0;
    for (uintptr_t at = s, walk_end; !status; at = walk_end) {
        long n = pm_scan(pagemap, at, e, PM_SCAN_CHECK_WPASYNC, PAGE_IS_WRITTEN, PAGE_IS_WRITTEN, vec, &walk_end);
        for (long i = 0; i < n && !status; i++)
            status = ts_found_add(f, vec[i].start, vec[i].end) ? 1 : 0;
        if (n < 0 || (walk_end < e && n < SCAN_BATCH))
            status = 1;
        if (walk_end >= e)
            break;
    }
    return status;
}
