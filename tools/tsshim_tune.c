/* tsshim-tune: for every (class, precision, transposes, width) cell, times
 * each compiled instance that serves it, over a few parameter variants, and
 * cuBLAS, on a representative device-resident shape of the present GPU;
 * writes the tuning table kernels/tuning_sm<NN>.c that sends each cell
 * to the fastest.  A kernel must beat cuBLAS by TUNE_MARGIN on every
 * representative shape of the cell to be chosen: cuBLAS's own choice of
 * algorithm changes with the long extents (TSM2 at m = k = 11585 and 20480
 * differ widely), timing noise must not dispatch a slower cell, and one
 * table serves every GPU of the architecture: cells move between hosts, and
 * a narrow win on the tuning GPU lost to cuBLAS on another, hence the wide
 * margin (docs/performance.md, 'Measurements behind the code's choices').
 *
 * Usage: tsshim-tune [OUTPUT.c]   (default: stdout; the log goes to stderr) */
#include <math.h>
#include "bench_common.h"

#define TUNE_MARGIN 0.94
#define TUNE_BYTES ((int64_t)1 << 30) /* long operand size: far beyond L2 */

typedef struct {
    const ts_call *call;
    const tsk_operands *ops;
    const tsk_instance *inst;
    const tsk_params *params;
    cublasHandle_t h;
} tune_ctx;

static int run_instance(void *p)
{
    tune_ctx *t = p;
    return t->inst->launch(t->call, t->ops, 0, t->params) != TSK_RAN;
}

static int run_cublas(void *p)
{
    tune_ctx *t = p;
    return bc_cublas(t->h, t->call, t->ops) != CUBLAS_STATUS_SUCCESS;
}

/* Parameter variants per class (each class documents what it reads). */
static const tsk_params tsm2_variants[] = { { 128, 0, 0 }, { 256, 0, 0 }, { 512, 0, 0 }, { 256, 4, 0 }, { 128, 16, 0 },
                                            { 256, 16, 0 } };
static const tsk_params ism2_variants[] = { { 128, 4, 0 }, { 128, 8, 0 }, { 128, 16, 0 },
                                            { 256, 2, 0 }, { 256, 4, 0 }, { 256, 8, 0 } };
static const tsk_params tsmttsm_variants[] = { { 0, 0, 0 }, { 0, 1, 0 }, { 0, 2, 0 }, { 0, 4, 0 }, { 128, 0, 0 } };

static void variants_of(ts_class cls, const tsk_params **v, size_t *n)
{
    if (cls == TS_CLASS_TSM2) {
        *v = tsm2_variants;
        *n = sizeof tsm2_variants / sizeof tsm2_variants[0];
    } else if (cls == TS_CLASS_ISM2) {
        *v = ism2_variants;
        *n = sizeof ism2_variants / sizeof ism2_variants[0];
    } else {
        *v = tsmttsm_variants;
        *n = sizeof tsmttsm_variants / sizeof tsmttsm_variants[0];
    }
}

/* Representative shape `which` of a cell (0: its long operand is
 * TUNE_BYTES; 1: TSM2 only, m = k = TUNE_TSM2_LONG, the benchmark's). */
#define TUNE_TSM2_LONG 20480
static int tune_nshapes(ts_class cls) { return cls == TS_CLASS_TSM2 ? 2 : 1; }

static void tune_shape(ts_call *c, ts_class cls, ts_prec p, char ta, char tb, int w, int which)
{
    int64_t e = (int64_t)ts_elem_size(p);
    if (cls == TS_CLASS_TSM2) {
        /* A multiple of 64: a leading dimension that breaks 16-byte rows
         * sends the call to cuBLAS at run time whatever the table says. */
        int64_t l = which ? TUNE_TSM2_LONG : (int64_t)sqrt((double)(TUNE_BYTES / e)) / 64 * 64;
        bc_call(c, cls, p, ta, tb, l, w, l);
    } else if (cls == TS_CLASS_ISM2) {
        bc_call(c, cls, p, ta, tb, TUNE_BYTES / (e * w), w, w);
    } else {
        bc_call(c, cls, p, ta, tb, w, w, TUNE_BYTES / (e * w));
    }
}

static const char *const class_enum[TS_NCLASS] = { "TS_CLASS_NONE", "TS_CLASS_TSM2", "TS_CLASS_ISM2",
                                                   "TS_CLASS_TSMTTSM", "TS_CLASS_RANKK", "TS_CLASS_REGULAR" };
static const char *const prec_enum[TS_NPREC] = { "TS_S", "TS_D", "TS_C", "TS_Z" };

