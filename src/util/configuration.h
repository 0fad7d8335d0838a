/* Configuration: environment first, then the file named by TSSHIM_CONFIG,
 * then built-in defaults.  Read once; read-only afterwards. */
#ifndef TS_CONFIGURATION_H
#define TS_CONFIGURATION_H

#include <stdint.h>
#include "common/settings.h"


/* One key of the table: name, default, and how it is parsed. */
typedef enum { TS_KEY_MODE, TS_KEY_STRING, TS_KEY_INT, TS_KEY_DOUBLE, TS_KEY_ROUTINES, TS_KEY_DEVICES } ts_key_type;

typedef struct {
    const char *name;
    const char *def;
    ts_key_type type;
    size_t offset;              /* into ts_config */
    size_t size;                /* of the string buffer, for TS_KEY_STRING */
    double min, max;            /* accepted range of numbers */
} ts_config_key;

extern const ts_config_key ts_config_keys[];
extern const size_t ts_config_nkeys;

/* The process-wide configuration, loaded on first use (thread-safe). */
const ts_config *ts_config_get(void);

/* Loads into cfg from a getenv-like function and an optional file path;
 * returns the number of values that were rejected (and replaced by defaults).
 * Exposed for the unit tests. */
int ts_config_load(ts_config *cfg, const char *(*get)(const char *name), const char *file);

/* Parses one value into cfg; returns 0 when accepted. */
int ts_config_set(ts_config *cfg, const ts_config_key *key, const char *value);

/* Values rejected while loading the process-wide configuration. */
int ts_config_rejected(void);

/* The settings of cfg as one JSON object, every key of the table by its
 * environment name (tsshim_settings_json). */
struct ts_json;
void ts_config_json(struct ts_json *j, const ts_config *cfg);


#endif
