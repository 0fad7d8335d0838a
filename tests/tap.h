/* Minimal TAP producer for the C test programs (Automake's tap-driver.sh
 * reads it).  Header-only: each test program includes it once. */
#ifndef TS_TAP_H
#define TS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failed;

/* Prints "ok N - what" or "not ok N - what"; returns cond. */
static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    printf("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond)
        tap_failed++;
    fflush(stdout);
    return cond;
}

static inline void tap_skip(const char *fmt, ...)
{
    va_list ap;
    printf("ok %d # SKIP ", ++tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* Diagnostic line, ignored by the driver. */
static inline void tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* Trailing plan; returns the process exit status. */
static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    fflush(stdout);
    return tap_failed ? 1 : 0;
}

#endif
