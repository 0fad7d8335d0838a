#include "staged_copy.h"

#include <string.h>

#include "compute.h"
#include "copy_pool.h"
#include "staging.h"

/* Pieces packed ahead of the one whose DMA is issued next: the pool's
 * threads pack several at once, where one piece alone (16 parts of 1 MB)
 * leaves most of them idle for its last part. */
enum { AHEAD = 4 };

/* Where piece p of a region lies in the device copy (leading dimension dev_ld). */
static char *dev_at(const void *dev, int64_t dev_ld, const ts_region *p, size_t es)
{
    return (char *)dev + (size_t)(p->row + p->col * dev_ld) * es;
}

/* The ring, as it is now, for a copy of r on the current device. */
static ts_staging *acquire(const ts_region *r, size_t es, const ts_config *cfg, cudaError_t *err)
{
    int device;
    if ((*err = ts_gpu_fault(cfg, "copy")) || (*err = cudaGetDevice(&device)))
        return NULL;
    return ts_staging_acquire(device, ts_staging_bytes(device, cfg->staging_mb << 20, 0),
                              (uint64_t)ts_region_elems(r) * es, 1, err);
}

/* Piece i (ts_region_piece) goes through buffer i mod nbuf once the DMA of
 * piece i - nbuf out of it is done; up to AHEAD pieces are packed (on the
 * pool's threads) while the DMAs of earlier ones are in flight. */
cudaError_t ts_staged_upload(void *dev, int64_t dev_ld, const void *host, const ts_region *r, size_t es,
                             const ts_config *cfg)
{
    cudaError_t err;
    ts_staging *st = acquire(r, es, cfg, &err);
    if (!st)
        return err;
    const int64_t n = ts_region_npieces(r, es, st->buf_bytes), nbuf = st->nbuf;
    const int64_t ahead = AHEAD < nbuf ? AHEAD : nbuf;
    ts_copy_job jobs[AHEAD];
    int64_t i = 0, packed = 0;
    for (; !err && i < n; i++) {
        for (; packed < n && packed < i + ahead; packed++) {
            /* Its buffer's last piece, packed - nbuf < i, had its DMA issued. */
            int slot = (int)(packed % nbuf);
            if (packed >= nbuf && (err = cudaEventSynchronize(st->buf_copied[slot])))
                break;
            ts_region p = ts_region_piece(r, es, st->buf_bytes, packed);
            size_t rows = (size_t)p.rows * es, ld = (size_t)p.ld * es;
            ts_copy_job *j = &jobs[packed % AHEAD];
            memset(j, 0, sizeof *j);
            ts_copy_submit(j, ts_staging_buf(st, slot), rows, ts_region_at(host, &p, es), ld, rows, (size_t)p.cols, 1);
        }
        if (err)
            break;
        ts_region p = ts_region_piece(r, es, st->buf_bytes, i);
        size_t rows = (size_t)p.rows * es;
        int slot = (int)(i % nbuf);
        ts_copy_finish(&jobs[i % AHEAD]);
        err = cudaMemcpy2DAsync(dev_at(dev, dev_ld, &p, es), (size_t)dev_ld * es, ts_staging_buf(st, slot), rows, rows,
                                (size_t)p.cols, cudaMemcpyHostToDevice, st->h2d);
        if (!err)
            err = cudaEventRecord(st->buf_copied[slot], st->h2d);
    }
    /* The pool may still be packing pieces submitted ahead: their jobs and
     * buffers are ours until it is done. */
    for (; i < packed; i++)
        ts_copy_finish(&jobs[i % AHEAD]);
    cudaError_t sync = cudaStreamSynchronize(st->h2d);
    ts_staging_release(st, 0);
    return err ? err : sync;
}

/* Downwards every piece is DMA'd into the ring before any is unpacked into
 * the caller's memory, so that a failed copy leaves it as it was (the CPU
 * then computes the call from it). */
cudaError_t ts_staged_download(void *host, const ts_region *r, const void *dev, int64_t dev_ld, size_t es,
                               const ts_config *cfg, int *fits)
{
    cudaError_t err;
    *fits = 0;
    ts_staging *st = acquire(r, es, cfg, &err);
    if (!st)
        return err;
    const int64_t n = ts_region_npieces(r, es, st->buf_bytes);
    if (n > st->nbuf) {
        ts_staging_release(st, 0);
        return cudaSuccess;
    }
    *fits = 1;
    for (int64_t i = 0; !err && i < n; i++) {
        ts_region p = ts_region_piece(r, es, st->buf_bytes, i);
        size_t rows = (size_t)p.rows * es;
        err = cudaMemcpy2DAsync(ts_staging_buf(st, (int)i), rows, dev_at(dev, dev_ld, &p, es), (size_t)dev_ld * es,
                                rows, (size_t)p.cols, cudaMemcpyDeviceToHost, st->d2h);
    }
    cudaError_t sync = cudaStreamSynchronize(st->d2h);
    if (!err && !sync) {
        ts_copy_job jobs[TS_STAGING_MAX_BUFS];
        for (int64_t i = 0; i < n; i++) {
            ts_region p = ts_region_piece(r, es, st->buf_bytes, i);
            size_t rows = (size_t)p.rows * es;
            memset(&jobs[i], 0, sizeof jobs[i]);
            ts_copy_submit(&jobs[i], (void *)ts_region_at(host, &p, es), (size_t)p.ld * es,
                           ts_staging_buf(st, (int)i), rows, rows, (size_t)p.cols, 1);
        }
        for (int64_t i = 0; i < n; i++)
            ts_copy_finish(&jobs[i]);
    }
    ts_staging_release(st, 0);
    return err ? err : sync;
}
