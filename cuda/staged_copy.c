#include "staged_copy.h"

#include "compute.h"
#include "copy_pool.h"
#include "staging.h"

/* Piece i (ts_region_piece) goes through buffer i mod nbuf once the DMA of
 * piece i - nbuf out of it is done: packing (on the pool's threads) runs
 * while up to nbuf DMAs are in flight. */
cudaError_t ts_staged_upload(void *dev, const void *host, const ts_region *r, size_t es, const ts_config *cfg)
{
    int device;
    cudaError_t err = ts_gpu_fault(cfg, "copy");
    if (err || (err = cudaGetDevice(&device)))
        return err;
    ts_staging *st = ts_staging_acquire(device, cfg->staging_mb << 20, 1, &err);
    if (!st)
        return err;
    int64_t n = ts_region_npieces(r, es, st->buf_bytes), nbuf = st->nbuf;
    for (int64_t i = 0; !err && i < n; i++) {
        ts_region p = ts_region_piece(r, es, st->buf_bytes, i);
        int slot = (int)(i % nbuf);
        unsigned char *buf = ts_staging_buf(st, slot);
        size_t rows = (size_t)p.rows * es, ld = (size_t)p.ld * es;
        if (i >= nbuf && (err = cudaEventSynchronize(st->buf_copied[slot])))
            break;
        ts_copy_2d(buf, rows, ts_region_at(host, &p, es), ld, rows, (size_t)p.cols, 1);
        err = cudaMemcpy2DAsync((char *)ts_region_at(dev, &p, es), ld, buf, rows, rows, (size_t)p.cols,
                                cudaMemcpyHostToDevice, st->h2d);
        if (!err)
            err = cudaEventRecord(st->buf_copied[slot], st->h2d);
    }
    cudaError_t sync = cudaStreamSynchronize(st->h2d);
    ts_staging_release(st);
    return err ? err : sync;
}
