/* libtsshim-cuda.so: the CUDA backend the core loads on the first call that
 * could be offloaded.  Exports one symbol, the ops table. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "gpu_backend.h"
#include "launcher.h"
#include "gemm.h"
#include "residency.h"

static int init(const ts_config *cfg, char *why, size_t why_len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err) {
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
        return -1;
    }
    if (cfg->device >= count) {
        snprintf(why, why_len, "TSSHIM_DEVICE=%lld but %d device(s)", (long long)cfg->device, count);
        return -1;
    }
    ts_gpu_home = ts_home_device(cfg->device, count);
    return 0;
}

__attribute__((visibility("default"))) const ts_gpu_ops tsshim_gpu_ops = {
    .abi = TS_GPU_ABI,
    .init = init,
    .residency = ts_gpu_residency_probe,
    .gemm = ts_gpu_gemm,
};
