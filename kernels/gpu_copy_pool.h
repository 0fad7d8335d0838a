/* Host-side copies between pageable memory and the pinned staging buffers,
 * split over a small persistent pool of threads: one thread copies about
 * 12 GB/s, so it takes several to keep up with the PCIe link.  Plain C. */
#ifndef TS_GPU_COPY_POOL_H
#define TS_GPU_COPY_POOL_H

#include <stddef.h>

/* Copies a rows x cols matrix of elem-byte elements from src (leading
 * dimension sld, in elements) to dst (leading dimension dld) and returns
 * when it is done.  The calling thread takes part; the pool starts on first
 * use with min(16, online cores) threads in all.  Thread-safe: concurrent
 * callers take turns. */
void ts_copy_2d(void *dst, size_t dld, const void *src, size_t sld, size_t rows, size_t cols, size_t elem);

/* Threads a copy is split over (the caller included). */
int ts_copy_threads(void);

#endif
