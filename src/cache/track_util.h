/* Small helpers the write tracker's files share (internal to src/cache/):
 * unsigned minimum and maximum, and writing a reason into a caller's
 * buffer. */
#ifndef TS_TRACK_UTIL_H
#define TS_TRACK_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static inline uintptr_t max_u(uintptr_t a, uintptr_t b)
{
    return a > b ? a : b;
}

static inline uintptr_t min_u(uintptr_t a, uintptr_t b)
{
    return a < b ? a : b;
}

/* The reason into why (len bytes); nothing when why is NULL or len 0. */
static inline void say(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

#endif
