/* The pinned staging ring of the host-transfer pipeline: page-locked
 * memory in equal buffers, allocated per device on first use and kept, and
 * the copy streams and events that go with it.  The ring starts small and
 * is made TSSHIM_STAGING_MB once calls stream enough through it
 * (ts_staging_bytes).  One ring per device, shared under a lock: a call
 * holds it from its first copy to its last, so concurrent calls on one
 * device take turns on its PCIe link instead of splitting it. */
#ifndef TS_GPU_STAGING_H
#define TS_GPU_STAGING_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

enum {
    TS_STAGING_MAX_BUFS = 256,
    TS_STAGING_PENDING = 4 /* slices whose C may be on its way back at once */
};

typedef struct {
    int device;
    cudaStream_t h2d, d2h;                      /* one per direction: both run at once */
    cudaEvent_t buf_copied[TS_STAGING_MAX_BUFS]; /* the copy out of (into, downwards) buffer i is done */
    cudaEvent_t loaded[2], computed[2], stored[2]; /* per device slot of the pipeline */
    cudaEvent_t returned[TS_STAGING_PENDING];  /* a slice's C is back in staging or host */
    unsigned char *mem;                         /* NULL until asked for */
    int made_now;                               /* this holder's acquire allocated mem */
    int nbuf;                                   /* the holder's layout of mem */
    size_t buf_bytes;
} ts_staging;

/* Buffer size and count for a ring of total_bytes: 16 MB buffers (the size
 * that kept the link busiest on the GPU host), at least 8 of them; for a
 * call that streams call_bytes (0: unknown), buffers of an eighth of it,
 * 256 KB at least. */
void ts_staging_layout(int64_t total_bytes, uint64_t call_bytes, int *nbuf, size_t *buf_bytes);

/* The ring's size for the next call on `device`, `full` (TSSHIM_STAGING_MB)
 * at most: a start size until calls have streamed enough through it to pay
 * for pinning the rest, `full` from then on, and for a call that streams
 * `call_bytes`, `full` bytes or more, at once. */
int64_t ts_staging_bytes(int device, int64_t full, uint64_t call_bytes);

/* Waits for the ring, then returns it with the streams and events of
 * `device` (the current device), creating them on first use; when
 * `buffers` is set, with at least total_bytes of pinned buffers, laid out
 * for total_bytes and a call of call_bytes (ts_staging_layout).  NULL with *err on failure (the ring
 * is not held then). */
ts_staging *ts_staging_acquire(int device, int64_t total_bytes, uint64_t call_bytes, int buffers, cudaError_t *err);

/* Gives the ring back; `streamed`: the bytes the holder's call packed into
 * it and unpacked out of it, which count towards the ring's growth (the
 * one-time uploads of cached operands do not: they recur for no call). */
void ts_staging_release(ts_staging *s, uint64_t streamed);

static inline unsigned char *ts_staging_buf(const ts_staging *s, int i) { return s->mem + (size_t)i * s->buf_bytes; }

#endif
