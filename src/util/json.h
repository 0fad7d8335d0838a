/* A JSON text written into a caller's buffer, snprintf-style: the length
 * it needs is counted even when the buffer is too short (the public query
 * functions, src/entry/query.c). */
#ifndef TS_JSON_H
#define TS_JSON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ts_json {
    char *buf;
    size_t len;   /* the buffer's size */
    size_t used;  /* the text's length so far (may exceed len) */
} ts_json;

static inline void ts_json_init(ts_json *j, char *buf, size_t len)
{
    j->buf = buf;
    j->len = buf ? len : 0;
    j->used = 0;
    if (j->len)
        buf[0] = 0;
}

__attribute__((format(printf, 2, 3))) static inline void ts_json_add(ts_json *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = j->used < j->len ? j->len - j->used : 0;
    int n = vsnprintf(room ? j->buf + j->used : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        j->used += (size_t)n;
    /* Truncated: the buffer keeps a terminated prefix. */
}

/* A string with the characters JSON requires escaped. */
static inline void ts_json_string(ts_json *j, const char *s)
{
    ts_json_add(j, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            ts_json_add(j, "\\%c", c);
        else if (c < 0x20)
            ts_json_add(j, "\\u%04x", c);
        else
            ts_json_add(j, "%c", c);
    }
    ts_json_add(j, "\"");
}

#endif
