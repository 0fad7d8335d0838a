#include "util/log.h"

#include "common/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/configuration.h"
#include "common/mpi_launcher.h"

/* Where log lines go: the file of TSSHIM_LOG once opened, else stderr. */
static struct {
    pthread_mutex_t lock;
    int fd;
} sink = { PTHREAD_MUTEX_INITIALIZER, -1 };

/* Expands %p to the pid and %r to the launcher's rank (0 without one);
 * other characters are copied. */
static void expand_path(const char *pattern, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < size; p++) {
        if (p[0] == '%' && (p[1] == 'p' || p[1] == 'r')) {
            int rank = ts_launcher_rank();
            long v = p[1] == 'p' ? (long)getpid() : rank >= 0 ? rank : 0;
            int n = snprintf(out + o, size - o, "%ld", v);
            o = n > 0 && (size_t)n < size - o ? o + (size_t)n : size - 1;
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o < size ? o : size - 1] = 0;
}

/* Called with sink.lock held. */
static int log_target(void)
{
    if (sink.fd >= 0)
        return sink.fd;
    const ts_config *cfg = ts_config_get();
    if (cfg->log_path[0]) {
        char path[1100];
        expand_path(cfg->log_path, path, sizeof path);
        sink.fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
    if (sink.fd < 0)
        sink.fd = STDERR_FILENO;
    return sink.fd;
}

/* A line reaches the stream in one write(2), so processes sharing it (MPI
 * ranks on one stderr or file) cannot split each other's lines; a line too
 * long for the buffer is cut.  errno is the program's: it is kept. */
static void vlog(const char *fmt, va_list ap)
{
    int saved = errno;
    char line[2048];
    size_t room = sizeof line - 1; /* the newline */
    int n = vsnprintf(line + 8, room - 8, fmt, ap);
    size_t len = 8 + (n < 0 ? 0 : (size_t)n < room - 8 ? (size_t)n : room - 9);
    memcpy(line, "tsshim: ", 8);
    line[len++] = '\n';
    pthread_mutex_lock(&sink.lock);
    int fd = log_target();
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, line + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    pthread_mutex_unlock(&sink.lock);
    errno = saved;
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

/* What the operand cache held of an operand: "hit", "refreshed", "new", or
 * "-" when it was not cached. */
static const char *cache_state(const ts_call *c, int op) { return c->cache_state[op] ? c->cache_state[op] : "-"; }

void ts_log_trace(const ts_call *c)
{
    /* The routines other than GEMM name the letters their GEMM-shaped
     * descriptor lacks: TRSM and TRMM side, uplo and diag; SYMM and HEMM side
     * and uplo; SYRK, HERK, SYR2K, HER2K uplo. */
    char letters[32] = "";
    if (c->side && c->diag)
        snprintf(letters, sizeof letters, " side=%c uplo=%c diag=%c", c->side, c->uplo, c->diag);
    else if (c->side)
        snprintf(letters, sizeof letters, " side=%c uplo=%c", c->side, c->uplo);
    else if (c->uplo)
        snprintf(letters, sizeof letters, " uplo=%c", c->uplo);
    ts_log(3,
           "%s %c%c%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld class=%s%s w=%lld mem=%s/%s/%s "
           "run=%s (%s) path=%s split=%d cache=%s/%s h2d=%llu d2h=%llu cpu_pred=%.3gs gpu_pred=%.3gs cpu=%.3gs gpu=%.3gs "
           "cache_s=%.3gs prove_s=%.3gs ring_cold=%d at=%.6f",
           ts_routine_symbol(c->routine), c->transa, c->transb, letters, (long long)c->m, (long long)c->n,
           (long long)c->k, (long long)c->lda, (long long)c->ldb, (long long)c->ldc,
           ts_class_name(c->cls), c->mirror ? "(mirror)" : "", (long long)c->width,
           residency_name(c->res_a), residency_name(c->res_b), residency_name(c->res_c),
           c->decision == TS_RUN_GPU ? "gpu" : "cpu", c->reason ? c->reason : "-",
           c->gpu_path ? c->gpu_path : "-", c->split, cache_state(c, TS_OP_A), cache_state(c, TS_OP_B),
           (unsigned long long)c->bytes_h2d,
           (unsigned long long)c->bytes_d2h, c->predicted_cpu_s, c->predicted_gpu_s, c->cpu_seconds, c->gpu_seconds,
           c->cache_seconds, c->prove_seconds, c->gpu_ring_cold, ts_now());
}

void ts_log_after_fork(void)
{
    /* A per-process log (%p) is the child's own file: reopen it there. */
    if (sink.fd > STDERR_FILENO && strstr(ts_config_get()->log_path, "%p")) {
        close(sink.fd);
        sink.fd = -1;
    }
    pthread_mutex_init(&sink.lock, NULL);
}
