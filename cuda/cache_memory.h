/* The operand cache's device memory (the plugin's side of it; the
 * directory, the write tracking and the policy live in src/cache/: cache_directory.c,
 * write_tracker.c, operand_cache.c):
 * on the home device, whatever device the calling thread has current. */
#ifndef TS_CUDA_CACHE_MEMORY_H
#define TS_CUDA_CACHE_MEMORY_H

#include <stddef.h>

#include "common/settings.h"

/* Free bytes of the home device now; 0 when CUDA cannot say. */
size_t ts_home_free(void);

/* TSSHIM_CACHE_MB, else half the device memory free now, split between
 * the processes of the node that share this device (the launcher's local
 * ranks mapped onto it). */
size_t ts_cache_budget(const ts_config *cfg);

void *ts_cache_alloc(size_t bytes);
void ts_cache_free(void *dev);
int ts_cache_upload(void *dev, const void *host, size_t bytes, const ts_config *cfg);

#endif
