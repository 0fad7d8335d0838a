/* Standalone probe of the TSMTTSM kernels on a GPU host: correctness of every
 * registered instance against a CPU reference in double (tails, ld > minimum,
 * alpha/beta cases, NaN-poisoned C with beta = 0, A and B never read with
 * alpha = 0, C outside the m x n view untouched, two runs bitwise equal), then
 * timing against cuBLAS on the same calls (CUDA events, median of REPS) with
 * the memory roofline from a measured device-to-device copy.
 * Usage: tsmttsm_probe check|quick|bench|all [csv-file]  (exit status 1
 * when a check fails; quick is a smaller check for compute-sanitizer) */
#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "tsk_registry.h"

#define REPS 5

static const char PREC_CHAR[] = "sdcz";

static int reals(ts_prec p) { return ts_prec_is_complex(p) ? 2 : 1; }
static bool single(ts_prec p) { return p == TS_S || p == TS_C; }

static double getr(ts_prec p, const void *buf, size_t i)
{
    return single(p) ? ((const float *)buf)[i] : ((const double *)buf)[i];
}

static void setr(ts_prec p, void *buf, size_t i, double v)
{
    if (single(p))
        ((float *)buf)[i] = (float)v;
    else
        ((double *)buf)[i] = v;
}

static uint64_t rng_state = 88172645463325252ull;
static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

/* The nth instance (0: the registry's first) serving this cell. */
static const tsk_instance *find_instance(ts_prec p, char ta, char tb, int64_t w, int nth)
{
    for (size_t i = 0; i < tsk_tsmttsm_ninstances; ++i) {
        const tsk_instance *in = &tsk_tsmttsm_instances[i];
        if (in->prec == p && in->transa == ta && in->transb == tb && w >= in->min_width &&
            w <= in->max_width && nth-- == 0)
            return in;
    }
    return NULL;
}

static ts_call make_call(ts_prec p, char ta, char tb, int64_t m, int64_t n, int64_t k,
                         const double *alpha, const double *beta, double scal[8])
{
    ts_call c;
    ts_call_shape(&c, p, ta, tb, m, n, k);
    c.cls = TS_CLASS_TSMTTSM;
    c.width = std::max(m, n);
    for (int r = 0; r < 2; ++r) {
        setr(p, scal, r, alpha[r]);
        setr(p, scal + 4, r, beta[r]);
    }
    c.alpha = scal;
    c.beta = scal + 4;
    return c;
}

