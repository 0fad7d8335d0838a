#include "common/mpi_launcher.h"

#include <stdatomic.h>

#include <stdlib.h>

/* The first of the variables that is set and holds a non-negative number. */
static int first_number(const char *const *names)
{
    for (; *names; names++) {
        const char *s = getenv(*names);
        char *end;
        if (!s || !*s)
            continue;
        long v = strtol(s, &end, 10);
        if (!*end && v >= 0 && v < (1L << 30))
            return (int)v;
    }
    return -1;
}

int ts_launcher_rank(void)
{
    static const char *const names[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK",
                                         "SLURM_PROCID", NULL };
    return first_number(names);
}

int ts_launcher_local_rank(int *local_size)
{
    static const char *const ranks[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMIX_LOCAL_RANK",
                                         "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", NULL };
    static const char *const sizes[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMIX_LOCAL_SIZE",
                                         "MV2_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE", NULL };
    if (local_size) {
        int n = first_number(sizes);
        *local_size = n > 0 ? n : 0;
    }
    return first_number(ranks);
}

int ts_home_device(int64_t configured, int count)
{
    if (configured >= 0)
        return (int)configured;
    int local = ts_launcher_local_rank(NULL);
    return local >= 0 && count > 0 ? local % count : 0;
}

int ts_launcher_sharers(int64_t configured, int count)
{
    int size = 0, local = ts_launcher_local_rank(&size);
    if (local < 0 || size <= 1)
        return 1;
    if (configured >= 0 || count <= 1)
        return size;
    /* Local ranks r with r mod count == home. */
    int home = local % count;
    return (size - home + count - 1) / count;
}

int ts_launcher_present(void)
{
    static atomic_int present = -1;
    int p = atomic_load_explicit(&present, memory_order_relaxed);
    if (p < 0) {
        p = ts_launcher_local_rank(NULL) >= 0;
        atomic_store_explicit(&present, p, memory_order_relaxed);
    }
    return p;
}
