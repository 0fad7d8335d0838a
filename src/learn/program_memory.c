#include "learn/program_memory.h"

#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

void ts_program_key(const char *exe, char *key)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)exe; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    snprintf(key, TS_PROGRAM_KEY_LEN, "program.%016" PRIx64, h);
}

static int valid_factor(long f)
{
    return f == 0 || (f >= 1 && f <= TS_PROGRAM_FACTOR_MAX && !(f & (f - 1)));
}

/* key's factor on a whole line (a missing newline means the file was cut), else -1. */
static int parse_line(const char *line, size_t len, const char *key)
{
    char name[64], rest[2];
    long f;
    if (!len || line[len - 1] != '\n' || sscanf(line, " %63s %ld %1s", name, &f, rest) != 2 || strcmp(name, key) ||
        !valid_factor(f))
        return -1;
    return (int)f;
}

int ts_program_read(const char *path, const char *key)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int factor = 1;
    while ((len = getline(&line, &cap, f)) > 0) {
        int v = parse_line(line, (size_t)len, key);
        if (v >= 0)
            factor = v;
    }
    free(line);
    fclose(f);
    return factor;
}

typedef struct {
    const char *key;
    int factor;
} verdict;

/* A line of the key's (whatever follows it). */
static int keys_line(const char *line, void *key)
{
    const char *s = line + strspn(line, " \t");
    size_t n = strlen(key);
    return !strncmp(s, key, n) && (s[n] == ' ' || s[n] == '\t');
}

static int merge(FILE *out, FILE *old, void *arg)
{
    const verdict *v = arg;
    ts_profile_copy_lines(out, old, keys_line, (void *)v->key);
    fprintf(out, "%s %d\n", v->key, v->factor);
    return ferror(out) || (old && ferror(old)) ? -1 : 0;
}

int ts_program_write(const char *path, const char *key, int factor)
{
    verdict v = { key, factor };
    return ts_profile_replace(path, merge, &v);
}

int ts_program_next(int old, int started, double gain, double price)
{
    if (!started)
        return old;
    if (gain >= price)
        return 0;
    int f = old < 1 ? 2 : 2 * old;
    return f > TS_PROGRAM_FACTOR_MAX ? TS_PROGRAM_FACTOR_MAX : f;
}

static int active;
static int factor = 1;
static char key[TS_PROGRAM_KEY_LEN];
static char store_path[4096];
static _Atomic double gained;
static pid_t owner;

void ts_program_memory_save(int gpu_started)
{
    /* A forked child did not run the parent's start: its exit says nothing. */
    if (!active || getpid() != owner || !gpu_started)
        return;
    int next = ts_program_next(factor, 1, atomic_load(&gained), ts_profile_get()->gpu_start_s);
    if (ts_program_write(store_path, key, next))
        ts_log(1, "cannot save the program's GPU start verdict into %s", store_path);
    else
        ts_log(2, "GPU start verdict %s %d (calls on the GPU saved %.3f s) merged into %s", key, next,
               atomic_load(&gained), store_path);
}

int ts_program_memory_start(const ts_config *cfg, int devices)
{
    if (!cfg->learn_save || cfg->mode != TS_MODE_AUTO || cfg->background_start != 1 || devices <= 0 ||
        ts_profile_path(cfg->profile_path, store_path, sizeof store_path))
        return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    ts_program_key(exe, key);
    factor = ts_program_read(store_path, key);
    /* The price is read at exit: load the profile now, not from an exit handler. */
    ts_profile_get();
    owner = getpid();
    active = 1;
    ts_log(2, "GPU start of %s: %s (%s in %s)", exe, factor ? "earned by the ledger" : "at load", key, store_path);
    return factor == 0;
}

double ts_program_start_price(const ts_profile *prof)
{
    return prof->gpu_start_s * (active && factor > 1 ? factor : 1);
}

void ts_program_gained(double seconds)
{
    if (!active)
        return;
    double before = atomic_load_explicit(&gained, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&gained, &before, before + seconds, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}
