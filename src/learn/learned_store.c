#include "learn/learned_store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learned_rates.h"
#include "util/log.h"
#include "learn/profile.h"

static const char *const side_names[TS_NSIDE] = { "cpu", "gpu" };
static const char prec_names[TS_NPREC] = { 's', 'd', 'c', 'z' };

typedef struct {
    int side, cls, prec, bucket;
} cell_id;

/* "learned.gpu.tsm2.d.7": 0 and the cell, or -1 when it names none. */
static int parse_name(const char *name, cell_id *id)
{
    char side[8], cls[16], prec[4];
    int used = 0;
    if (strncmp(name, "learned.", 8) ||
        sscanf(name + 8, "%7[^.].%15[^.].%3[^.].%3d%n", side, cls, prec, &id->bucket, &used) != 4 || name[8 + used] ||
        id->bucket < 0 || id->bucket >= TS_LEARNED_BUCKETS || strlen(prec) != 1)
        return -1;
    for (id->side = 0; id->side < TS_NSIDE && strcmp(side, side_names[id->side]); id->side++)
        ;
    for (id->cls = TS_CLASS_NONE + 1; id->cls < TS_NCLASS && strcmp(cls, ts_class_name(id->cls)); id->cls++)
        ;
    for (id->prec = 0; id->prec < TS_NPREC && prec[0] != prec_names[id->prec]; id->prec++)
        ;
    return id->side < TS_NSIDE && id->cls < TS_NCLASS && id->prec < TS_NPREC ? 0 : -1;
}

/* A whole line (a missing newline means the file was cut) with a cell's
 * name, a factor the learning can reach and a positive whole sample count. */
static int parse_line(const char *line, size_t len, cell_id *id, double *factor, int *samples)
{
    char name[64], rest[2];
    double n;
    if (!len || line[len - 1] != '\n' || sscanf(line, " %63s %lf %lf %1s", name, factor, &n, rest) != 3 ||
        parse_name(name, id))
        return -1;
    if (!(*factor >= 1.0 / TS_LEARNED_MAX && *factor <= TS_LEARNED_MAX) || !(n >= 1 && n <= INT_MAX) || n != (double)(int)n)
        return -1;
    *samples = (int)n;
    return 0;
}

int ts_learned_load(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int set = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        cell_id id;
        double factor;
        int samples;
        if (!parse_line(line, (size_t)len, &id, &factor, &samples)) {
            ts_learned_set(id.side, id.cls, id.prec, id.bucket, factor, samples);
            set++;
        }
    }
    free(line);
    fclose(f);
    return set;
}

static int measured_here(const cell_id *id)
{
    double factor;
    int samples, measured;
    ts_learned_cell(id->side, id->cls, id->prec, id->bucket, &factor, &samples, &measured);
    return measured > 0;
}

/* Calls fn on every cell this process measured; returns how many. */
static int each_measured(void (*fn)(FILE *, const cell_id *), FILE *out)
{
    int count = 0;
    cell_id id;
    for (id.side = 0; id.side < TS_NSIDE; id.side++)
        for (id.cls = TS_CLASS_NONE + 1; id.cls < TS_NCLASS; id.cls++)
            for (id.prec = 0; id.prec < TS_NPREC; id.prec++)
                for (id.bucket = 0; id.bucket < TS_LEARNED_BUCKETS; id.bucket++)
                    if (measured_here(&id)) {
                        count++;
                        if (fn)
                            fn(out, &id);
                    }
    return count;
}

static void write_cell(FILE *out, const cell_id *id)
{
    double factor;
    int samples, measured;
    ts_learned_cell(id->side, id->cls, id->prec, id->bucket, &factor, &samples, &measured);
    fprintf(out, "learned.%s.%s.%c.%d %.17g %d\n", side_names[id->side], ts_class_name(id->cls),
            prec_names[id->prec], id->bucket, factor, samples);
}

/* A line of a cell measured here: the merge writes it anew. */
static int measured_line(const char *line, void *arg)
{
    (void)arg;
    char name[64];
    cell_id id;
    return sscanf(line, " %63s", name) == 1 && !parse_name(name, &id) && measured_here(&id);
}

/* The old file's lines, less those of the cells measured here, then those cells. */
static int merge(FILE *out, FILE *old, void *arg)
{
    (void)arg;
    if (!old)
        fputs("# tsshim profile; learned.* lines: the cost model's corrections (TSSHIM_LEARN_SAVE)\n", out);
    ts_profile_copy_lines(out, old, measured_line, NULL);
    each_measured(write_cell, out);
    return ferror(out) || (old && ferror(old)) ? -1 : 0;
}

int ts_learned_save(const char *path)
{
    if (!each_measured(NULL, NULL))
        return 0;
    return ts_profile_replace(path, merge, NULL);
}

static char store_path[4096];

void ts_learned_store_save(void)
{
    if (!store_path[0])
        return;
    if (ts_learned_save(store_path))
        ts_log(1, "cannot save the learned rates into %s", store_path);
    else
        ts_log(2, "learned rates merged into %s", store_path);
}

void ts_learned_store_start(const char *path)
{
    if (snprintf(store_path, sizeof store_path, "%s", path) >= (int)sizeof store_path)
        return;
    int set = ts_learned_load(store_path);
    ts_log(2, "%d learned rate(s) read from %s", set > 0 ? set : 0, store_path);
}
