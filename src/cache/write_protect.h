/* The write tracker's userfaultfd (internal to src/cache/): opening one in
 * asynchronous write-protect mode, registering ranges with it, and
 * write-protecting and unregistering them.  No state: the caller keeps the
 * descriptor. */
#ifndef TS_WRITE_PROTECT_H
#define TS_WRITE_PROTECT_H

#include <stddef.h>
#include <stdint.h>

/* A userfaultfd (close-on-exec, non-blocking, user mode only) with
 * asynchronous write protection that also covers pages never touched; -1,
 * with the reason in why (len bytes), when the kernel or its settings
 * refuse. */
int ts_wp_open(char *why, size_t len);

/* Registers [s, e) for write protection; 0, else -1 with errno set. */
int ts_wp_register(int uffd, uintptr_t s, uintptr_t e);

/* Write-protects [s, e); 0, else -1 with errno set. */
int ts_wp_protect(int uffd, uintptr_t s, uintptr_t e);

/* Unregisters [s, e), best effort: the memory may be gone, or now someone
 * else's. */
void ts_wp_unregister(int uffd, uintptr_t s, uintptr_t e);

#endif
