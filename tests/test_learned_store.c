/* Learned cost-model corrections kept in the profile file
 * (src/learn/learned_store.c): saved and read back exactly, merged with what the
 * file held, corrupt and partial lines ignored (defaults stay), unknown
 * keys kept, several writers at once leave a whole file with everyone's
 * cells, and at exit the save is silent and cannot fail the program. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "learn/learned_rates.h"
#include "learn/learned_store.h"
#include "learn/profile.h"
#include "tap.h"
#include "text_file.h"

static char dir[] = "/tmp/tsshim-learned-XXXXXX";

static ts_call call(ts_class cls, ts_prec p, int64_t m, int64_t n, int64_t k)
{
    ts_call c;
    memset(&c, 0, sizeof c);
    c.cls = cls;
    c.prec = p;
    c.m = m;
    c.n = n;
    c.k = k;
    c.beta_zero = 1;
    return c;
}

static int near(double x, double want) { return fabs(x - want) <= 1e-12 * want; }

/* Every cell at its default: factor 1, no samples. */
static int all_default(void)
{
    for (int s = 0; s < TS_NSIDE; s++)
        for (int k = 0; k < TS_NCLASS; k++)
            for (int p = 0; p < TS_NPREC; p++)
                for (int b = 0; b < TS_LEARNED_BUCKETS; b++) {
                    double f;
                    int n, here;
                    ts_learned_cell(s, k, p, b, &f, &n, &here);
                    if (f != 1 || n || here)
                        return 0;
                }
    return 1;
}

static const char *path_in(const char *name)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

/* Files in the directory whose name starts with `prefix` (temporary files
 * left behind would show here). */
static int files_like(const char *prefix)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return n;
}

/* A child that sets env, learns one more cell through the shim's own
 * start (ts_profile_get) and exits through exit(); returns its exit status
 * and whether it wrote anything to stderr. */
