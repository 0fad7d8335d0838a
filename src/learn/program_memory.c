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

/* Program memory's state: the verdict read at start (factor), the
 * program's key and the profile it lives in, what GPU calls saved. */
static struct {
    int active;
    int factor;
    char key[TS_PROGRAM_KEY_LEN];
    char store_path[4096];
    _Atomic double gained;
    pid_t owner;
} memory = { .factor = 1 };

void ts_program_memory_save(int gpu_started)
{
    /* A forked child did not run the parent's start: its exit says nothing. */
    if (!memory.active || getpid() != memory.owner || !gpu_started)
        return;
    int next = ts_program_next(memory.factor, 1, atomic_load(&memory.gained), ts_profile_get()->gpu_start_s);
    if (ts_program_write(memory.store_path, memory.key, next))
        ts_log(1, "cannot save the program's GPU start verdict into %s", memory.store_path);
    else
        ts_log(2, "GPU start verdict %s %d (calls on the GPU saved %.3f s) merged into %s", memory.key, next,
               atomic_load(&memory.gained), memory.store_path);
}

int ts_program_memory_start(const ts_config *cfg, int devices)
{
    if (!cfg->learn_save || cfg->mode != TS_MODE_AUTO || cfg->background_start != 1 || devices <= 0 ||
        ts_profile_path(cfg->profile_path, memory.store_path, sizeof memory.store_path))
        return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    ts_program_key(exe, memory.key);
    memory.factor = ts_program_read(memory.store_path, memory.key);
    /* The price is read at exit: load the profile now, not from an exit handler. */
    ts_profile_get();
    memory.owner = getpid();
    memory.active = 1;
    ts_log(2, "GPU start of %s: %s (%s in %s)", exe, memory.factor ? "earned by the ledger" : "at load", memory.key,
           memory.store_path);
    return memory.factor == 0;
}

double ts_program_start_price(const ts_profile *prof)
{
    return prof->gpu_start_s * (memory.active && memory.factor > 1 ? memory.factor : 1);
}

void ts_program_gained(double seconds)
{
    if (!memory.active)
        return;
    double before = atomic_load_explicit(&memory.gained, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&memory.gained, &before, before + seconds, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}
