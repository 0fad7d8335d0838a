/* The pinned staging ring of the host-transfer pipeline: TSSHIM_STAGING_MB
 * of page-locked memory in equal buffers, allocated once per device on
 * first use and kept, and the copy streams and events that go with it.
 * One ring per device, shared under a lock: a call holds it
 * from its first copy to its last, so concurrent calls on one device take
 * turns on its PCIe link instead of splitting it. */
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
    cudaEvent_t buf_copied[TS_STAGING_MAX_BUFS]; /* the H2D copy out of buffer i is done */
    cudaEvent_t loaded[2], computed[2], stored[2]; /* per device slot of the pipeline */
    cudaEvent_t returned[TS_STAGING_PENDING];  /* a slice's C is back in staging or host */
    unsigned char *mem;                         /* nbuf * buf_bytes, NULL until asked for */
    int nbuf;
    size_t buf_bytes;
} ts_staging;

/* Buffer size and count for a total: 16 MB buffers (the size that kept the
 * link busiest on the GPU host), at least 8 of them. */
void ts_staging_layout(int64_t total_bytes, int *nbuf, size_t *buf_bytes);

/* Waits for the ring, then returns it with the streams and events of
 * `device` (the current device), creating them on first use; allocates the
 * pinned buffers too when `buffers` is set.  NULL with *err on failure (the
 * ring is not held then). */
ts_staging *ts_staging_acquire(int device, int64_t total_bytes, int buffers, cudaError_t *err);

void ts_staging_release(ts_staging *s);

static inline unsigned char *ts_staging_buf(const ts_staging *s, int i) { return s->mem + (size_t)i * s->buf_bytes; }

#endif
