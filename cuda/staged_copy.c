#include "staged_copy.h"

#include "compute.h"
#include "copy_pool.h"
#include "staging.h"

/* Up to nbuf pieces (ts_region_piece) are in flight: piece i uses buffer
 * i mod nbuf once piece i - nbuf is done with it.  Uploads pack on this
 * thread (through the pool) and then DMA; downloads DMA ahead and unpack
 * behind.  *final: the columns before the first piece not unpacked. */
static cudaError_t staged(int up, char *host, char *dev, const ts_region *r, size_t es, const ts_config *cfg,
                          int64_t *final)
{
    int device;
    cudaError_t err = ts_gpu_fault(cfg, up ? "copy" : "copy_back");
    if (err)
        return err;
    err = cudaGetDevice(&device);
    ts_staging *st = err ? NULL : ts_staging_acquire(device, cfg->staging_mb << 20, 1, &err);
    if (!st)
        return err;
    int64_t n = ts_region_npieces(r, es, st->buf_bytes), issued = 0, done = 0, nbuf = st->nbuf;
    cudaStream_t stream = up ? st->h2d : st->d2h;
    while (!err && done < n) {
        for (; !err && issued < n && issued - done < nbuf; issued++) {
            ts_region p = ts_region_piece(r, es, st->buf_bytes, issued);
            int slot = (int)(issued % nbuf);
            unsigned char *buf = ts_staging_buf(st, slot);
            size_t rows = (size_t)p.rows * es, ld = (size_t)p.ld * es;
            char *h = (char *)ts_region_at(host, &p, es), *d = (char *)ts_region_at(dev, &p, es);
            if (up) {
                if (issued >= nbuf && (err = cudaEventSynchronize(st->buf_copied[slot])))
                    break;
                ts_copy_2d(buf, rows, h, ld, rows, (size_t)p.cols, 1);
                err = cudaMemcpy2DAsync(d, ld, buf, rows, rows, (size_t)p.cols, cudaMemcpyHostToDevice, stream);
            } else {
                err = cudaMemcpy2DAsync(buf, rows, d, ld, rows, (size_t)p.cols, cudaMemcpyDeviceToHost, stream);
            }
            if (!err)
                err = cudaEventRecord(st->buf_copied[slot], stream);
        }
        if (up) {
            done = issued;
            continue;
        }
        if (err)
            break;
        ts_region p = ts_region_piece(r, es, st->buf_bytes, done);
        int slot = (int)(done % nbuf);
        if ((err = cudaEventSynchronize(st->buf_copied[slot])))
            break;
        ts_copy_2d((char *)ts_region_at(host, &p, es), (size_t)p.ld * es, ts_staging_buf(st, slot),
                   (size_t)p.rows * es, (size_t)p.rows * es, (size_t)p.cols, 1);
        done++;
    }
    cudaError_t sync = cudaStreamSynchronize(stream);
    ts_staging_release(st);
    if (final)
        *final = done < n ? ts_region_piece(r, es, st->buf_bytes, done).col - r->col : r->cols;
    return err ? err : sync;
}

cudaError_t ts_staged_upload(void *dev, const void *host, const ts_region *r, size_t elem, const ts_config *cfg)
{
    return staged(1, (char *)host, dev, r, elem, cfg, NULL);
}

cudaError_t ts_staged_download(void *host, const void *dev, const ts_region *r, size_t elem, const ts_config *cfg,
                               int64_t *final)
{
    return staged(0, host, (char *)dev, r, elem, cfg, final);
}
