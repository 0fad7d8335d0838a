/* Test text files written and read whole, for the profile file's tests
 * (test_profile, test_learned_store, test_program_memory).  Header-only, as
 * tap.h. */
#ifndef TS_TEXT_FILE_H
#define TS_TEXT_FILE_H

#include <stdio.h>

/* 0, or -1 when PATH cannot be written. */
static inline int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* The whole of PATH (at most 64 KiB), or "" when it cannot be read; a
 * static buffer, overwritten by the next call. */
static inline const char *read_text(const char *path)
{
    static char text[1 << 16];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    return text;
}

#endif
