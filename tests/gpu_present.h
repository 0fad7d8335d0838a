/* Whether a CUDA device is usable, asked of the driver at run time so that
 * the tests need no CUDA at build time. */
#ifndef TS_GPU_PRESENT_H
#define TS_GPU_PRESENT_H

/* The devices the driver counts when libcuda.so.1 loads and cuInit(0)
 * succeeds (CUDA_VISIBLE_DEVICES applies as usual); 0 otherwise. */
int gpu_count(void);

/* 1 when gpu_count() finds at least one device, else 0. */
int gpu_present(void);

#endif
