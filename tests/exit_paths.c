/* GEMM calls in every phase of a process's life: libctor_client's constructor
 * (before main, maybe before the shim's constructor), main, an atexit handler,
 * and libctor_client's destructor (after the handlers, maybe after the shim's
 * destructor and CUDA's own exit handlers).  exit_paths.sh checks every line
 * and the exit status. */
#include <stdlib.h>

#include "libctor_client.h"

static void at_exit(void) { exit_check("atexit"); }

int main(void)
{
    if (atexit(at_exit))
        return 1;
    exit_check("main");
    return 0;
}
