/* What a program's earlier runs learned about the GPU start
 * (src/learn/program_memory.c): the key of an executable's path, the verdict
 * after a run, the profile line read back (others' lines, corrupt and cut
 * lines, invalid factors ignored) and replaced without touching the rest of
 * the file, and the ledger's price while nothing is remembered.  The start
 * at load that factor 0 asks for runs under the shim in
 * background_start.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn/profile.h"
#include "learn/program_memory.h"
#include "tap.h"
#include "text_file.h"

static char dir[] = "/tmp/tsshim-program-XXXXXX";

int main(void)
{
    char a[TS_PROGRAM_KEY_LEN], a2[TS_PROGRAM_KEY_LEN], b[TS_PROGRAM_KEY_LEN];
    ts_program_key("/usr/bin/legacy_app", a);
    ts_program_key("/usr/bin/legacy_app", a2);
    ts_program_key("/usr/bin/legacy_apq", b);
    tap_ok(!strcmp(a, a2) && strcmp(a, b) && strlen(a) == 24 && !strncmp(a, "program.", 8) &&
               strspn(a + 8, "0123456789abcdef") == 16,
           "an executable's key: program. and 16 hex digits of its path's hash, the same for the same path (%s, %s)",
           a, b);

    tap_ok(ts_program_next(1, 1, 0.5, 0.41) == 0 && ts_program_next(8, 1, 0.41, 0.41) == 0 &&
               ts_program_next(0, 1, 0.5, 0.41) == 0,
           "a start whose calls saved at least its price: the next run starts at load (factor 0)");
    tap_ok(ts_program_next(1, 1, 0.1, 0.41) == 2 && ts_program_next(0, 1, -0.2, 0.41) == 2 &&
               ts_program_next(2, 1, 0.3, 0.41) == 4 && ts_program_next(16, 1, 0, 0.41) == 16,
           "a start that saved less: the next run's price doubles, up to 16 times");
    tap_ok(ts_program_next(0, 0, 0, 0.41) == 0 && ts_program_next(4, 0, 0, 0.41) == 4,
           "a run that never started the GPU leaves the factor as it was");

    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: cannot make a directory in /tmp\n");
        return 1;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/profile", dir);
    tap_ok(ts_program_read(path, a) == 1, "no file: factor 1 (the ledger's own price)");

    char text[1024];
    snprintf(text, sizeof text,
             "# tsshim machine profile\n"
             "gpu_start_s 0.5\n"
             "learned.gpu.tsm2.d.7 0.82 12\n"
             "%s 8\n"
             "%s 3\n"
             "%s 4 extra\n"
             "%s -1\n"
             "%s 32\n"
             "%s 2",
             b, a, a, a, a, a);
    write_text(path, text);
    tap_ok(ts_program_read(path, a) == 1 && ts_program_read(path, b) == 8,
           "factors that are no power of two up to 16 (3, -1, 32), a line with more on it and a cut last line "
           "are ignored; another program's line is its own");

    tap_ok(ts_program_write(path, a, 0) == 0 && ts_program_read(path, a) == 0 && ts_program_read(path, b) == 8,
           "a verdict written is read back; the other program's stays");
    const char *now = read_text(path);
    char line[64];
    snprintf(line, sizeof line, "\n%s 0\n", a);
    int mine = 0;
    for (const char *s = now; (s = strstr(s, a)); s++)
        mine++;
    tap_ok(strstr(now, "# tsshim machine profile\ngpu_start_s 0.5\nlearned.gpu.tsm2.d.7 0.82 12\n") == now &&
               strstr(now, line) && mine == 1,
           "the rest of the file is kept as it was, this program's old lines replaced by one");

    ts_profile p = ts_profile_defaults;
    tap_ok(ts_profile_read(path, &p) == 1 && p.gpu_start_s == 0.5,
           "the profile reader skips the program lines and still reads its keys");
    tap_ok(ts_program_start_price(&p) == 0.5,
           "the ledger's price is the profile's gpu_start_s where nothing was remembered (%g)",
           ts_program_start_price(&p));

    tap_ok(ts_program_write(path, a, 16) == 0 && ts_program_read(path, a) == 16 && ts_program_write(path, b, 1) == 0 &&
               ts_program_read(path, a) == 16 && ts_program_read(path, b) == 1,
           "later verdicts replace earlier ones, each program's alone");

    unlink(path);
    snprintf(text, sizeof text, "%s.lock", path);
    unlink(text);
    rmdir(dir);
    return tap_done();
}
