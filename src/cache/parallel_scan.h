/* The write tracker's long ranges on several threads (internal to
 * src/cache/): a walk costs about 1.3 ms per GiB of 4 KiB pages and 50
 * times less where the kernel made huge pages, protecting 1 GiB of 4 KiB
 * pages about 10 ms (tests/test_write_tracker's cost lines), so a long
 * range is cut into parts that threads (ts_thread_start) take at once. */
#ifndef TS_PARALLEL_SCAN_H
#define TS_PARALLEL_SCAN_H

#include "cache/pagemap_scan.h"

/* ts_scan_range over [s, e) (page-aligned, pages of `page` bytes), its
 * first part in vec on the calling thread; the rest in parts on several
 * threads when the first part took long enough that the rest would pay
 * for them.  Same answer as ts_scan_range. */
int ts_scan_range_parallel(const ts_scan_fds *fds, uintptr_t page, uintptr_t s, uintptr_t e,
                           struct page_region *vec, found_list *f);

/* Write-protects [s, e), in parts on several threads when it is long; 0,
 * else -1. */
int ts_protect_range_parallel(const ts_scan_fds *fds, uintptr_t page, uintptr_t s, uintptr_t e);

#endif
