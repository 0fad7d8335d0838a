/* The re-entry guard: set while a thread is inside the shim, and for good
 * on the shim's own threads, so that a BLAS call made from within (by a
 * library the backend uses, or the CPU part of a split call) goes straight
 * to the CPU BLAS. */
#ifndef TS_REENTRY_H
#define TS_REENTRY_H

extern _Thread_local int ts_reentry_depth __attribute__((tls_model("initial-exec")));

static inline int ts_reentry_inside(void) { return ts_reentry_depth != 0; }
static inline void ts_reentry_enter(void) { ts_reentry_depth = 1; }
static inline void ts_reentry_leave(void) { ts_reentry_depth = 0; }

/* Marks the calling thread as the shim's for its whole life. */
static inline void ts_reentry_shim_thread(void) { ts_reentry_depth = 1; }

#endif
