/* tsshim-doctor (`tsshim doctor`): says, without running a program, what
 * libtsshim.so would do on this machine.  Every line is a fact it checked
 * in this process, with the core's own functions: the CPU BLAS each routine
 * family would be forwarded to, the GPU backend and its devices, the
 * operand cache's write tracking, transparent huge pages, the cost model's
 * profile, and MPS where ranks would share a GPU.  Exit status 0 when GPU
 * offload is possible, 1 otherwise, 2 for a usage error.
 *   tsshim-doctor [--libdir DIR]   DIR: where libtsshim.so and libtsshim-cuda.so are
 *                                  (default: the install's libdir) */
#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "backend/gpu_backend.h"
#include "cache/write_tracker.h"
#include "common/cost_model.h"
#include "common/mpi_launcher.h"
#include "cpu/cpu_blas.h"
#include "dispatch/dispatch.h"
#include "learn/profile.h"
#include "util/configuration.h"

#ifndef TSSHIM_LIBDIR
#define TSSHIM_LIBDIR "/usr/local/lib"
#endif

static void fact(const char *topic, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fact(const char *topic, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%-10s ", topic);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
}

static int routine_named(const char *name)
{
    for (int r = 0; r < TS_NROUTINE; r++)
        if (!strcmp(ts_routine_symbol((ts_routine)r), name))
            return r;
    return -1;
}

/* The CPU BLAS: what the user named (TSSHIM_CPU_BLAS), else the system's
 * usual ones, loaded here so that the core's search finds them as it would
 * find a program's. */
static void cpu_blas(const ts_config *cfg)
{
    static const char *system_blas[] = { "libblas.so.3", "libopenblas.so.0", "libopenblas64_.so.0", "libcblas.so.3" };
    if (cfg->cpu_blas[0]) {
        void *h = dlopen(cfg->cpu_blas, RTLD_NOW | RTLD_GLOBAL);
        fact("cpu-blas", "TSSHIM_CPU_BLAS=%s: %s", cfg->cpu_blas, h ? "loads" : dlerror());
    } else {
        fact("cpu-blas", "TSSHIM_CPU_BLAS unset: a program's own BLAS (the one it links or loads) is used; "
                         "looked at the system's instead:");
        for (size_t i = 0; i < sizeof system_blas / sizeof *system_blas; i++) {
            void *h = dlopen(system_blas[i], RTLD_NOW | RTLD_GLOBAL);
            fact("cpu-blas", "  %s: %s", system_blas[i], h ? "loads" : "not found");
        }
    }
    static const struct { const char *name, *family; } families[] = {
        { "dgemm_", "Fortran LP64" },
        { "dgemm_64_", "Fortran ILP64" },
        { "cblas_dgemm", "CBLAS LP64" },
        { "cblas_dgemm64_", "CBLAS ILP64" },
        { "scipy_dgemm_64_", "NumPy/SciPy wheels' OpenBLAS" },
    };
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        int r = routine_named(families[i].name);
        void *fn = r >= 0 ? ts_cpu_blas_find((ts_routine)r) : NULL;
        Dl_info info;
        if (fn && dladdr(fn, &info) && info.dli_fname)
            fact("cpu-blas", "%-16s (%s) forwarded to %s", families[i].name, families[i].family, info.dli_fname);
        else if (!strncmp(families[i].name, "scipy_", 6))
            fact("cpu-blas", "%-16s (%s) not found here: NumPy's wheel brings it (libscipy_openblas64_), "
                             "found when NumPy loads it", families[i].name, families[i].family);
        else
            fact("cpu-blas", "%-16s (%s) not found: a program calling it needs its own BLAS or TSSHIM_CPU_BLAS",
                 families[i].name, families[i].family);
    }
}

/* The GPU backend, loaded and started as the first offloaded call would. */
static int gpu(const char *libdir, const ts_config *cfg)
{
    char path[4096];
    ts_gpu_set_plugin_dir(libdir);
    if (ts_gpu_plugin_path(path, sizeof path)) {
        fact("gpu", "cannot name the plugin's path");
        return 0;
    }
    struct stat st;
    if (stat(path, &st)) {
        fact("gpu", "backend %s not found (built without CUDA?): every call runs on the CPU", path);
        return 0;
    }
    fact("gpu", "backend %s present", path);
    ts_dispatch_init();
    const ts_gpu_ops *g = ts_gpu();
    if (!g) {
        fact("gpu", "no usable GPU: %s", ts_gpu_why()[0] ? ts_gpu_why() : "the backend did not start");
        return 0;
    }
    int n = g->device_count();
    int home = ts_home_device(cfg->device, n);
    fact("gpu", "backend loaded, CUDA started: %d device(s) visible%s%s", n,
         getenv("CUDA_VISIBLE_DEVICES") ? ", CUDA_VISIBLE_DEVICES=" : "",
         getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "");
    fact("gpu", "home device %d (TSSHIM_DEVICE=%lld): %.1f GiB free", home, (long long)cfg->device,
         (double)g->home_free() / (1024.0 * 1024.0 * 1024.0));
    return n > 0;
}