/* One correctness case: returns the number of failed checks. */
static int check_case(const tsk_instance *in, int m, int n, int k, int pad, int bps,
                      const double alpha[2], const double beta[2])
{
    const ts_prec p = in->prec;
    const char ta = in->transa, tb = in->transb;
    const int R = reals(p);
    const size_t es = ts_elem_size(p);
    bool alpha_zero = alpha[0] == 0 && alpha[1] == 0, beta_zero = beta[0] == 0 && beta[1] == 0;
    int64_t ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m;
    int64_t rb = tb == 'N' ? k : n, cb = tb == 'N' ? n : k;
    int64_t lda = ra + pad, ldb = rb + pad, ldc = m + pad;
    size_t na = (size_t)(lda * ca), nb = (size_t)(ldb * cb), nc = (size_t)(ldc * n);
    std::vector<char> ha(na * es), hb(nb * es), hc(nc * es), out(nc * es), out2(nc * es);
    for (size_t i = 0; i < na * R; ++i)
        setr(p, ha.data(), i, uniform());
    for (size_t i = 0; i < nb * R; ++i)
        setr(p, hb.data(), i, uniform());
    for (size_t i = 0; i < nc * R; ++i)
        setr(p, hc.data(), i, beta_zero ? NAN : uniform());

    void *da = NULL, *db = NULL, *dc;
    if (!alpha_zero) { /* alpha = 0: A and B must not be read, so none exist */
        check_cuda(cudaMalloc(&da, na * es), "malloc a");
        check_cuda(cudaMalloc(&db, nb * es), "malloc b");
        check_cuda(cudaMemcpy(da, ha.data(), na * es, cudaMemcpyHostToDevice), "copy a");
        check_cuda(cudaMemcpy(db, hb.data(), nb * es, cudaMemcpyHostToDevice), "copy b");
    }
    check_cuda(cudaMalloc(&dc, nc * es), "malloc c");
    double scal[8];
    ts_call call = make_call(p, ta, tb, m, n, k, alpha, beta, scal);
    tsk_operands ops = { da, lda, db, ldb, dc, ldc };
    tsk_params prm = { 256, bps, 0 };
    int fails = 0;
    for (int run = 0; run < 2; ++run) {
        check_cuda(cudaMemcpy(dc, hc.data(), nc * es, cudaMemcpyHostToDevice), "copy c");
        if (in->launch(&call, &ops, 0, &prm) != TSK_RAN) {
            printf("FAIL %s did not run\n", in->name);
            return 1;
        }
        check_cuda(cudaDeviceSynchronize(), in->name);
        check_cuda(cudaMemcpy(run ? out2.data() : out.data(), dc, nc * es, cudaMemcpyDeviceToHost),
                   "copy out");
    }
    if (memcmp(out.data(), out2.data(), nc * es) != 0) {
        printf("FAIL %s m=%d n=%d k=%d: two runs differ\n", in->name, m, n, k);
        ++fails;
    }

    /* Reference in double, and a bound from the sum of |products|. */
    double eps = single(p) ? 5.96e-8 : 1.11e-16, worst = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < ldc; ++i) {
            size_t ce = (size_t)(i + j * ldc);
            if (i >= m) {
                if (memcmp(&out[ce * es], &hc[ce * es], es) != 0) {
                    printf("FAIL %s: C(%ld,%ld) outside the view was written\n", in->name, (long)i, (long)j);
                    ++fails;
                }
                continue;
            }
            double sr = 0, si = 0, abs_sum = 0;
            if (!alpha_zero)
                for (int64_t l = 0; l < k; ++l) {
                    size_t ae = ta == 'N' ? (size_t)(i + l * lda) : (size_t)(l + i * lda);
                    size_t be = tb == 'N' ? (size_t)(l + j * ldb) : (size_t)(j + l * ldb);
                    double ar = getr(p, ha.data(), ae * R), ai = R == 2 ? getr(p, ha.data(), ae * R + 1) : 0;
                    double br = getr(p, hb.data(), be * R), bi = R == 2 ? getr(p, hb.data(), be * R + 1) : 0;
                    if (ta == 'C')
                        ai = -ai;
                    if (tb == 'C')
                        bi = -bi;
                    sr += ar * br - ai * bi;
                    si += ar * bi + ai * br;
                    abs_sum += (fabs(ar) + fabs(ai)) * (fabs(br) + fabs(bi));
                }
            double cr = beta_zero ? 0 : getr(p, hc.data(), ce * R);
            double ci = beta_zero || R == 1 ? 0 : getr(p, hc.data(), ce * R + 1);
            double er = alpha[0] * sr - alpha[1] * si + beta[0] * cr - beta[1] * ci;
            double ei = alpha[0] * si + alpha[1] * sr + beta[0] * ci + beta[1] * cr;
            double gr = getr(p, out.data(), ce * R), gi = R == 2 ? getr(p, out.data(), ce * R + 1) : 0;
            double bound = 4.0 * (k + 4) * eps *
                           (hypot(alpha[0], alpha[1]) * abs_sum + hypot(beta[0], beta[1]) * hypot(cr, ci)) +
                           1e-300;
            double ratio = hypot(gr - er, gi - (R == 2 ? ei : 0)) / bound;
            if (!(ratio <= 1.0)) {
                if (!(worst > 1.0))
                    printf("FAIL %s m=%d n=%d k=%d: C(%ld,%ld) = %g%+gi, expected %g%+gi\n", in->name, m,
                           n, k, (long)i, (long)j, gr, gi, er, R == 2 ? ei : 0.0);
                worst = 2;
            } else if (ratio > worst) {
                worst = ratio;
            }
        }
    fails += worst > 1.0;
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    return fails;
}

/* Every registered instance; quick: only the NN, TT and CN pairs and a
 * shorter k, for the slow compute-sanitizer runs. */
static int run_checks(bool quick)
{
    const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
    const double alpha[2] = { 0.75, -0.5 }, beta[2] = { -1.25, 0.25 };
    int fails = 0, cases = 0;
    for (size_t i = 0; i < tsk_tsmttsm_ninstances; ++i) {
        const tsk_instance *in = &tsk_tsmttsm_instances[i];
        char pair[3] = { in->transa, in->transb, 0 };
        if (quick && strcmp(pair, "NN") != 0 && strcmp(pair, "TT") != 0 && strcmp(pair, "CN") != 0)
            continue;
        int w = in->max_width, lo = in->min_width;
        int long_k = w <= 16 && !quick ? 100003 : 20011;
        /* full width, m != n, padded ld, alpha and beta, default grid */
        fails += check_case(in, w, lo, 7919, 3, 0, alpha, beta);
        /* a tail width, beta = 0 over NaN, one block per SM: many chunks per block */
        fails += check_case(in, lo, w, long_k, 0, 1, one, zero);
        cases += 2;
    }
    static const ts_prec precs[] = { TS_S, TS_D, TS_C, TS_Z };
    for (ts_prec p : precs) {
        /* alpha = 0: C = beta C without touching A, B (which are NULL) */
        fails += check_case(find_instance(p, 'T', 'N', 5, 0), 5, 3, 1000, 1, 0, zero, beta);
        fails += check_case(find_instance(p, 'N', 'T', 5, 0), 5, 3, 1000, 1, 0, zero, zero);
        /* k smaller than one chunk */
        fails += check_case(find_instance(p, 'T', 'N', 7, 0), 7, 3, 5, 2, 0, alpha, beta);
        cases += 3;
    }
    printf("correctness: %zu instances, %d cases, %d failures\n", tsk_tsmttsm_ninstances, cases, fails);
    return fails;
}