int main(int argc, char **argv)
{
    const ts_class classes[] = { TS_CLASS_TSM2, TS_CLASS_ISM2, TS_CLASS_TSMTTSM };
    const char trans[2] = { 'N', 'T' };
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "tsshim-tune: no CUDA device\n");
        return 1;
    }
    FILE *out = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (out == NULL) {
        perror(argv[1]);
        return 1;
    }
    int sm = bc_sm();
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);

    /* Largest operand of any cell: TSM2 z at m = k = TUNE_TSM2_LONG; ISM2's
     * C and TSMTTSM's B are TUNE_BYTES. */
    size_t big = (size_t)TUNE_TSM2_LONG * TUNE_TSM2_LONG * 16 + ((size_t)1 << 20);
    void *a, *b, *c;
    cublasHandle_t h;
    if (cudaMalloc(&a, big) != cudaSuccess || cudaMalloc(&b, big) != cudaSuccess ||
        cudaMalloc(&c, big) != cudaSuccess || cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "tsshim-tune: cannot allocate %zu bytes x 3\n", big);
        return 1;
    }
    /* 0x3f bytes are finite normal numbers in every precision. */
    cudaMemset(a, 0x3f, big);
    cudaMemset(b, 0x3f, big);
    cudaMemset(c, 0, big);

    fprintf(out, "/* Tuning table for sm_%d, written by tools/tsshim-tune on %s.\n"
                 " * Each row: the instance (or NULL: cuBLAS) and its parameters for one\n"
                 " * (class, precision, transposes, width) cell.  Regenerate, do not edit. */\n"
                 "#include \"tsk_registry.h\"\n\nconst tsk_tuning_row tsk_tuning_sm%d[] = {\n",
            sm, prop.name, sm);
    fprintf(stderr, "%-8s %s %c%c %3s %10s %7s  %s\n", "class", "p", 't', 't', "w", "cublas_us", "speedup",
            "choice (speedup: worst over the shapes; each instance's, at its best variant, on the lines before)");
    for (size_t ci = 0; ci < 3; ci++)
        for (int p = 0; p < TS_NPREC; p++)
            for (int x = 0; x < 4; x++)
                for (int wi = 0; wi < BC_NWIDTHS; wi++) {
                    ts_call calls[2];
                    tsk_operands ops[2];
                    double t_cb[2];
                    int w = bc_widths[wi], nsh = tune_nshapes(classes[ci]);
                    tune_ctx t = { NULL, NULL, NULL, NULL, h };
                    for (int sh = 0; sh < nsh; sh++) {
                        tune_shape(&calls[sh], classes[ci], (ts_prec)p, trans[x / 2], trans[x % 2], w, sh);
                        bc_operands(&ops[sh], &calls[sh], a, b, c);
                        t.call = &calls[sh];
                        t.ops = &ops[sh];
                        t_cb[sh] = bc_time(run_cublas, &t, 1, 5);
                    }
                    /* best: the smallest worst ratio to cuBLAS over the shapes */
                    double best = INFINITY;
                    const tsk_instance *best_inst = NULL;
                    tsk_params best_params = { 0, 0, 0 };
                    const tsk_params *var;
                    size_t nvar;
                    variants_of(classes[ci], &var, &nvar);
                    for (size_t i = 0; i < tsk_instance_count(); i++) {
                        t.inst = tsk_instance_at(i);
                        if (!tsk_instance_serves(t.inst, &calls[0]))
                            continue;
                        double inst_best = INFINITY;
                        for (size_t v = 0; v < nvar; v++) {
                            double worst = 0;
                            t.params = &var[v];
                            for (int sh = 0; sh < nsh && worst < INFINITY; sh++) {
                                t.call = &calls[sh];
                                t.ops = &ops[sh];
                                double s = bc_time(run_instance, &t, 1, 5);
                                cudaGetLastError();
                                double r = s <= 0 ? INFINITY : t_cb[sh] > 0 ? s / t_cb[sh] : 0;
                                worst = r > worst ? r : worst;
                            }
                            inst_best = worst < inst_best ? worst : inst_best;
                            if (worst < best) {
                                best = worst;
                                best_inst = t.inst;
                                best_params = var[v];
                            }
                        }
                        fprintf(stderr, "    %-24s %7.2f\n", t.inst->name, inst_best > 0 ? 1.0 / inst_best : 0.0);
                    }
                    const ts_call *call = &calls[0];
                    int use = best_inst && best < TUNE_MARGIN;
                    fprintf(stderr, "%-8s %c %c%c %3d %10.1f %7.2f  %s\n", bc_class_name[classes[ci]],
                            bc_prec_char[p], call->transa, call->transb, w, t_cb[0] * 1e6,
                            best_inst && best > 0 ? 1.0 / best : 0.0, use ? best_inst->name : "cublas");
                    fprintf(out, "    { %d, %s, %s, '%c', '%c', %d, ", sm, class_enum[classes[ci]], prec_enum[p],
                            call->transa, call->transb, w);
                    if (use)
                        fprintf(out, "\"%s\", { %d, %d, %d } },", best_inst->name, best_params.threads,
                                best_params.blocks_per_sm, best_params.rows_per_thread);
                    else
                        fprintf(out, "NULL, { 0, 0, 0 } },");
                    fprintf(out, " /* worst speedup over cuBLAS %.2f */\n", best_inst && best > 0 ? 1.0 / best : 0.0);
                }
    fprintf(out, "};\nconst size_t tsk_tuning_sm%d_nrows = sizeof tsk_tuning_sm%d / sizeof tsk_tuning_sm%d[0];\n",
            sm, sm, sm);
    if (out != stdout)
        fclose(out);
    cublasDestroy(h);
    return 0;
}
