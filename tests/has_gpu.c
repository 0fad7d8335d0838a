/* For scripts: exit status 0 when a CUDA device is usable, 1 when not;
 * with --count, prints the number of usable devices (0 without one) and
 * exits 0. */
#include <stdio.h>
#include <string.h>

#include "gpu_present.h"

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--count")) {
        printf("%d\n", gpu_count());
        return 0;
    }
    return gpu_present() ? 0 : 1;
}
