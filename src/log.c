#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "configuration.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;

/* Expands %p to the pid; other characters are copied. */
static void expand_path(const char *pattern, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < size; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            o += (size_t)snprintf(out + o, size - o, "%ld", (long)getpid());
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o < size ? o : size - 1] = 0;
}

/* Called with log_lock held. */
static FILE *log_stream(void)
{
    if (log_file)
        return log_file;
    const ts_config *cfg = ts_config_get();
    if (cfg->log_path[0]) {
        char path[1100];
        expand_path(cfg->log_path, path, sizeof path);
        log_file = fopen(path, "a");
        if (log_file)
            setvbuf(log_file, NULL, _IOLBF, 0);
    }
    if (!log_file)
        log_file = stderr;
    return log_file;
}

static void vlog(const char *fmt, va_list ap)
{
    pthread_mutex_lock(&log_lock);
    FILE *f = log_stream();
    fputs("tsshim: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    fflush(f);
    pthread_mutex_unlock(&log_lock);
}

void ts_log(int level, const char *fmt, ...)
{
    if (ts_config_get()->verbose < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void ts_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

const char *ts_class_name(ts_class cls)
{
    static const char *const names[TS_NCLASS] = { "none", "tsm2", "ism2", "tsmttsm", "rankk", "regular" };
    return names[cls];
}

static const char *residency_name(ts_residency r)
{
    static const char *const names[] = { "host", "pinned", "managed", "device" };
    return names[r];
}

void ts_log_trace(const ts_call *c)
{
    ts_log(3,
           "%s %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld class=%s%s w=%lld mem=%s/%s/%s "
           "run=%s (%s) path=%s h2d=%llu d2h=%llu cpu_pred=%.3gs gpu_pred=%.3gs gpu=%.3gs",
           ts_routine_symbol(c->routine), c->transa, c->transb, (long long)c->m, (long long)c->n,
           (long long)c->k, (long long)c->lda, (long long)c->ldb, (long long)c->ldc,
           ts_class_name(c->cls), c->mirror ? "(mirror)" : "", (long long)c->width,
           residency_name(c->res_a), residency_name(c->res_b), residency_name(c->res_c),
           c->decision == TS_RUN_GPU ? "gpu" : "cpu", c->reason ? c->reason : "-",
           c->gpu_path ? c->gpu_path : "-", (unsigned long long)c->bytes_h2d,
           (unsigned long long)c->bytes_d2h, c->predicted_cpu_s, c->predicted_gpu_s, c->gpu_seconds);
}

void ts_log_after_fork(void)
{
    /* The parent's FILE stays the parent's: drop it without flushing twice. */
    if (log_file && log_file != stderr && strstr(ts_config_get()->log_path, "%p"))
        log_file = NULL;
    pthread_mutex_init(&log_lock, NULL);
}
