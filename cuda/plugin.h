/* The plugin's side of the plugin ABI (src/common/gpu_plugin.h): the ops
 * table it exports, and the core's ops it was handed. */
#ifndef TS_CUDA_PLUGIN_H
#define TS_CUDA_PLUGIN_H

#include "common/gpu_plugin.h"

/* The core's ops (ts_core_ops), NULL until the core bound them. */
const ts_core_ops *ts_core(void);

#endif
