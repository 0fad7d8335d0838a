/* The launcher's ranks as tsshim reads them, the device a rank takes, and
 * the log under MPI: %r in TSSHIM_LOG and every line in one write. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mpi_launcher.h"
#include "util/log.h"
#include "tap.h"

static const char *const launcher_vars[] = {
    "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID",
    "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMIX_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
    "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMIX_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE",
    "SLURM_NTASKS_PER_NODE", NULL
};

static void clear_launcher(void)
{
    for (const char *const *v = launcher_vars; *v; v++)
        unsetenv(*v);
}

/* Each launcher's local rank variable alone gives the local rank. */
static void check_each_launcher(void)
{
    static const struct {
        const char *rank, *local, *size;
    } launchers[] = {
        { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE" },
        { "PMI_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS" },
        { "PMIX_RANK", "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE" },
        { "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE" },
        { "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE" },
    };
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        clear_launcher();
        setenv(launchers[i].rank, "13", 1);
        setenv(launchers[i].local, "5", 1);
        setenv(launchers[i].size, "8", 1);
        int size = -1, local = ts_launcher_local_rank(&size);
        tap_ok(ts_launcher_rank() == 13 && local == 5 && size == 8, "%s: rank 13, local rank 5 of 8 (got %d, %d of %d)",
               launchers[i].local, ts_launcher_rank(), local, size);
    }
}

/* Local ranks on this process's device, spread round-robin (or all on
 * TSSHIM_DEVICE's). */
static void check_sharers(void)
{
    clear_launcher();
    tap_ok(ts_launcher_sharers(-1, 1) == 1, "no launcher: the device is this process's alone");
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "8", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "5", 1);
    tap_ok(ts_launcher_sharers(-1, 1) == 8 && ts_launcher_sharers(-1, 2) == 4 && ts_launcher_sharers(-1, 3) == 2 &&
               ts_launcher_sharers(-1, 8) == 1 && ts_launcher_sharers(1, 4) == 8,
           "8 local ranks, rank 5: 8 on 1 device, 4 on 2, 2 on 3 (device 2: ranks 2 and 5), 1 on 8, 8 on TSSHIM_DEVICE's");
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "7", 1);
    tap_ok(ts_launcher_sharers(-1, 3) == 3, "rank 7 of 8 on 3 devices: device 1, ranks 1, 4 and 7 (got %d)",
           ts_launcher_sharers(-1, 3));
    clear_launcher();
}

static void check_devices(void)
{
    clear_launcher();
    int size = -1;
    tap_ok(ts_launcher_rank() == -1 && ts_launcher_local_rank(&size) == -1 && size == 0,
           "no launcher: no rank, no local rank");
    tap_ok(ts_home_device(-1, 4) == 0 && ts_home_device(2, 4) == 2, "no launcher: device 0, or TSSHIM_DEVICE's");
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "junk", 1);
    tap_ok(ts_launcher_local_rank(NULL) == -1 && ts_home_device(-1, 2) == 0, "a malformed rank counts as none");
    int spread[8];
    for (int r = 0; r < 8; r++) {
        char s[8];
        snprintf(s, sizeof s, "%d", r);
        setenv("OMPI_COMM_WORLD_LOCAL_RANK", s, 1);
        spread[r] = ts_home_device(-1, 3);
    }
    tap_ok(spread[0] == 0 && spread[1] == 1 && spread[2] == 2 && spread[3] == 0 && spread[7] == 1,
           "8 local ranks on 3 devices: round-robin (0 1 2 0 ... 1)");
    tap_ok(ts_home_device(1, 3) == 1 && ts_home_device(-1, 1) == 0, "TSSHIM_DEVICE wins; one device takes every rank");
    clear_launcher();
}

/* TSSHIM_LOG=DIR/log.%r under rank 7: the file is log.7 and holds whole lines. */
static void check_log(void)
{
    char dir[] = "/tmp/tsshim-launcher.XXXXXX", pattern[256], path[256];
    if (!mkdtemp(dir)) {
        tap_skip("cannot create a temporary directory");
        return;
    }
    snprintf(pattern, sizeof pattern, "%s/log.%%r", dir);
    snprintf(path, sizeof path, "%s/log.7", dir);
    setenv("OMPI_COMM_WORLD_RANK", "7", 1);
    setenv("TSSHIM_LOG", pattern, 1);
    errno = 1234;
    for (int i = 0; i < 3; i++)
        ts_log_error("line %d of %s", i, "the test");
    tap_ok(errno == 1234, "logging leaves the program's errno as it was");
    char text[512] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    if (!tap_ok(f && !strcmp(text, "tsshim: line 0 of the test\ntsshim: line 1 of the test\ntsshim: line 2 of the test\n"),
                "TSSHIM_LOG with %%r under rank 7 writes log.7, whole lines"))
        tap_diag("%s holds: %s", path, text);
    unlink(path);
    rmdir(dir);
    clear_launcher();
}

int main(void)
{
    check_each_launcher();
    check_sharers();
    check_devices();
    check_log();
    return tap_done();
}
