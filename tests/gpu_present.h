/* Whether a CUDA device is usable, asked of the driver at run time so that
 * the tests need no CUDA at build time. */
#ifndef TS_GPU_PRESENT_H
#define TS_GPU_PRESENT_H

/* 1 when libcuda.so.1 loads, cuInit(0) succeeds and it counts at least one
 * device (CUDA_VISIBLE_DEVICES applies as usual); 0 otherwise. */
int gpu_present(void);

#endif
