/* The calibration profile file: written and read back exactly, partial and
 * garbled files fall back to the defaults key by key, a missing file is -1,
 * and the default location follows XDG_CACHE_HOME and HOME.  And the cost
 * model prices pageable operands at the staging pipeline's rate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn/profile.h"
#include "tap.h"
#include "text_file.h"

static int same(const ts_profile *a, const ts_profile *b) { return !memcmp(a, b, sizeof *a); }

int main(void)
{
    char dir[] = "/tmp/tsshim-profile-XXXXXX", path[256], text[512];
    if (!mkdtemp(dir)) {
        tap_ok(0, "temporary directory");
        return tap_done();
    }

    /* Values no default has, with digits that a short format would lose. */
    ts_profile p = ts_profile_defaults, q = ts_profile_defaults;
    p.cpu_gbs[TS_CLASS_ISM2][TS_Z] = 61.123456789012345;
    p.cpu_gflops[TS_CLASS_REGULAR][TS_S] = 1e-3 / 3;
    p.h2d_staged_gbs = 51.5;
    p.both_staged_gbs = 58.75;
    p.d2h_pinned_gbs = 54.25;
    p.gpu_gflops[TS_Z] = 6.7e4;
    p.gpu_overhead_s = 2.5e-5;
    snprintf(path, sizeof path, "%s/a/b/profile", dir);
    int wrote = ts_profile_write(path, &p);
    int n = ts_profile_read(path, &q);
    tap_ok(wrote == 0 && n == 53 && same(&p, &q), "write (creating directories) and read back: %d keys, equal", n);

    ts_profile r = ts_profile_defaults;
    snprintf(path, sizeof path, "%s/partial", dir);
    write_text(path, "# three keys\nh2d_staged_gbs 33\n  cpu_gbs.tsmttsm.c\t12.5  \ncpu_gflops.ism2 99\n");
    n = ts_profile_read(path, &r);
    ts_profile want = ts_profile_defaults;
    want.h2d_staged_gbs = 33;
    want.cpu_gbs[TS_CLASS_TSMTTSM][TS_C] = 12.5;
    for (int i = 0; i < TS_NPREC; i++)
        want.cpu_gflops[TS_CLASS_ISM2][i] = 99;
    tap_ok(n == 3 && same(&r, &want),
           "partial file: its 3 keys set (a class key of an older profile sets every precision), the others keep "
           "their defaults");

    r = ts_profile_defaults;
    snprintf(text, sizeof text,
             "garbage\n\x01\x02\xff\nh2d_pinned_gbs fast\nd2h_pinned_gbs -3\nunknown_key 5\n"
             "gpu_mem_gbs 100 200\ngpu_overhead_s 0\nhost_copy_gbs 1e999\nd2h_staged_gbs 20\n");
    write_text(path, text);
    n = ts_profile_read(path, &r);
    want = ts_profile_defaults;
    want.d2h_staged_gbs = 20;
    tap_ok(n == 1 && same(&r, &want), "garbage lines, bad numbers and unknown keys are skipped (%d key set)", n);

    r = ts_profile_defaults;
    snprintf(path, sizeof path, "%s/none", dir);
    tap_ok(ts_profile_read(path, &r) == -1 && same(&r, &ts_profile_defaults), "missing file: -1, defaults kept");

    char out[512];
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/home/u", 1);
    int a = ts_profile_path("", out, sizeof out) == 0 && !strcmp(out, "/x/cache/tsshim/profile");
    setenv("XDG_CACHE_HOME", "relative", 1);
    int b = ts_profile_path(NULL, out, sizeof out) == 0 && !strcmp(out, "/home/u/.cache/tsshim/profile");
    unsetenv("HOME");
    unsetenv("XDG_CACHE_HOME");
    int c = ts_profile_path("", out, sizeof out) == -1;
    int d = ts_profile_path("/etc/p", out, sizeof out) == 0 && !strcmp(out, "/etc/p");
    tap_ok(a && b && c && d, "path: TSSHIM_PROFILE, then $XDG_CACHE_HOME (absolute only), then ~/.cache, else none");

    /* 2 GiB up from pageable memory at 10 GB/s staged, everything else fast. */
    ts_profile fast = ts_profile_defaults;
    fast.h2d_staged_gbs = 10;
    fast.h2d_pinned_gbs = 40;
    fast.d2h_staged_gbs = fast.d2h_pinned_gbs = fast.host_copy_gbs = 1e6;
    fast.gpu_mem_gbs = fast.gpu_gflops[TS_D] = 1e9;
    fast.gpu_overhead_s = 0;
    ts_call gram;
    memset(&gram, 0, sizeof gram);
    gram.prec = TS_D;
    gram.m = gram.n = 8;
    gram.k = 1 << 24;
    gram.beta_zero = 1;
    gram.cls = TS_CLASS_TSMTTSM;
    double staged = ts_predict_gpu_seconds(&gram, &fast);
    gram.res_a = gram.res_b = gram.res_c = TS_MEM_PINNED;
    double pinned = ts_predict_gpu_seconds(&gram, &fast);
    gram.res_a = gram.res_b = gram.res_c = TS_MEM_DEVICE;
    double device = ts_predict_gpu_seconds(&gram, &fast);
    tap_ok(fabs(staged - 0.2147) < 1e-3 && fabs(pinned - 0.0537) < 1e-3 && device < 1e-5,
           "cost model: pageable at the staged rate (%.4f s), pinned at the DMA rate (%.4f s), device free", staged,
           pinned);

    /* TSMM, 1 GiB each way at once: the both-direction rate binds. */
    ts_profile both = fast;
    both.h2d_staged_gbs = both.h2d_pinned_gbs = 1e6;
    both.both_staged_gbs = 20;
    ts_call tsmm = gram;
    tsmm.m = 1 << 24;
    tsmm.n = tsmm.k = 8;
    tsmm.cls = TS_CLASS_ISM2;
    tsmm.res_a = tsmm.res_b = tsmm.res_c = TS_MEM_HOST;
    double each_way = ts_predict_gpu_seconds(&tsmm, &both);
    tap_ok(fabs(each_way - 0.1074) < 1e-3, "cost model: pageable data both ways at once at that rate (%.4f s)",
           each_way);

    snprintf(text, sizeof text, "rm -rf '%s'", dir);
    if (system(text) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
