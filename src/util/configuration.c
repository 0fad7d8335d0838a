#include "util/configuration.h"
#include "util/json.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KEY_STR(name, def, field) \
    { name, def, TS_KEY_STRING, offsetof(ts_config, field), sizeof(((ts_config *)0)->field), 0, 0 }
#define KEY_NUM(name, def, type, field, lo, hi) \
    { name, def, type, offsetof(ts_config, field), 0, lo, hi }

/* The one table of keys: docs/configuration.md documents exactly these. */
const ts_config_key ts_config_keys[] = {
    { "TSSHIM_MODE", "auto", TS_KEY_MODE, offsetof(ts_config, mode), 0, 0, 0 },
    KEY_STR("TSSHIM_CPU_BLAS", "", cpu_blas),
    KEY_NUM("TSSHIM_MIN_LONG", "2048", TS_KEY_INT, min_long, 1, 1e18),
    KEY_NUM("TSSHIM_MAX_SKINNY", "64", TS_KEY_INT, max_skinny, 1, 1e18),
    KEY_NUM("TSSHIM_MIN_FLOPS", "1e7", TS_KEY_DOUBLE, min_flops, 0, 1e30),
    KEY_NUM("TSSHIM_MARGIN", "1.1", TS_KEY_DOUBLE, margin, 0, 1e6),
    { "TSSHIM_DISABLE", "", TS_KEY_ROUTINES, offsetof(ts_config, disabled), 0, 0, 0 },
    KEY_NUM("TSSHIM_DEVICE", "-1", TS_KEY_INT, device, -1, TS_MAX_DEVICES - 1),
    KEY_NUM("TSSHIM_STAGING_MB", "256", TS_KEY_INT, staging_mb, 1, 1 << 20),
    KEY_NUM("TSSHIM_GPU_MEM_LIMIT", "0", TS_KEY_INT, gpu_mem_limit_mb, 0, 1e12),
    KEY_NUM("TSSHIM_CACHE", "-1", TS_KEY_INT, cache, -1, 1),
    KEY_NUM("TSSHIM_CACHE_MB", "0", TS_KEY_INT, cache_mb, 0, 1e12),
    KEY_NUM("TSSHIM_CACHE_MIN_MB", "16", TS_KEY_INT, cache_min_mb, 1, 1e12),
    KEY_NUM("TSSHIM_SPLIT", "-1", TS_KEY_INT, split, -1, 1),
    { "TSSHIM_SPLIT_DEVICES", "", TS_KEY_DEVICES, offsetof(ts_config, split_devices), 0, 0, 0 },
    KEY_NUM("TSSHIM_SPLIT_MIN_MS", "20", TS_KEY_DOUBLE, split_min_ms, 0, 1e9),
    KEY_NUM("TSSHIM_VERBOSE", "0", TS_KEY_INT, verbose, 0, 3),
    KEY_NUM("TSSHIM_COUNT", "0", TS_KEY_INT, count, 0, 1),
    KEY_STR("TSSHIM_LOG", "", log_path),
    KEY_STR("TSSHIM_PROFILE", "", profile_path),
    KEY_NUM("TSSHIM_LEARN_SAVE", "0", TS_KEY_INT, learn_save, 0, 1),
    KEY_NUM("TSSHIM_BACKGROUND_START", "1", TS_KEY_INT, background_start, 0, 2),
    KEY_STR("TSSHIM_FAULT", "", fault),
};
const size_t ts_config_nkeys = sizeof ts_config_keys / sizeof ts_config_keys[0];

static int parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "dgemm,zgemm_" (case-insensitive, trailing underscore optional). */
static int parse_routines(const char *s, int *disabled)
{
    int set[TS_NROUTINE] = { 0 };
    while (*s) {
        size_t len = strcspn(s, ", ");
        if (len) {
            size_t base = len;
            if (s[base - 1] == '_')
                base--;
            int r;
            for (r = 0; r < TS_NROUTINE; r++) {
                const char *name = ts_routine_symbol((ts_routine)r);
                size_t name_len = strlen(name) - (name[strlen(name) - 1] == '_');
                if (base == name_len && strncasecmp(s, name, base) == 0)
                    break;
            }
            if (r == TS_NROUTINE)
                return -1;
            set[r] = 1;
        }
        s += len;
        s += strspn(s, ", ");
    }
    memcpy(disabled, set, sizeof set);
    return 0;
}

/* "0,1,2" or "0 0": device numbers below TS_MAX_DEVICES, repeats allowed. */
static int parse_devices(const char *s, ts_device_list *out)
{
    ts_device_list list = { 0 };
    for (s += strspn(s, ", "); *s; s += strspn(s, ", ")) {
        size_t len = strcspn(s, ", ");
        char number[16];
        double v;
        if (len >= sizeof number || list.count == TS_MAX_DEVICES)
            return -1;
        memcpy(number, s, len);
        number[len] = 0;
        if (parse_number(number, 0, TS_MAX_DEVICES - 1, &v) || v != (double)(int)v)
            return -1;
        list.dev[list.count++] = (int)v;
        s += len;
    }
    *out = list;
    return 0;
}

