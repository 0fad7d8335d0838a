/* The settings in force (src/util/configuration.c loads them): a plain
 * struct, so that the GPU plugin reads them through the plugin ABI. */
#ifndef TS_SETTINGS_H
#define TS_SETTINGS_H

#include <stdint.h>
#include "common/call.h"

typedef enum { TS_MODE_AUTO = 0, TS_MODE_GPU, TS_MODE_CPU } ts_mode;

/* Devices by number, repeats allowed (TSSHIM_SPLIT_DEVICES). */
typedef struct {
    int count;                  /* 0: none named */
    int dev[TS_MAX_DEVICES];
} ts_device_list;

typedef struct {
    ts_mode mode;
    char cpu_blas[1024];        /* TSSHIM_CPU_BLAS: library to forward to */
    int64_t min_long;           /* TSSHIM_MIN_LONG */
    int64_t max_skinny;         /* TSSHIM_MAX_SKINNY */
    double min_flops;           /* TSSHIM_MIN_FLOPS: auto mode keeps smaller calls on the CPU */
    double margin;              /* TSSHIM_MARGIN: GPU must be predicted this many times faster */
    int disabled[TS_NROUTINE];  /* TSSHIM_DISABLE */
    int64_t device;             /* TSSHIM_DEVICE; -1: by the launcher's node-local rank (ts_home_device) */
    int64_t staging_mb;         /* TSSHIM_STAGING_MB */
    int64_t gpu_mem_limit_mb;   /* TSSHIM_GPU_MEM_LIMIT, 0 = none */
    int64_t cache;              /* TSSHIM_CACHE: keep host operands on the GPU across calls; -1: unless under MPI */
    int64_t cache_mb;           /* TSSHIM_CACHE_MB: its device memory, 0 = a share of the free memory */
    int64_t cache_min_mb;       /* TSSHIM_CACHE_MIN_MB: smaller operands are never cached */
    int64_t split;              /* TSSHIM_SPLIT: one call over several GPUs; -1: unless under MPI or TSSHIM_DEVICE */
    ts_device_list split_devices; /* TSSHIM_SPLIT_DEVICES; none named: every visible device */
    double split_min_ms;        /* TSSHIM_SPLIT_MIN_MS: calls predicted shorter on one GPU run whole */
    int64_t verbose;            /* TSSHIM_VERBOSE 0..3 */
    int64_t count;              /* TSSHIM_COUNT: count calls for tsshim_report_json() even when silent */
    char log_path[1024];        /* TSSHIM_LOG, %p = pid, %r = rank; empty = stderr */
    char profile_path[1024];    /* TSSHIM_PROFILE; empty = default location */
    int64_t learn_save;         /* TSSHIM_LEARN_SAVE: learned rates read from and merged into the profile */
    int64_t background_start;   /* TSSHIM_BACKGROUND_START: the GPU starts on a thread of its own (2: at load) */
    char fault[64];             /* TSSHIM_FAULT (fault-injection builds only) */
} ts_config;

#endif
