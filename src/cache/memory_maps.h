/* The write tracker's reading of /proc/self/maps (internal to src/cache/):
 * whether a range is private anonymous memory, the only kind it tracks. */
#ifndef TS_MEMORY_MAPS_H
#define TS_MEMORY_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* Whether [s, e) is all private anonymous memory (heap, stack, anonymous
 * mmap); [*lo, *hi) becomes the extent of the mappings over it.  When not,
 * the reason goes to why (why_len bytes, may be NULL). */
int ts_maps_private_anonymous(uintptr_t s, uintptr_t e, uintptr_t *lo, uintptr_t *hi, char *why, size_t why_len);

#endif