int ts_config_set(ts_config *cfg, const ts_config_key *key, const char *value)
{
    char *field = (char *)cfg + key->offset;
    double v;
    switch (key->type) {
    case TS_KEY_MODE:
        if (!strcasecmp(value, "auto"))
            *(ts_mode *)field = TS_MODE_AUTO;
        else if (!strcasecmp(value, "gpu"))
            *(ts_mode *)field = TS_MODE_GPU;
        else if (!strcasecmp(value, "cpu"))
            *(ts_mode *)field = TS_MODE_CPU;
        else
            return -1;
        return 0;
    case TS_KEY_STRING:
        if (strlen(value) >= key->size)
            return -1;
        strcpy(field, value);
        return 0;
    case TS_KEY_INT:
        if (parse_number(value, key->min, key->max, &v) || v != (double)(int64_t)v)
            return -1;
        *(int64_t *)field = (int64_t)v;
        return 0;
    case TS_KEY_DOUBLE:
        if (parse_number(value, key->min, key->max, &v))
            return -1;
        *(double *)field = v;
        return 0;
    case TS_KEY_ROUTINES:
        return parse_routines(value, (int *)field);
    case TS_KEY_DEVICES:
        return parse_devices(value, (ts_device_list *)field);
    }
    return -1;
}

static const ts_config_key *find_key(const char *name, size_t len)
{
    for (size_t i = 0; i < ts_config_nkeys; i++)
        if (strlen(ts_config_keys[i].name) == len && !strncmp(ts_config_keys[i].name, name, len))
            return &ts_config_keys[i];
    return NULL;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

/* File lines are "KEY = value" with the environment's names; '#' starts a
 * comment.  Keys already set from the environment are not overridden. */
static int load_file(ts_config *cfg, const char *path, const int *from_env)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    int rejected = 0;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\n")] = 0;
        char *eq = strchr(line, '=');
        char *name = trim(line);
        if (!*name)
            continue;
        if (!eq) {
            rejected++;
            continue;
        }
        *eq = 0;
        name = trim(name);
        const ts_config_key *key = find_key(name, strlen(name));
        if (!key) {
            rejected++;
            continue;
        }
        if (!from_env[key - ts_config_keys] && ts_config_set(cfg, key, trim(eq + 1)))
            rejected++;
    }
    fclose(f);
    return rejected;
}

int ts_config_load(ts_config *cfg, const char *(*get)(const char *name), const char *file)
{
    int rejected = 0;
    int from_env[sizeof ts_config_keys / sizeof ts_config_keys[0]] = { 0 };
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < ts_config_nkeys; i++)
        ts_config_set(cfg, &ts_config_keys[i], ts_config_keys[i].def);
    for (size_t i = 0; i < ts_config_nkeys; i++) {
        const char *v = get(ts_config_keys[i].name);
        if (!v)
            continue;
        from_env[i] = 1;
        if (ts_config_set(cfg, &ts_config_keys[i], v))
            rejected++;
    }
    if (file && *file)
        rejected += load_file(cfg, file, from_env);
    return rejected;
}

/* The process's settings, loaded once. */
static struct {
    ts_config config;
    int rejected;
    pthread_once_t once;
} settings = { .once = PTHREAD_ONCE_INIT };

static const char *env_get(const char *name) { return getenv(name); }

static void config_init(void)
{
    settings.rejected = ts_config_load(&settings.config, env_get, getenv("TSSHIM_CONFIG"));
}

int ts_config_rejected(void)
{
    ts_config_get();
    return settings.rejected;
}

const ts_config *ts_config_get(void)
{
    pthread_once(&settings.once, config_init);
    return &settings.config;
}

/* One value of the configuration as JSON: numbers as numbers, the mode,
 * strings, routines and devices as strings or lists. */
static void json_value(ts_json *j, const ts_config *cfg, const ts_config_key *key)
{
    const char *field = (const char *)cfg + key->offset;
    switch (key->type) {
    case TS_KEY_MODE: {
        ts_mode m = *(const ts_mode *)field;
        ts_json_string(j, m == TS_MODE_GPU ? "gpu" : m == TS_MODE_CPU ? "cpu" : "auto");
        break;
    }
    case TS_KEY_STRING: ts_json_string(j, field); break;
    case TS_KEY_INT: ts_json_add(j, "%lld", (long long)*(const int64_t *)field); break;
    case TS_KEY_DOUBLE: ts_json_add(j, "%.17g", *(const double *)field); break;
    case TS_KEY_ROUTINES: {
        const int *disabled = (const int *)field;
        int first = 1;
        ts_json_add(j, "[");
        for (int r = 0; r < TS_NROUTINE; r++)
            if (disabled[r]) {
                ts_json_add(j, first ? "" : ", ");
                ts_json_string(j, ts_routine_symbol((ts_routine)r));
                first = 0;
            }
        ts_json_add(j, "]");
        break;
    }
    case TS_KEY_DEVICES: {
        const ts_device_list *l = (const ts_device_list *)field;
        ts_json_add(j, "[");
        for (int i = 0; i < l->count; i++)
            ts_json_add(j, i ? ", %d" : "%d", l->dev[i]);
        ts_json_add(j, "]");
        break;
    }
    }
}

void ts_config_json(ts_json *j, const ts_config *cfg)
{
    ts_json_add(j, "{");
    for (size_t i = 0; i < ts_config_nkeys; i++) {
        ts_json_add(j, i ? ", " : "");
        ts_json_string(j, ts_config_keys[i].name);
        ts_json_add(j, ": ");
        json_value(j, cfg, &ts_config_keys[i]);
    }
    ts_json_add(j, "}");
}