static void tracking(void)
{
    char why[256] = "";
    if (ts_tracker_available(why, sizeof why))
        fact("cache", "write tracking works here (userfaultfd write protection, PAGEMAP_SCAN): host operands can be cached");
    else
        fact("cache", "write tracking unavailable: %s; nothing is cached on the GPU", why);
}

static void huge_pages(void)
{
    const char *file = "/sys/kernel/mm/transparent_hugepage/enabled";
    char line[256] = "";
    FILE *f = fopen(file, "r");
    if (!f || !fgets(line, sizeof line, f)) {
        fact("hugepages", "%s unreadable: transparent huge pages unknown", file);
        if (f)
            fclose(f);
        return;
    }
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    int usable = strstr(line, "[always]") || strstr(line, "[madvise]");
    fact("hugepages", "transparent huge pages: %s (%s): %s", line, file,
         usable ? "GLIBC_TUNABLES=glibc.malloc.hugetlb=1 gives large arrays huge pages"
                : "not available for malloc");
}

static void profile(const ts_config *cfg)
{
    char path[4096];
    if (ts_profile_path(cfg->profile_path, path, sizeof path)) {
        fact("profile", "no profile path (set HOME or TSSHIM_PROFILE): built-in figures");
        return;
    }
    struct stat st;
    if (stat(path, &st)) {
        fact("profile", "%s does not exist: built-in figures (run tsshim-calibrate to measure this machine)", path);
        return;
    }
    ts_profile p = ts_profile_defaults;
    int keys = ts_profile_read(path, &p);
    char when[64] = "";
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&st.st_mtime));
    if (keys < 0)
        fact("profile", "%s exists but cannot be read: built-in figures", path);
    else
        fact("profile", "%s: %d key(s) set, last written %s%s", path, keys, when,
             keys ? " (calibrated by tsshim-calibrate or learned here)" : " (no known key: built-in figures)");
}

/* A process whose name is nvidia-cuda-mps-control (the MPS control daemon). */
static int mps_daemon_running(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        char file[300], comm[64] = "";
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(file, sizeof file, "/proc/%s/comm", e->d_name);
        FILE *f = fopen(file, "r");
        if (f && fgets(comm, sizeof comm, f) && !strncmp(comm, "nvidia-cuda-mps", 15))
            found = 1;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static void mps(const ts_config *cfg)
{
    int local_size = 0;
    int local = ts_launcher_local_rank(&local_size);
    const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    char control[4200];
    snprintf(control, sizeof control, "%s/control", dir ? dir : "/tmp/nvidia-mps");
    struct stat st;
    int pipe = !stat(control, &st);
    int daemon = mps_daemon_running();
    if (local < 0) {
        fact("mps", "not under an MPI launcher: ranks sharing a GPU need MPS (daemon %s, %s %s)",
             daemon ? "running" : "not running", control, pipe ? "present" : "absent");
        return;
    }
    int sharers = ts_launcher_sharers(cfg->device, ts_gpu_devices_seen() > 0 ? ts_gpu_devices_seen() : 1);
    fact("mps", "MPI local rank %d of %d, %d rank(s) per GPU: MPS daemon %s, %s %s%s", local, local_size, sharers,
         daemon ? "running" : "not running", control, pipe ? "present" : "absent",
         sharers > 1 && !daemon ? " (start it: nvidia-cuda-mps-control -d)" : "");
}

static int lib_present(const char *dir)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/libtsshim.so", dir);
    return !stat(path, &st);
}

int main(int argc, char **argv)
{
    const char *libdir = TSSHIM_LIBDIR;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--libdir") && i + 1 < argc)
            libdir = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: tsshim-doctor [--libdir DIR]\nSays what libtsshim.so would do on this machine; "
                   "exit status 0 when GPU offload is possible.\n");
            return 0;
        } else {
            fprintf(stderr, "tsshim-doctor: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    const ts_config *cfg = ts_config_get();
    fact("library", "%s/libtsshim.so %s", libdir, lib_present(libdir) ? "present" : "not found");
    fact("mode", "TSSHIM_MODE=%s", cfg->mode == TS_MODE_GPU ? "gpu" : cfg->mode == TS_MODE_CPU ? "cpu" : "auto");
    cpu_blas(cfg);
    int offload = gpu(libdir, cfg);
    tracking();
    huge_pages();
    profile(cfg);
    mps(cfg);
    if (cfg->mode == TS_MODE_CPU)
        offload = 0;
    fact("verdict", "%s", offload ? "GPU offload is possible" : cfg->mode == TS_MODE_CPU ? "TSSHIM_MODE=cpu: no GPU offload"
                                                                                         : "no GPU offload: every call runs on the CPU BLAS");
    return offload ? 0 : 1;
}
