/* bench_kernels: the tuned kernels against cuBLAS.  For each class x precision x width
 * {1..64} x main transpose layouts, on device-resident data, times in the
 * same run
 *   - tsk_gemm(), the dispatched path (the instance the tuning table names,
 *     printed as the path, or cuBLAS: then the path's time is cuBLAS's),
 *   - the narrowest compiled instance serving the cell, default parameters
 *     (what the kernel alone does, dispatched or not),
 *   - cuBLAS,
 * and the roofline: the larger of the memory time (bytes of A, B and C once
 * over the device-to-device copy bandwidth measured here) and the arithmetic
 * time (flops over the FMA-pipe peak measured here; cuBLAS may beat it with
 * FP64 tensor cores).  Every operand is far larger than L2, so each
 * repetition streams from HBM without rotating buffers.
 *
 * Usage: bench_kernels [CSV] [class]   (class: tsm2, ism2 or tsmttsm) */
#include <math.h>
#include "bench_common.h"
#include "common/cost_model.h"
#include "tsk_gemm.h"

double bc_fma_peak(int double_precision); /* bench/fma_peak.cu */


typedef struct {
    const ts_call *call;
    const tsk_operands *ops;
    const tsk_instance *inst;
    cublasHandle_t h;
    int sm;
} bench_ctx;

static int run_dispatch(void *p)
{
    bench_ctx *t = p;
    tsk_status s = tsk_gemm(t->call, t->ops, 0, t->sm);
    if (s == TSK_DECLINED)
        return bc_cublas(t->h, t->call, t->ops) != CUBLAS_STATUS_SUCCESS;
    return s != TSK_RAN;
}

static int run_instance(void *p)
{
    bench_ctx *t = p;
    return t->inst->launch(t->call, t->ops, 0, NULL) != TSK_RAN;
}

static int run_cublas(void *p)
{
    bench_ctx *t = p;
    return bc_cublas(t->h, t->call, t->ops) != CUBLAS_STATUS_SUCCESS;
}

/* The shapes of ../shared/GPU.md's cuBLAS table. */
static void bench_shape(ts_call *c, ts_class cls, ts_prec p, char ta, char tb, int w)
{
    int cplx = ts_prec_is_complex(p);
    if (cls == TS_CLASS_TSM2)
        bc_call(c, cls, p, ta, tb, 20480, w, 20480);
    else if (cls == TS_CLASS_ISM2)
        bc_call(c, cls, p, ta, tb, cplx ? (int64_t)1 << 23 : (int64_t)1 << 24, w, w);
    else
        bc_call(c, cls, p, ta, tb, w, w, (cplx ? (int64_t)1 << 28 : (int64_t)1 << 29) / w);
}

/* The instance the tuning table sends the call to ("cublas" if none). */
static const char *dispatched(const ts_call *c, int sm)
{
    char ta, tb;
    tsk_cell_transposes(c, &ta, &tb);
    const tsk_tuning_row *row = tsk_tuning_find(sm, c->cls, c->prec, ta, tb, tsk_width_cell(c->width));
    return row && row->instance ? row->instance : "cublas";
}

static const tsk_instance *narrowest(const ts_call *c)
{
    const tsk_instance *best = NULL;
    for (size_t i = 0; i < tsk_instance_count(); i++) {
        const tsk_instance *x = tsk_instance_at(i);
        if (tsk_instance_serves(x, c) && (best == NULL || x->max_width < best->max_width))
            best = x;
    }
    return best;
}

