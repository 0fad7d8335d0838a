/* Host write tracking: whether any byte of a host range changed since it was
 * last looked at, so that a copy of it kept on the GPU may be reused.
 *
 * The kernel keeps the record: the range is registered with a userfaultfd in
 * asynchronous write-protect mode (no fault handler, no signal: a write to a
 * protected page just clears its protection), and each check asks
 * PAGEMAP_SCAN on /proc/self/pagemap which pages lost it, re-protecting them
 * in the same walk.  Writes by the program, its threads and the kernel on
 * its behalf (read(2) into the buffer) are all seen.
 *
 * Exactness: a check answers CLEAN only when every page of the range is
 * still registered and protected since the previous check (or ts_track_begin)
 * and none was written; pages whose contents the kernel replaced without a
 * write (madvise MADV_DONTNEED, a discarded MADV_FREE page) count as
 * written.  Unmapped, remapped or replaced memory, and every handle in a
 * forked child, answer INVALID: the caller trusts nothing of that range.
 * mprotect changes no byte and keeps the protection: no answer changes.
 * Only private anonymous memory (heap, mmap'd anonymous, stack) is tracked:
 * shared or file-backed pages can change through another mapping, which no
 * protection of this one sees.  Not seen either: device DMA into memory
 * pinned before ts_track_begin (cudaHostRegister, RDMA, io_uring fixed
 * buffers), which writes the pages without the page tables.
 *
 * Granularity is the page: a written range covers whole pages, clipped to
 * the bytes tracked, so operands sharing a page see each other's writes.
 * Overlapping handles are independent: each reports every write to its
 * pages since its own last check.  Call ts_track_begin before copying the
 * range (a write racing with the copy is then reported at the next check).
 * Thread-safe; errno is preserved; nothing is printed.  Once set up, a
 * userfaultfd and /proc/self/pagemap stay open (close-on-exec); a program
 * closing them makes every later check answer INVALID. */
#ifndef TS_WRITE_TRACKER_H
#define TS_WRITE_TRACKER_H

#include <stddef.h>

typedef struct ts_track ts_track;

typedef enum {
    TS_TRACK_CLEAN,   /* no byte of the range changed since the last check */
    TS_TRACK_WRITTEN, /* the spans returned hold every changed byte */
    TS_TRACK_INVALID  /* the range is no longer the memory tracked: trust nothing (sticky) */
} ts_track_state;

/* Bytes [offset, offset + len) of the tracked range, from its first byte. */
typedef struct {
    size_t offset;
    size_t len;
} ts_track_span;

/* Whether tracking works in this process (tried once per process: the
 * userfaultfd system call, asynchronous write protection, PAGEMAP_SCAN and a
 * self-test on a scratch page); if not, the reason goes to why (len bytes,
 * may be NULL). */
int ts_tracker_available(char *why, size_t len);

/* Starts tracking [addr, addr + len): write-protects its page-aligned
 * cover, after registering the mappings around it whole (registering a part
 * would split a mapping, and the program's mremap of all of it would then
 * fail).  NULL, with the reason in why, when tracking is not available, the
 * range is not entirely private anonymous memory, or the program's own
 * userfaultfd already watches part of it. */
ts_track *ts_track_begin(const void *addr, size_t len, char *why, size_t why_len);

/* What changed since the previous check (or ts_track_begin), re-arming the
 * range.  For TS_TRACK_WRITTEN the changed bytes go to spans (sorted,
 * disjoint, at most cap; when more are needed, the last one is widened to
 * the end of the last change) and their count to *n (n may be NULL).
 * NULL answers TS_TRACK_INVALID. */
ts_track_state ts_track_changed(ts_track *t, ts_track_span *spans, size_t cap, size_t *n);

/* Stops tracking; the mappings no other handle needs are unregistered.
 * Accepts NULL and handles that report TS_TRACK_INVALID. */
void ts_track_end(ts_track *t);

#endif
