/* The write tracker's reading of /proc/self/maps: see memory_maps.h. */
#include "cache/memory_maps.h"

#include "cache/track_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef enum { MAPS_MORE, MAPS_COVERED, MAPS_HOLE, MAPS_OTHER } maps_verdict;

/* One line of /proc/self/maps against the range still to see, [*at, e);
 * *lo becomes the start of the first mapping over the range. */
static maps_verdict judge_line(const char *line, uintptr_t *at, uintptr_t e, uintptr_t *lo)
{
    unsigned long from, to, inode;
    unsigned major, minor;
    char perms[5];
    int name = 0;
    if (sscanf(line, "%lx-%lx %4s %*x %x:%x %lu %n", &from, &to, perms, &major, &minor, &inode, &name) < 6 || !name)
        return MAPS_OTHER;
    if (to <= *at)
        return MAPS_MORE;
    if (from > *at)
        return MAPS_HOLE;
    *lo = min_u(*lo, from);
    const char *n = line + name;
    int anonymous = !*n || !strcmp(n, "[heap]") || !strcmp(n, "[stack]") || !strncmp(n, "[anon:", 6);
    if (perms[3] != 'p' || major || minor || inode || !anonymous)
        return MAPS_OTHER;
    *at = to;
    return *at >= e ? MAPS_COVERED : MAPS_MORE;
}

int ts_maps_private_anonymous(uintptr_t s, uintptr_t e, uintptr_t *lo, uintptr_t *hi, char *why, size_t why_len)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(why, why_len, "cannot read /proc/self/maps: %s", strerror(errno));
        return 0;
    }
    char buf[8192];
    size_t have = 0;
    uintptr_t at = s;
    *lo = UINTPTR_MAX;
    maps_verdict v = MAPS_MORE;
    ssize_t got;
    while (v == MAPS_MORE && have < sizeof buf - 1 && (got = read(fd, buf + have, sizeof buf - 1 - have)) > 0) {
        have += (size_t)got;
        buf[have] = '\0';
        char *line = buf, *nl;
        while (v == MAPS_MORE && (nl = strchr(line, '\n'))) {
            *nl = '\0';
            v = judge_line(line, &at, e, lo);
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
    }
    close(fd);
    *hi = at;
    if (v == MAPS_OTHER)
        say(why, why_len,
            "part of the range is not private anonymous memory (shared or file-backed pages can change unseen)");
    else if (v != MAPS_COVERED)
        say(why, why_len, "part of the range is not mapped");
    return v == MAPS_COVERED;
}