/* Fills device memory with values in [-1, 1) from a hash of the index. */
__global__ void fill_kernel(float *f, double *d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 32;
        double v = (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (f)
            f[i] = (float)v;
        else
            d[i] = v;
    }
}

static cublasStatus_t cublas_gemm(cublasHandle_t h, const ts_call *c, const tsk_operands *o)
{
    cublasOperation_t op[3] = { CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C };
    cublasOperation_t oa = op[c->transa == 'N' ? 0 : c->transa == 'T' ? 1 : 2];
    cublasOperation_t ob = op[c->transb == 'N' ? 0 : c->transb == 'T' ? 1 : 2];
    int m = (int)c->m, n = (int)c->n, k = (int)c->k, lda = (int)o->lda, ldb = (int)o->ldb, ldc = (int)o->ldc;
    switch (c->prec) {
    case TS_S:
        return cublasSgemm(h, oa, ob, m, n, k, (const float *)c->alpha, (const float *)o->a, lda,
                           (const float *)o->b, ldb, (const float *)c->beta, (float *)o->c, ldc);
    case TS_D:
        return cublasDgemm(h, oa, ob, m, n, k, (const double *)c->alpha, (const double *)o->a, lda,
                           (const double *)o->b, ldb, (const double *)c->beta, (double *)o->c, ldc);
    case TS_C:
        return cublasCgemm(h, oa, ob, m, n, k, (const cuComplex *)c->alpha, (const cuComplex *)o->a, lda,
                           (const cuComplex *)o->b, ldb, (const cuComplex *)c->beta, (cuComplex *)o->c, ldc);
    default:
        return cublasZgemm(h, oa, ob, m, n, k, (const cuDoubleComplex *)c->alpha,
                           (const cuDoubleComplex *)o->a, lda, (const cuDoubleComplex *)o->b, ldb,
                           (const cuDoubleComplex *)c->beta, (cuDoubleComplex *)o->c, ldc);
    }
}

/* Median time in ms of REPS runs of ours (which = 0, with `bps` blocks per
 * SM, 0 = as many as fit) or cuBLAS (which = 1). */
