/* The write tracker's reading of /proc/self/pagemap (internal to
 * src/cache/): PAGEMAP_SCAN walks that find the pages written since they
 * were write-protected, re-protecting them in the same walk.  No state: the
 * caller passes its descriptors and the buffer the kernel answers in, and
 * gets the written pages as a found_list. */
#ifndef TS_PAGEMAP_SCAN_H
#define TS_PAGEMAP_SCAN_H

#include <linux/fs.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* Newer than some build machines' kernel headers (Debian 12 has 6.1's); the
 * running kernel decides, and the probe reports a kernel without them. */
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

/* The descriptors a walk uses: the userfaultfd (to protect pages again)
 * and /proc/self/pagemap. */
typedef struct {
    int uffd, pagemap;
} ts_scan_fds;

/* Pages found written (or zapped) by a scan, in address order. */
typedef struct {
    uintptr_t *pairs; /* start, end, start, end ... */
    size_t n, cap;
} found_list;

/* Appends [s, e) to f; -1 when out of memory. */
int ts_found_add(found_list *f, uintptr_t s, uintptr_t e);

/* scan_range's walk over [s, e): every page reported, with whether it is
 * registered for asynchronous write protection, written since it was
 * protected, present or swapped; written pages are protected again in the
 * same walk.  The number of regions in vec (or -1), and where the walk
 * stopped. */
long ts_scan_batch(int pagemap, uintptr_t s, uintptr_t e, struct page_region *vec, uintptr_t *walk_end);

/* Scans [s, e) and re-arms it, collecting the written pages into f: 0, or
 * -1 when the range is no longer the memory registered (or the scan
 * failed).  Touches no handle: several may run at once on disjoint ranges
 * (each with its own vec). */
int ts_scan_range(const ts_scan_fds *fds, uintptr_t s, uintptr_t e, struct page_region *vec, found_list *f);

/* The quick walk of [s, e), which asks only for written pages and fails at
 * any mapping not registered for asynchronous write protection: their
 * pages into f (nothing re-protected); 0 when done, 1 when the full walk
 * (ts_scan_range) must decide. */
int ts_scan_written(int pagemap, uintptr_t s, uintptr_t e, struct page_region *vec, found_list *f);

#endif
