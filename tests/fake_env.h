/* A configuration loaded from a table of NAME, VALUE pairs instead of the
 * process environment, for the unit tests of the settings. */
#ifndef TS_TEST_FAKE_ENV_H
#define TS_TEST_FAKE_ENV_H

#include <string.h>

#include "util/configuration.h"

static const char *const *env_table;

static const char *fake_env(const char *name)
{
    for (const char *const *e = env_table; e && *e; e += 2)
        if (!strcmp(e[0], name))
            return e[1];
    return NULL;
}

/* ts_config_load with ENV (NULL-terminated pairs, or NULL) and FILE (the
 * TSSHIM_CONFIG file, or NULL): the number of values rejected. */
static int load_config(ts_config *cfg, const char *const *env, const char *file)
{
    env_table = env;
    return ts_config_load(cfg, fake_env, file);
}

#endif
