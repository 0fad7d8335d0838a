/* Configuration: defaults, environment, file, precedence, rejected values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/configuration.h"
#include "fake_env.h"
#include "tap.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    ts_config c;
    tap_ok(load_config(&c, NULL, NULL) == 0, "defaults load without rejections");
    tap_ok(c.mode == TS_MODE_AUTO && c.min_long == 2048 && c.max_skinny == 64 && c.verbose == 0 &&
               c.staging_mb == 256 && c.margin == 1.1 && c.min_flops == 1e7 && !c.log_path[0],
           "default values");
    tap_ok(!c.disabled[TS_S] && !c.disabled[TS_D] && !c.disabled[TS_C] && !c.disabled[TS_Z], "nothing disabled by default");

    static const char *const env1[] = { "TSSHIM_MODE", "GPU", "TSSHIM_MIN_LONG", "512", "TSSHIM_DISABLE",
                                        "zgemm_, SGEMM", "TSSHIM_VERBOSE", "3", "TSSHIM_LOG", "/tmp/x.%p", NULL };
    tap_ok(load_config(&c, env1, NULL) == 0, "environment values accepted");
    tap_ok(c.mode == TS_MODE_GPU && c.min_long == 512 && c.verbose == 3 && !strcmp(c.log_path, "/tmp/x.%p"),
           "environment overrides defaults");
    tap_ok(c.disabled[TS_S] && !c.disabled[TS_D] && !c.disabled[TS_C] && c.disabled[TS_Z],
           "TSSHIM_DISABLE parses a routine list");

    static const char *const env_more[] = { "TSSHIM_DISABLE", "dsymm_, cher2k_, cblas_ztrmm, scipy_zsyr2k_64_", NULL };
    tap_ok(load_config(&c, env_more, NULL) == 0 && c.disabled[TS_R_dsymm_] && c.disabled[TS_R_cher2k_] &&
               c.disabled[TS_R_cblas_ztrmm] && c.disabled[TS_R_scipy_zsyr2k_64_] && !c.disabled[TS_R_zhemm_],
           "TSSHIM_DISABLE names SYMM, HEMM, TRMM, SYR2K and HER2K routines");

    static const char *const env_bad[] = { "TSSHIM_MODE", "fast", "TSSHIM_VERBOSE", "9", "TSSHIM_MAX_SKINNY",
                                           "12x", "TSSHIM_DISABLE", "dgemv", "TSSHIM_MIN_FLOPS", "-1", NULL };
    tap_ok(load_config(&c, env_bad, NULL) == 5, "five bad values rejected");
    tap_ok(c.mode == TS_MODE_AUTO && c.verbose == 0 && c.max_skinny == 64 && !c.disabled[TS_D] && c.min_flops == 1e7,
           "rejected values keep their defaults");

    char path[] = "/tmp/tsshim-config-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    write_file(path, "# comment\n TSSHIM_MODE = cpu \nTSSHIM_MAX_SKINNY=32 # trailing\n\nTSSHIM_VERBOSE=2\n");
    static const char *const env2[] = { "TSSHIM_VERBOSE", "1", NULL };
    tap_ok(load_config(&c, env2, path) == 0, "config file accepted");
    tap_ok(c.mode == TS_MODE_CPU && c.max_skinny == 32, "config file overrides defaults");
    tap_ok(c.verbose == 1, "environment overrides the config file");

    write_file(path, "TSSHIM_NOPE=1\nnot a line\nTSSHIM_DEVICE=abc\n");
    tap_ok(load_config(&c, NULL, path) == 3, "unknown keys and bad lines in the file are rejected");
    unlink(path);
    tap_ok(load_config(&c, NULL, "/nonexistent/tsshim.conf") == 1, "a missing config file counts as rejected");

    size_t n = ts_config_nkeys;
    int names_ok = 1;
    for (size_t i = 0; i < n; i++)
        names_ok &= !strncmp(ts_config_keys[i].name, "TSSHIM_", 7);
    tap_ok(names_ok && n >= 12, "every key is a TSSHIM_ name (%zu keys)", n);
    return tap_done();
}
