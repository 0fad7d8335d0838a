#include "learn/profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/configuration.h"
#include "learn/learned_store.h"
#include "util/log.h"

typedef struct {
    const char *name;
    size_t offset; /* of the first double in ts_profile */
    int count;     /* doubles it sets: a class key without precision sets all four */
} profile_key;

#define KEY(name, field) { name, offsetof(ts_profile, field), 1 }
#define PREC_KEYS(what, cls, name)                                                              \
    KEY(#what "." name ".s", what[cls][TS_S]), KEY(#what "." name ".d", what[cls][TS_D]),       \
    KEY(#what "." name ".c", what[cls][TS_C]), KEY(#what "." name ".z", what[cls][TS_Z]),       \
    { #what "." name, offsetof(ts_profile, what[cls][0]), TS_NPREC }
#define CLASS_KEYS(what)                                                                          \
    PREC_KEYS(what, TS_CLASS_TSM2, "tsm2"), PREC_KEYS(what, TS_CLASS_ISM2, "ism2"),               \
    PREC_KEYS(what, TS_CLASS_TSMTTSM, "tsmttsm"), PREC_KEYS(what, TS_CLASS_RANKK, "rankk"),       \
    PREC_KEYS(what, TS_CLASS_REGULAR, "regular")

/* Profiles written before the rates had a precision name the class alone:
 * such a key still applies, to every precision. */
static const profile_key keys[] = {
    CLASS_KEYS(cpu_gbs),
    CLASS_KEYS(cpu_gflops),
    KEY("h2d_pinned_gbs", h2d_pinned_gbs),
    KEY("d2h_pinned_gbs", d2h_pinned_gbs),
    KEY("h2d_staged_gbs", h2d_staged_gbs),
    KEY("d2h_staged_gbs", d2h_staged_gbs),
    KEY("both_staged_gbs", both_staged_gbs),
    KEY("host_copy_gbs", host_copy_gbs),
    KEY("gpu_mem_gbs", gpu_mem_gbs),
    KEY("gpu_gflops.s", gpu_gflops[TS_S]),
    KEY("gpu_gflops.d", gpu_gflops[TS_D]),
    KEY("gpu_gflops.c", gpu_gflops[TS_C]),
    KEY("gpu_gflops.z", gpu_gflops[TS_Z]),
    KEY("gpu_overhead_s", gpu_overhead_s),
    KEY("gpu_start_s", gpu_start_s),
};

static double *field(ts_profile *p, const profile_key *k) { return (double *)((char *)p + k->offset); }

int ts_profile_path(const char *configured, char *out, size_t size)
{
    int n;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (configured && configured[0])
        n = snprintf(out, size, "%s", configured);
    else if (xdg && xdg[0] == '/') /* the XDG spec ignores relative paths */
        n = snprintf(out, size, "%s/tsshim/profile", xdg);
    else if (home && home[0])
        n = snprintf(out, size, "%s/.cache/tsshim/profile", home);
    else
        return -1;
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static const profile_key *find(const char *name)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].name, name))
            return &keys[i];
    return NULL;
}

int ts_profile_read(const char *path, ts_profile *p)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int set = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64], rest[2];
        double v;
        /* Exactly a name and a number: anything else on the line spoils it. */
        if (sscanf(line, " %63s %lf %1s", name, &v, rest) != 2 || name[0] == '#')
            continue;
        const profile_key *k = find(name);
        if (k && v > 0 && v < 1e300) {
            for (int i = 0; i < k->count; i++)
                field(p, k)[i] = v;
            set++;
        }
    }
    fclose(f);
    return set;
}

/* mkdir -p of the directory part of path. */
static int make_parents(const char *path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return -1;
    for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(dir, 0755) && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

/* The lock of ts_profile_replace, a file of its own: the profile itself
 * is a new file after each replacement. */
static int lock_profile(const char *path)
{
    char name[PATH_MAX + 8];
    if (snprintf(name, sizeof name, "%s.lock", path) >= (int)sizeof name)
        return -1;
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    /* Bounded: a writer that hangs (a stopped process) must not keep a
     * program from exiting. */
    for (int tries = 0; tries < 200; tries++) {
        if (!flock(fd, LOCK_EX | LOCK_NB))
            return fd;
        if (errno != EWOULDBLOCK && errno != EINTR)
            break;
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    }
    close(fd);
    return -1;
}

int ts_profile_replace(const char *name, int (*write)(FILE *out, FILE *old, void *arg), void *arg)
{
    /* A link is followed, not replaced; anything but a regular file (say
     * /dev/stdout) is refused rather than renamed over. */
    char real[PATH_MAX], tmp[PATH_MAX + 8];
    const char *path = realpath(name, real) ? real : name;
    struct stat st;
    if ((!stat(path, &st) && !S_ISREG(st.st_mode)) || make_parents(path) ||
        snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return -1;
    int lock = lock_profile(path);
    if (lock < 0)
        return -1;
    int rc = -1, fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0) {
        FILE *old = fopen(path, "re"), *out = fdopen(fd, "w");
        mode_t mode = old && !fstat(fileno(old), &st) ? st.st_mode & 0777 : 0644;
        if (out && !write(out, old, arg) && !fflush(out) && !fchmod(fd, mode) && !fsync(fd))
            rc = 0;
        if (old)
            fclose(old);
        if (out ? fclose(out) : close(fd))
            rc = -1;
        if (!rc && rename(tmp, path))
            rc = -1;
        if (rc)
            unlink(tmp);
    }
    close(lock);
    return rc;
}

void ts_profile_copy_lines(FILE *out, FILE *old, int (*drop)(const char *line, void *arg), void *arg)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (old && (len = getline(&line, &cap, old)) > 0) {
        if (drop(line, arg))
            continue;
        fwrite(line, 1, (size_t)len, out);
        if (line[len - 1] != '\n')
            fputc('\n', out);
    }
    free(line);
}

static int write_keys(FILE *f, FILE *old, void *arg)
{
    (void)old;
    const ts_profile *p = arg;
    fprintf(f, "# tsshim machine profile (tsshim-calibrate); rates in 1e9/s, times in s\n");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].count == 1)
            fprintf(f, "%s %.17g\n", keys[i].name, *(const double *)((const char *)p + keys[i].offset));
    return ferror(f) ? -1 : 0;
}

int ts_profile_write(const char *path, const ts_profile *p) { return ts_profile_replace(path, write_keys, (void *)p); }

/* The profile in force, read once. */
static struct {
    ts_profile loaded;
    pthread_once_t once;
} profile = { .once = PTHREAD_ONCE_INIT };

static void load(void)
{
    const ts_config *cfg = ts_config_get();
    char path[4096];
    profile.loaded = ts_profile_defaults;
    if (ts_profile_path(cfg->profile_path, path, sizeof path))
        return;
    /* Only a file the user named is worth a warning: the cache one is optional. */
    if (ts_profile_read(path, &profile.loaded) < 0 && cfg->profile_path[0])
        ts_log(1, "cannot read TSSHIM_PROFILE=%s (%s); built-in figures apply", path, strerror(errno));
    if (cfg->learn_save)
        ts_learned_store_start(path);
}

const ts_profile *ts_profile_get(void)
{
    pthread_once(&profile.once, load);
    return &profile.loaded;
}
