/* Asks the CUDA driver through dlopen, so that nothing links against CUDA
 * and a machine without the driver simply has no GPU. */
#include "gpu_present.h"

#include <dlfcn.h>
#include <stddef.h>

typedef int cu_init_fn(unsigned int flags);
typedef int cu_device_get_count_fn(int *count);

int gpu_count(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    cu_init_fn *init;
    cu_device_get_count_fn *get_count;
    int count = 0;

    if (cuda == NULL)
        return 0;
    init = (cu_init_fn *)dlsym(cuda, "cuInit");
    get_count = (cu_device_get_count_fn *)dlsym(cuda, "cuDeviceGetCount");
    /* CUDA_SUCCESS is 0.  The driver stays loaded: after cuInit it may have
     * started threads, and unloading it under them is not safe. */
    if (init == NULL || get_count == NULL || init(0) != 0 || get_count(&count) != 0)
        return 0;
    return count;
}

int gpu_present(void) { return gpu_count() > 0; }