static int child_exit(const char *profile, const char *learn_save, const ts_call *learned, int *printed)
{
    const char *err = path_in("child.err");
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(err, "w", stderr))
            _exit(99);
        setenv("TSSHIM_PROFILE", profile, 1);
        if (learn_save)
            setenv("TSSHIM_LEARN_SAVE", learn_save, 1);
        else
            unsetenv("TSSHIM_LEARN_SAVE");
        ts_learned_reset();
        ts_profile_get();
        ts_learned_record(TS_SIDE_CPU, learned, 1, 5);
        /* The library's exit sequence (src/entry/lifecycle.c) saves the
         * rates; this program links the core without it. */
        atexit(ts_learned_store_save);
        exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    *printed = read_text(err)[0] != 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(void)
{
    if (!mkdtemp(dir)) {
        tap_ok(0, "temporary directory");
        return tap_done();
    }
    ts_call tsm2 = call(TS_CLASS_TSM2, TS_D, 20480, 16, 20480), ism2 = call(TS_CLASS_ISM2, TS_Z, 1 << 22, 16, 16),
            gram = call(TS_CLASS_TSMTTSM, TS_S, 8, 8, 1 << 24);

    const char *none = path_in("none/profile");
    tap_ok(ts_learned_save(none) == 0 && access(none, F_OK) && ts_learned_load(none) == -1 && all_default(),
           "nothing measured: no file written; a missing file loads nothing (-1)");

    /* A calibration with values no default has. */
    ts_profile cal = ts_profile_defaults, back = ts_profile_defaults;
    cal.h2d_staged_gbs = 41.25;
    cal.gpu_start_s = 0.375;
    const char *path = path_in("profile");
    ts_profile_write(path, &cal);
    ts_learned_record(TS_SIDE_GPU, &tsm2, 1e-3, 2e-3);
    ts_learned_record(TS_SIDE_CPU, &ism2, 1e-3, 5e-4);
    ts_learned_record(TS_SIDE_CPU, &ism2, 1e-3, 5e-4);
    int saved = ts_learned_save(path);
    int keys = ts_profile_read(path, &back);
    ts_learned_reset();
    int loaded = ts_learned_load(path);
    tap_ok(saved == 0 && keys == 53 && !memcmp(&cal, &back, sizeof cal) && loaded == 2 &&
               near(ts_learned_factor(TS_SIDE_GPU, &tsm2), 2) && ts_learned_samples(TS_SIDE_GPU, &tsm2) == 1 &&
               near(ts_learned_factor(TS_SIDE_CPU, &ism2), 0.5) && ts_learned_samples(TS_SIDE_CPU, &ism2) == 2 &&
               ts_learned_factor(TS_SIDE_GPU, &ism2) == 1 && ts_learned_samples(TS_SIDE_GPU, &ism2) == 0,
           "round trip: factors and samples read back, the calibration's 53 keys unchanged (%d keys, %d cells)", keys,
           loaded);

    /* The next run: starts from the file, measures one cell again and a new one. */
    ts_learned_record(TS_SIDE_GPU, &tsm2, 1e-3, 8e-3);
    ts_learned_record(TS_SIDE_CPU, &gram, 1e-3, 3e-3);
    saved = ts_learned_save(path);
    ts_learned_reset();
    loaded = ts_learned_load(path);
    tap_ok(saved == 0 && loaded == 3 && near(ts_learned_factor(TS_SIDE_GPU, &tsm2), 4) &&
               ts_learned_samples(TS_SIDE_GPU, &tsm2) == 2 && near(ts_learned_factor(TS_SIDE_CPU, &ism2), 0.5) &&
               near(ts_learned_factor(TS_SIDE_CPU, &gram), 3),
           "merge: a cell measured again replaces the file's, cells not measured keep the file's, new ones are added");

    const char *bad = path_in("corrupt");
    write_text(bad, "\x01\x02\xff garbage\n"
                    "learned.gpu.tsm2.d.3 abc 2\nlearned.gpu.tsm2.d.3 0 2\nlearned.gpu.tsm2.d.3 1025 2\n"
                    "learned.gpu.tsm2.d.3 nan 2\nlearned.gpu.tsm2.d.3 -2 2\nlearned.gpu.tsm2.d.3 2 0\n"
                    "learned.gpu.tsm2.d.3 2 1.5\nlearned.gpu.tsm2.d.3 2 3 4\nlearned.gpu.tsm2.d.3 2\n"
                    "learned.gpu.tsm2.d.16 2 3\nlearned.gpu.tsm2.d.-1 2 3\nlearned.gpu.tsm2.d.99999999999 2 3\n"
                    "learned.gpu.tsm2.q.3 2 3\n"
                    "learned.gpu.tsm2.dd.3 2 3\nlearned.gpu.tsm2.d.3x 2 3\nlearned.gpu.none.d.3 2 3\n"
                    "learned.gpu.tsm2.d 2 3\nlearned.cpu.tsm2.d.3 99999999999999 3\n"
                    "learned.cpu.tsm2.d.3 2 99999999999999\n");
    ts_learned_reset();
    back = ts_profile_defaults;
    tap_ok(ts_learned_load(bad) == 0 && all_default() && ts_profile_read(bad, &back) == 0 &&
               !memcmp(&back, &ts_profile_defaults, sizeof back),
           "corrupt lines (bad numbers, out of range, unknown cells) are ignored: defaults stay");

    write_text(bad, "learned.gpu.tsm2.d.3 2 5\nlearned.cpu.tsm2.d.3 2 5");
    tap_ok(ts_learned_load(bad) == 1 && !all_default(), "a partial file: its cut last line is ignored");

    const char *unknown = path_in("unknown");
    static const char *const kept[] = { "# a comment\n", "future_key 1 2 3\n", "learned.tpu.tsm2.d.1 2 3\n",
                                        "learned.gpu.syrk.d.3 1.5 4\n", "h2d_pinned_gbs 50\n", "learned.gpu.tsm2.d.3 abc\n" };
    char text[1024] = "";
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        strcat(text, kept[i]);
    write_text(unknown, text);
    ts_learned_reset();
    ts_learned_record(TS_SIDE_GPU, &tsm2, 1e-3, 2e-3);
    saved = ts_learned_save(unknown);
    int all_kept = 1;
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        all_kept &= strstr(read_text(unknown), kept[i]) != NULL;
    ts_learned_reset();
    loaded = ts_learned_load(unknown);
    tap_ok(saved == 0 && all_kept && loaded == 1 && near(ts_learned_factor(TS_SIDE_GPU, &tsm2), 2),
           "unknown keys, unknown cells and lines it cannot parse are kept as they were and not read");

    /* Writers at once: each child learns a cell of its own and saves 10 times. */
    enum { WRITERS = 8 };
    const char *shared = path_in("shared");
    ts_profile_write(shared, &cal);
    int go[2];
    if (pipe(go))
        tap_ok(0, "pipe");
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0) {
            char byte;
            close(go[1]);
            ts_learned_reset();
            ts_call mine = call(TS_CLASS_TSM2 + w % 4, w < 4 ? TS_S : TS_D, 20480, 16, 20480);
            ts_learned_record(TS_SIDE_GPU, &mine, 1e-3, (2.0 + w) * 1e-3);
            int failed = read(go[0], &byte, 1) != 0; /* waits for the parent to close its end */
            for (int i = 0; i < 10; i++)
                failed |= ts_learned_save(shared) != 0;
            _exit(failed);
        }
    }
    close(go[0]);
    close(go[1]);
    int writers_ok = 1;
    for (int w = 0; w < WRITERS; w++) {
        int status = -1;
        waitpid(pids[w], &status, 0);
        writers_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    ts_learned_reset();
    back = ts_profile_defaults;
    keys = ts_profile_read(shared, &back);
    loaded = ts_learned_load(shared);
    int every = 1;
    for (int w = 0; w < WRITERS; w++) {
        ts_call mine = call(TS_CLASS_TSM2 + w % 4, w < 4 ? TS_S : TS_D, 20480, 16, 20480);
        every &= near(ts_learned_factor(TS_SIDE_GPU, &mine), 2.0 + w);
    }
    tap_ok(writers_ok && keys == 53 && !memcmp(&cal, &back, sizeof cal) && loaded == WRITERS && every &&
               files_like("shared.") == 1,
           "%d writers at once: each saved, the file holds the calibration and all %d cells, no temporary file left",
           WRITERS, WRITERS);

    /* Through the shim's start and exit. */
    const char *run = path_in("run");
    ts_learned_reset();
    ts_learned_record(TS_SIDE_GPU, &tsm2, 1e-3, 2e-3);
    ts_learned_save(run);
    int printed, status = child_exit(run, NULL, &gram, &printed);
    ts_learned_reset();
    tap_ok(status == 0 && !printed && ts_learned_load(run) == 1,
           "TSSHIM_LEARN_SAVE unset (default 0): nothing saved at exit, nothing printed");
    status = child_exit(run, "1", &gram, &printed);
    ts_learned_reset();
    loaded = ts_learned_load(run);
    tap_ok(status == 0 && !printed && loaded == 2 && near(ts_learned_factor(TS_SIDE_CPU, &gram), 5),
           "TSSHIM_LEARN_SAVE=1: merged into the profile at exit, silently (%d cells)", loaded);
    status = child_exit("/proc/self/tsshim/profile", "1", &gram, &printed);
    tap_ok(status == 0 && !printed, "a profile that cannot be written: exit status 0, nothing printed");

    /* OpenBLAS on 16 threads ran lobpcg's 20000 x 16 block times 16 x 16
     * products 30-70x slower than the built-in rate; a bound of 16x on
     * the factor kept the model sending them there. */
    ts_learned_reset();
    double first = 0, settled = 0;
    for (int i = 0; i < 12; i++) {
        ts_learned_record(TS_SIDE_CPU, &ism2, 1e-4, 5e-3);
        if (i == 0)
            first = ts_learned_factor(TS_SIDE_CPU, &ism2);
    }
    settled = ts_learned_factor(TS_SIDE_CPU, &ism2);
    ts_learned_record(TS_SIDE_CPU, &ism2, 1e-4, 1e-1);
    double outlier = ts_learned_factor(TS_SIDE_CPU, &ism2) / settled;
    ts_learned_reset();
    for (int i = 0; i < 40; i++)
        ts_learned_record(TS_SIDE_GPU, &ism2, 1e-6, 1.0);
    tap_ok(near(first, 16) && fabs(settled / 50 - 1) < 0.05 && outlier > 1 && outlier <= 2 + 1e-9 &&
               ts_learned_factor(TS_SIDE_GPU, &ism2) > 0.99 * TS_LEARNED_MAX &&
               ts_learned_factor(TS_SIDE_GPU, &ism2) <= TS_LEARNED_MAX * (1 + 1e-12),
           "a factor 50x off is learned within 12 calls (first %.3g, then %.3g), one outlier moves it at most a "
           "quarter of 16x (%.3g), and it stops at TS_LEARNED_MAX",
           first, settled, outlier);

    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
