/* A test's text file written whole, for the profile file's tests
 * (test_profile, test_learned_store).  Header-only, as tap.h. */
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

#endif