int main(int argc, char **argv)
{
    static const ts_class classes[] = { TS_CLASS_TSM2, TS_CLASS_ISM2, TS_CLASS_TSMTTSM };
    static const char layouts[3][2][2] = { { "NN", "TN" }, { "NN", "TN" }, { "TN", "NN" } };
    const char *only = argc > 2 ? argv[2] : NULL;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "bench_kernels: no CUDA device\n");
        return 1;
    }
    FILE *csv = fopen(argc > 1 ? argv[1] : "bench_kernels.csv", "w");
    if (csv == NULL) {
        perror("csv");
        return 1;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    /* Largest operands: ISM2 z at width 64 (A and C 8 GiB), TSMTTSM B 4 GiB. */
    size_t big_a = (size_t)1 << 33, big_b = (size_t)1 << 32, big_c = (size_t)1 << 33;
    void *a, *b, *c;
    cublasHandle_t h;
    if (cudaMalloc(&a, big_a) != cudaSuccess || cudaMalloc(&b, big_b) != cudaSuccess ||
        cudaMalloc(&c, big_c) != cudaSuccess || cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench_kernels: cannot allocate the operands\n");
        return 1;
    }
    cudaMemset(a, 0x3f, big_a);
    cudaMemset(b, 0x3f, big_b);
    cudaMemset(c, 0, big_c);
    double bw = bc_copy_bandwidth(c, a, (size_t)1 << 31);
    double peak[2] = { bc_fma_peak(0), bc_fma_peak(1) }; /* single, double */
    int sm = bc_sm();
    printf("# %s, sm_%d, %d SMs, L2 %d MiB; device-to-device copy %.0f GB/s (read + write); "
           "FMA peak %.1f TFLOP/s single, %.1f double\n", prop.name, sm, prop.multiProcessorCount,
           prop.l2CacheSize >> 20, bw * 1e-9, peak[0] * 1e-12, peak[1] * 1e-12);
    fprintf(csv, "gpu,class,prec,transa,transb,m,n,k,width,path,tsk_us,kernel,kernel_us,cublas_us,"
                 "roofline_us,bound,speedup,kernel_speedup,tsk_roofline_pct,kernel_roofline_pct,cublas_roofline_pct,"
                 "copy_roofline_pct\n");
    printf("%-8s %s %-2s %3s %-16s %9s %9s %9s %9s %5s %6s %6s %5s %5s %5s %5s\n", "class", "p", "tt", "w", "path",
           "tsk_us", "kern_us", "cublas_us", "roof_us", "bound", "x_cb", "kx_cb", "tsk%", "kern%", "cb%", "cp%");
    double log_gain = 0;
    int n_gain = 0, n_slow = 0;
    for (size_t ci = 0; ci < 3; ci++) {
        if (only && strcmp(only, bc_class_name[classes[ci]]) != 0)
            continue;
        for (int p = 0; p < TS_NPREC; p++)
            for (int l = 0; l < 2; l++)
                for (int wi = 0; wi < BC_NWIDTHS; wi++) {
                    ts_call call;
                    tsk_operands ops;
                    bench_shape(&call, classes[ci], (ts_prec)p, layouts[ci][l][0], layouts[ci][l][1], bc_widths[wi]);
                    bc_operands(&ops, &call, a, b, c);
                    bench_ctx t = { &call, &ops, narrowest(&call), h, sm };
                    tsk_status st = tsk_gemm(&call, &ops, 0, sm);
                    cudaDeviceSynchronize();
                    const char *path = st == TSK_RAN ? dispatched(&call, sm) : st == TSK_DECLINED ? "cublas" : "error";
                    double t_cb = bc_time(run_cublas, &t, 2, 9);
                    double t_tsk = st == TSK_DECLINED ? t_cb : bc_time(run_dispatch, &t, 2, 9);
                    double t_k = t.inst ? bc_time(run_instance, &t, 2, 9) : -1.0;
                    double t_mem = bc_bytes(&call) / bw;
                    double t_fpu = ts_gemm_flops(call.prec, call.m, call.n, call.k) / peak[p == TS_D || p == TS_Z];
                    double roof = t_mem > t_fpu ? t_mem : t_fpu;
                    const char *bound = t_mem > t_fpu ? "mem" : "fpu";
                    const char *kname = t.inst ? t.inst->name : "-";
                    /* What a device-to-device copy of the cell's bytes reaches of
                     * the roofline (memory-bound cells): the bandwidth at this
                     * size, against the 2 GiB copy's. */
                    size_t half = (size_t)(bc_bytes(&call) / 2);
                    double copy = t_mem > t_fpu && half <= big_c ? 100 * bc_copy_bandwidth(c, a, half) / bw : 0.0;
                    printf("%-8s %c %c%c %3d %-16s %9.1f %9.1f %9.1f %9.1f %5s %6.2f %6.2f %5.0f %5.0f %5.0f %5.0f\n",
                           bc_class_name[classes[ci]], bc_prec_char[p], call.transa, call.transb, bc_widths[wi],
                           path, t_tsk * 1e6, t_k * 1e6, t_cb * 1e6, roof * 1e6, bound, t_cb / t_tsk,
                           t_k > 0 ? t_cb / t_k : 0.0, 100 * roof / t_tsk, t_k > 0 ? 100 * roof / t_k : 0.0,
                           100 * roof / t_cb, copy);
                    fprintf(csv, "%s,%s,%c,%c,%c,%lld,%lld,%lld,%d,%s,%.2f,%s,%.2f,%.2f,%.2f,%s,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f\n",
                            prop.name, bc_class_name[classes[ci]], bc_prec_char[p], call.transa, call.transb,
                            (long long)call.m, (long long)call.n, (long long)call.k, bc_widths[wi], path,
                            t_tsk * 1e6, kname, t_k * 1e6, t_cb * 1e6, roof * 1e6, bound, t_cb / t_tsk,
                            t_k > 0 ? t_cb / t_k : 0.0, 100 * roof / t_tsk, t_k > 0 ? 100 * roof / t_k : 0.0,
                            100 * roof / t_cb, copy);
                    fflush(stdout);
                    if (t_tsk > 0 && t_cb > 0 && roof / t_cb < 0.4) {
                        log_gain += log(t_cb / t_tsk);
                        n_gain++;
                    }
                    n_slow += t_tsk > 1.03 * t_cb;
                }
    }
    printf("# geometric-mean speedup over cuBLAS where cuBLAS is below 40%% of the roofline: %.2fx (%d cells)\n",
           n_gain ? exp(log_gain / n_gain) : 0.0, n_gain);
    printf("# cells where the dispatched path is more than 3%% slower than cuBLAS: %d\n", n_slow);
    fclose(csv);
    cublasDestroy(h);
    return 0;
}