static double time_call(int which, const tsk_instance *in, cublasHandle_t h, const ts_call *c,
                        const tsk_operands *o, int bps)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    tsk_params prm = { 256, bps, 0 };
    std::vector<float> t;
    for (int r = 0; r <= REPS; ++r) {
        cudaEventRecord(e0, 0);
        bool ok = which == 0 ? in->launch(c, o, 0, &prm) == TSK_RAN : cublas_gemm(h, c, o) == CUBLAS_STATUS_SUCCESS;
        cudaEventRecord(e1, 0);
        check_cuda(cudaEventSynchronize(e1), "timed run");
        if (!ok) {
            fprintf(stderr, "timed run of %s failed\n", which == 0 ? in->name : "cublas");
            exit(2);
        }
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r > 0) /* the first run warms up */
            t.push_back(ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static void run_timings(FILE *csv)
{
    cudaDeviceProp prop;
    check_cuda(cudaGetDeviceProperties(&prop, 0), "properties");
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    /* Operands of the same size for every cell: 2^29 elements of 8 bytes. */
    const size_t bytes = (size_t)1 << 32;
    void *a, *b, *c;
    check_cuda(cudaMalloc(&a, bytes), "malloc A");
    check_cuda(cudaMalloc(&b, bytes), "malloc B");
    check_cuda(cudaMalloc(&c, 64 * 64 * 16), "malloc C");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemcpy(b, a, bytes / 2, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e0, 0);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    float copy_ms;
    cudaEventElapsedTime(&copy_ms, e0, e1);
    double bw = 2.0 * bytes / (copy_ms * 1e-3);
    printf("\n%s, %d SMs, %d MHz; device-to-device copy %.0f GB/s (read + write)\n", prop.name,
           prop.multiProcessorCount, clock_khz / 1000, bw * 1e-9);
    if (csv)
        fprintf(csv, "prec,layout,width,k,instance,ours_ms,cublas_ms,speedup,ours_roof_pct,cublas_roof_pct,"
                     "ours_peak_pct,alt_instance,alt_ms\n");
    printf("%-4s %-6s %5s %10s %9s %9s %7s %7s %7s %7s %9s\n", "prec", "layout", "width", "k", "ours_ms",
           "cublas_ms", "speedup", "roof%", "cub_rf%", "peak%", "alt_ms");

    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        exit(2);
    }
    static const ts_prec precs[] = { TS_S, TS_D, TS_C, TS_Z };
    static const int widths[] = { 1, 2, 4, 8, 16, 32, 64 };
    static const char *pairs[] = { "TN", "NT", "NN", "TT", "CN" };
    const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
    for (ts_prec p : precs) {
        size_t es = ts_elem_size(p);
        size_t reals_n = bytes / es * reals(p);
        fill_kernel<<<1024, 256>>>(single(p) ? (float *)a : NULL, single(p) ? NULL : (double *)a, reals_n);
        fill_kernel<<<1024, 256>>>(single(p) ? (float *)b : NULL, single(p) ? NULL : (double *)b, reals_n);
        check_cuda(cudaDeviceSynchronize(), "fill");
        /* FMA lanes per SM: 128 FP32, 64 FP64; a complex FMA is 4 real ones */
        double peak = 2.0 * prop.multiProcessorCount * (single(p) ? 128 : 64) * clock_khz * 1e3;
        int npairs = ts_prec_is_complex(p) ? 5 : 4;
        for (int w : widths)
            for (int q = 0; q < npairs; ++q) {
                char ta = pairs[q][0], tb = pairs[q][1];
                int64_t k = ((int64_t)1 << (p == TS_Z ? 28 : 29)) / w;
                double scal[8];
                ts_call call = make_call(p, ta, tb, w, w, k, one, zero, scal);
                tsk_operands o = { a, ta == 'N' ? w : k, b, tb == 'N' ? k : w, c, w };
                const tsk_instance *in = find_instance(p, ta, tb, w, 0), *alt = find_instance(p, ta, tb, w, 1);
                double ours = time_call(0, in, h, &call, &o, 0), cub = time_call(1, in, h, &call, &o, 0);
                double alt_ms = time_call(0, alt, h, &call, &o, 0);
                double roof_ms = (double)(2 * w * k + w * w) * es / bw * 1e3;
                double flops = 2.0 * w * w * k * (ts_prec_is_complex(p) ? 4 : 1);
                double peak_pct = 100.0 * flops / (ours * 1e-3) / peak;
                printf("%-4c %-6s %5d %10ld %9.3f %9.3f %7.2f %7.1f %7.1f %7.1f %9.3f\n", PREC_CHAR[p], pairs[q],
                       w, (long)k, ours, cub, cub / ours, 100 * roof_ms / ours, 100 * roof_ms / cub, peak_pct,
                       alt_ms);
                if (csv)
                    fprintf(csv, "%c,%s,%d,%ld,%s,%.4f,%.4f,%.3f,%.1f,%.1f,%.1f,%s,%.4f\n", PREC_CHAR[p],
                            pairs[q], w, (long)k, in->name, ours, cub, cub / ours, 100 * roof_ms / ours,
                            100 * roof_ms / cub, peak_pct, alt->name, alt_ms);
                fflush(stdout);
            }
        /* Blocks per SM, for the tuning table: ms of the TN layout. */
        printf("blocks/SM sweep, %c TN, first instance (ms for 1, 2, 3, 4 blocks per SM):\n", PREC_CHAR[p]);
        for (int w : widths) {
            int64_t k = ((int64_t)1 << (p == TS_Z ? 28 : 29)) / w;
            double scal[8];
            ts_call call = make_call(p, 'T', 'N', w, w, k, one, zero, scal);
            tsk_operands o = { a, k, b, k, c, w };
            const tsk_instance *in = find_instance(p, 'T', 'N', w, 0);
            printf("  w%-3d", w);
            for (int bps = 1; bps <= 4; ++bps)
                printf(" %8.3f", time_call(0, in, h, &call, &o, bps));
            printf("\n");
        }
    }
    cublasDestroy(h);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    int fails = 0;
    if (strcmp(mode, "bench") != 0)
        fails = run_checks(strcmp(mode, "quick") == 0);
    if (strcmp(mode, "all") == 0 || strcmp(mode, "bench") == 0) {
        FILE *csv = argc > 2 ? fopen(argv[2], "w") : NULL;
        run_timings(csv);
        if (csv)
            fclose(csv);
    }
    return fails ? 1 : 0;
}
