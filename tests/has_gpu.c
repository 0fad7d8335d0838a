/* For scripts: exit status 0 when a CUDA device is usable, 1 when not. */
#include "gpu_present.h"

int main(void) { return gpu_present() ? 0 : 1; }
