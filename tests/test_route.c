/* Routing decisions: modes, disabled routines, device operands, the cost
 * model, its corrections from measured calls, and the GPU's start. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "route/classify.h"
#include "util/configuration.h"
#include "common/cost_model.h"
#include "entry/gemm_entry.h"
#include "learn/learned_rates.h"
#include "learn/program_memory.h"
#include "route/route.h"
#include "backend/gpu_backend.h"
#include "common/mpi_launcher.h"
#include "tap.h"
#include "route/validate.h"
#include "dispatch/level3_gpu.h"

static const char *no_env(const char *name)
{
    (void)name;
    return NULL;
}

/* The decision with the facts the dispatcher would gather: residency as
 * the descriptor says, one device of its own, started or not. */
static int decide(ts_call *c, const ts_config *cfg, const ts_profile *prof, int gpu_ready)
{
    const ts_route_facts f = { .on_device = ts_call_on_device(c),
                               .gpu_ready = gpu_ready,
                               .devices = 1,
                               .sharers = ts_launcher_sharers(cfg->device, 1) };
    return ts_route_place(c, cfg, &f) ? ts_route_model(c, cfg, prof, &f) : 0;
}

/* Both sides measured exactly as predicted, twice: the model's own verdict
 * decides, with nothing left to explore. */
static void settle(const ts_call *c)
{
    for (int i = 0; i < 2; i++) {
        ts_learned_record(TS_SIDE_CPU, c, 1.0, 1.0);
        ts_learned_record(TS_SIDE_GPU, c, 1.0, 1.0);
    }
}

static ts_call call(ts_prec p, int64_t m, int64_t n, int64_t k, const void *alpha, const void *beta)
{
    ts_call c;
    ts_call_shape(&c, p, 'N', 'N', m, n, k);
    c.alpha = alpha;
    c.beta = beta;
    ts_scalar_flags(&c);
    ts_classify(&c, 2048, 64);
    settle(&c);
    return c;
}

/* A fresh shape (nothing learned): the ISM2 D k=n=16 call of 2^22 rows,
 * which the default profile keeps on the CPU by a few percent. */
static void check_learning(const ts_config *auto_cfg, const ts_profile *prof)
{
    static const double one = 1.0, zero = 0.0;
    ts_learned_reset();
    ts_call fresh;
    ts_call_shape(&fresh, TS_D, 'N', 'N', 1 << 22, 16, 16);
    fresh.alpha = &one;
    fresh.beta = &zero;
    ts_scalar_flags(&fresh);
    ts_classify(&fresh, 2048, 64);
    ts_call x = fresh;
    decide(&x, auto_cfg, prof, 1);
    int cpu_verdict = x.predicted_gpu_s * auto_cfg->margin >= x.predicted_cpu_s;
    int explores = cpu_verdict && x.predicted_gpu_s < 1.25 * x.predicted_cpu_s;
    tap_ok(cpu_verdict && x.decision == TS_RUN_CPU && !strcmp(x.reason, "cost model: cpu faster"),
           "auto: the first such call runs where the model says, nothing explored yet (%s)", x.reason);
    /* One call measured on the CPU as predicted: such calls recur. */
    ts_learned_record(TS_SIDE_CPU, &fresh, x.model_cpu_s, x.model_cpu_s);
    x = fresh;
    decide(&x, auto_cfg, prof, 1);
    tap_ok(!explores || (x.decision == TS_RUN_GPU && !strcmp(x.reason, "cost model: exploring the gpu")),
           "auto: once such a call ran, a side never measured is tried when it is predicted at most 1.25x slower "
           "(%s)", x.reason);

    /* The GPU measured at half its prediction: the same call now goes there. */
    for (int i = 0; i < 2; i++)
        ts_learned_record(TS_SIDE_GPU, &fresh, x.model_gpu_s, 0.5 * x.model_gpu_s);
    ts_call y = fresh;
    decide(&y, auto_cfg, prof, 1);
    tap_ok(y.decision == TS_RUN_GPU && !strcmp(y.reason, "cost model: gpu faster") &&
               y.predicted_gpu_s < 0.51 * y.model_gpu_s,
           "auto: a GPU measured faster than the profile wins the call (predicted %.3gs, profile %.3gs)",
           y.predicted_gpu_s, y.model_gpu_s);

    /* A busy GPU: four times slower than predicted, a few calls later the
     * model keeps such calls on the CPU again. */
    for (int i = 0; i < 6; i++)
        ts_learned_record(TS_SIDE_GPU, &fresh, x.model_gpu_s, 4.0 * x.model_gpu_s);
    ts_call z = fresh;
    decide(&z, auto_cfg, prof, 1);
    tap_ok(z.decision == TS_RUN_CPU && !strcmp(z.reason, "cost model: cpu faster"),
           "auto: a GPU measured slower than the profile loses the call within 6 calls (%s, gpu %.3gs)", z.reason,
           z.predicted_gpu_s);
    tap_ok(ts_learned_samples(TS_SIDE_GPU, &fresh) == 8 && ts_learned_samples(TS_SIDE_CPU, &fresh) == 1,
           "auto: the samples count per side");
}

/* The plugin's level3 op: counts the calls it gets. */
static int level3_calls;
static int fake_level3(ts_call *c, const ts_config *cfg, char *why, size_t why_len)
{
    (void)c, (void)cfg, (void)why, (void)why_len;
    level3_calls++;
    return 0;
}

/* On the GPU side (device operands), SYMM, HEMM, TRMM, SYR2K and HER2K go to
 * the plugin's level3 op as they are; one that only scales a host C (alpha
 * = 0) is computed on the host. */
static void check_level3_gpu_side(void)
{
    static const double one[2] = { 1, 0 }, zero[2] = { 0, 0 }, half[2] = { 0.5, 0 };
    static const ts_routine routines[] = { TS_R_dsymm_, TS_R_zhemm_, TS_R_cblas_dtrmm, TS_R_dsyr2k_64_,
                                           TS_R_scipy_cblas_zher2k };
    ts_gpu_ops g = { .level3 = fake_level3 };
    ts_config cfg;
    ts_config_load(&cfg, no_env, NULL);
    double cmat[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    char why[128] = "";
    int all = 1;
    for (size_t r = 0; r < sizeof routines / sizeof routines[0]; r++) {
        ts_call c;
        ts_call_init(&c, routines[r], 'N', 'N', 2, 2, 2, one, NULL, 2, NULL, 2, zero, cmat, 2);
        c.side = 'L', c.uplo = 'U', c.diag = 'N';
        c.res_a = TS_MEM_DEVICE;
        ts_scalar_flags(&c);
        level3_calls = 0;
        all &= ts_level3_gpu(&g, &c, &cfg, why, sizeof why) == 0 && level3_calls == 1;
    }
    tap_ok(all, "SYMM, HEMM, TRMM, SYR2K, HER2K on device memory: the plugin's level3 op runs them");
    ts_call c;
    ts_call_init(&c, TS_R_dsymm_, 'N', 'N', 2, 2, 2, zero, NULL, 2, NULL, 2, half, cmat, 2);
    c.side = 'L', c.uplo = 'U';
    c.res_a = TS_MEM_DEVICE;
    ts_scalar_flags(&c);
    level3_calls = 0;
    int rc = ts_level3_gpu(&g, &c, &cfg, why, sizeof why);
    tap_ok(rc == 0 && level3_calls == 0 && cmat[0] == 0.5 && cmat[3] == 2,
           "dsymm_ with alpha = 0, A on the device, C on the host: C = beta C on the host");
}

/* SYMM, HEMM, TRMM, SYR2K and HER2K are routed as SYRK and TRSM are: a
 * large call on host data goes where the mode says, in auto mode where the
 * cost model (which prices their descriptors) says; one on device memory
 * goes to the GPU side; the gate's bound is TSSHIM_MIN_FLOPS in auto mode;
 * the flops of each kind. */
static void check_level3_routing(const ts_profile *prof)
{
    static const double one[2] = { 1, 0 }, zero[2] = { 0, 0 }; /* D and Z routines only */
    static const ts_mode modes[] = { TS_MODE_AUTO, TS_MODE_GPU, TS_MODE_CPU };
    static const ts_routine routines[] = { TS_R_dsymm_, TS_R_zhemm_, TS_R_cblas_dtrmm, TS_R_dsyr2k_64_,
                                           TS_R_scipy_cblas_zher2k };
    int host_ok = 1, device_ok = 1, gate_ok = 1, small_ok = 1;
    ts_learned_reset();
    for (size_t r = 0; r < sizeof routines / sizeof routines[0]; r++)
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            ts_config cfg;
            ts_config_load(&cfg, no_env, NULL);
            cfg.mode = modes[i];
            ts_call c;
            ts_call_init(&c, routines[r], 'N', 'N', 4096, 4096, 4096, one, NULL, 4096, NULL, 4096, zero, NULL, 4096);
            c.side = 'L', c.uplo = 'U', c.diag = 'N';
            if (ts_routine_args(routines[r]) >= TS_ARGS_SYR2K)
                c.transb = 'T';
            ts_scalar_flags(&c);
            ts_classify(&c, 2048, 64);
            ts_call tiny = c;
            tiny.m = tiny.n = tiny.k = 8;
            ts_classify(&tiny, 2048, 64);
            decide(&c, &cfg, prof, 1);
            switch (modes[i]) {
            case TS_MODE_CPU:
                host_ok &= c.decision == TS_RUN_CPU && !strcmp(c.reason, "mode cpu");
                gate_ok &= ts_route_cpu_below(&cfg, routines[r]) == INFINITY;
                break;
            case TS_MODE_GPU:
                host_ok &= c.decision == TS_RUN_GPU && !strcmp(c.reason, "mode gpu");
                gate_ok &= ts_route_cpu_below(&cfg, routines[r]) == 0.0;
                break;
            default:
                /* Square 4096 calls: the GPU wins by far, as for GEMM. */
                host_ok &= c.decision == TS_RUN_GPU && !strcmp(c.reason, "cost model: gpu faster") &&
                           c.model_cpu_s > 0 && c.model_gpu_s > 0 && c.model_gpu_s < c.model_cpu_s;
                decide(&tiny, &cfg, prof, 1);
                small_ok &= tiny.decision == TS_RUN_CPU && !strcmp(tiny.reason, "below TSSHIM_MIN_FLOPS");
                gate_ok &= ts_route_cpu_below(&cfg, routines[r]) == cfg.min_flops;
                break;
            }
            c.res_a = TS_MEM_DEVICE;
            decide(&c, &cfg, prof, 1);
            device_ok &= c.decision == TS_RUN_GPU && !strcmp(c.reason, "device operands");
        }
    tap_ok(host_ok, "SYMM, HEMM, TRMM, SYR2K, HER2K 4096 on host data: the CPU in cpu mode, the GPU in gpu mode and, "
                    "priced by the cost model, in auto mode");
    tap_ok(small_ok, "... 8x8 calls stay on the CPU in auto mode: below TSSHIM_MIN_FLOPS");
    tap_ok(device_ok, "... on device memory they go to the GPU in every mode");
    tap_ok(gate_ok, "... the forwarding gate's bound: TSSHIM_MIN_FLOPS in auto mode, 0 in gpu mode, none in cpu mode");
    tap_ok(ts_routine_flops(TS_R_dsymm_, 2, 3, 2) == 24.0 && ts_routine_flops(TS_R_zhemm_, 2, 3, 2) == 96.0 &&
               ts_routine_flops(TS_R_dtrmm_, 2, 3, 2) == 12.0 && ts_routine_flops(TS_R_dsyr2k_, 3, 3, 2) == 36.0 &&
               ts_routine_flops(TS_R_cher2k_, 3, 3, 2) == 144.0,
           "flops: SYMM and HEMM 2mnk (k the side's order), TRMM m n k, SYR2K and HER2K 2 n^2 k (x4 complex)");

    /* Their host operands make one round trip of pageable copies (8.5 GB/s
     * on the H200), not the pipeline's: a 4M x 16 right-side TRSM or TRMM on
     * host data, 114-130 ms forced to the GPU against 33-42 ms in OpenBLAS
     * (issue 43), stays on the CPU; from pinned memory it goes to the GPU. */
    static const ts_routine tall[] = { TS_R_dtrsm_, TS_R_dtrmm_ };
    int tall_ok = 1;
    for (size_t r = 0; r < sizeof tall / sizeof tall[0]; r++) {
        ts_config cfg;
        ts_config_load(&cfg, no_env, NULL);
        ts_call c;
        ts_call_init(&c, tall[r], 'N', 'N', 1 << 22, 16, 16, one, NULL, 16, NULL, 1 << 22, zero, NULL, 1 << 22);
        c.side = 'R', c.uplo = 'U', c.diag = 'N';
        ts_scalar_flags(&c);
        ts_classify(&c, 2048, 64);
        settle(&c);
        ts_call pinned = c;
        decide(&c, &cfg, prof, 1);
        tall_ok &= c.decision == TS_RUN_CPU && !strcmp(c.reason, "cost model: cpu faster");
        tap_diag("%s: cpu %.3gs, gpu %.3gs", ts_routine_symbol(tall[r]), c.predicted_cpu_s, c.predicted_gpu_s);
        pinned.res_a = pinned.res_b = pinned.res_c = TS_MEM_PINNED;
        decide(&pinned, &cfg, prof, 1);
        tall_ok &= pinned.decision == TS_RUN_GPU;
    }
    tap_ok(tall_ok, "a 4M x 16 right-side TRSM and TRMM: the CPU on pageable data (one round trip), the GPU on pinned");
}

/* The start ledger (nothing else in this program adds to it): a
 * background start is earned by an eighth of the start's price in forgone
 * savings, a start on the call by all of it; a call that saves more than
 * the whole start runs on the GPU, waiting for it. */
static void check_start_ledger(const ts_config *auto_cfg, const ts_profile *prof)
{
    static const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
    const double price = ts_program_start_price(prof);
    ts_config fg = *auto_cfg;
    fg.background_start = 0;
    ts_route_facts idle = { .devices = 1, .sharers = 1 }, starting = idle;
    starting.gpu_starting = 1;
    ts_call small = call(TS_D, 4096, 16, 4096, one, zero), big = small, s2, s3, fg_call, b1, b2;
    small.predicted_gpu_s = 0.01;
    small.predicted_cpu_s = 0.01 + price / 12;
    big.predicted_gpu_s = 0.01;
    big.predicted_cpu_s = 0.02 + price;
    s2 = s3 = fg_call = small;
    b1 = b2 = big;
    ts_start first = ts_route_start(&small, auto_cfg, prof, &idle);
    ts_start second = ts_route_start(&s2, auto_cfg, prof, &idle);
    ts_start foreground = ts_route_start(&fg_call, &fg, prof, &idle);
    ts_start during = ts_route_start(&s3, auto_cfg, prof, &starting);
    ts_start waits = ts_route_start(&b1, auto_cfg, prof, &starting);
    ts_start on_call = ts_route_start(&b2, auto_cfg, prof, &idle);
    tap_ok(first == TS_START_NONE && second == TS_START_BACKGROUND && foreground == TS_START_NONE &&
               during == TS_START_NONE && s3.decision == TS_RUN_CPU && !strcmp(s3.reason, "gpu starting") &&
               waits == TS_START_NONE && b1.decision == TS_RUN_GPU &&
               !strcmp(b1.reason, "cost model: gpu faster by more than its start") && on_call == TS_START_ON_CALL &&
               b2.decision == TS_RUN_GPU,
           "start ledger: a background start at an eighth of the price forgone, a start on the call at all of it; "
           "a call saving more than the whole start waits for it on the GPU");
}

int main(void)
{
    static const double one[2] = { 1, 0 }, zero[2] = { 0, 0 }, two[2] = { 2, 0 };
    ts_config cfg;
    ts_config_load(&cfg, no_env, NULL);
    const ts_profile *prof = &ts_profile_defaults;

    ts_call tiny = call(TS_D, 8, 8, 8, one, zero);
    decide(&tiny, &cfg, prof, 1);
    tap_ok(tiny.decision == TS_RUN_CPU && !strcmp(tiny.reason, "below TSSHIM_MIN_FLOPS"), "auto: 8x8x8 stays on the CPU");

    /* TSMTTSM D 8x8, k = 2^24 from pinned memory: the CPU needs ~250 ms, the link ~20 ms. */
    ts_call gram = call(TS_D, 8, 8, 1 << 24, one, zero);
    gram.res_a = gram.res_b = gram.res_c = TS_MEM_PINNED;
    decide(&gram, &cfg, prof, 1);
    tap_ok(gram.decision == TS_RUN_GPU, "auto: pinned TSMTTSM D 8x8x2^24 goes to the GPU (cpu %.3gs, gpu %.3gs)",
           gram.predicted_cpu_s, gram.predicted_gpu_s);

    /* TSM2 D n=2: the GPU cannot beat the CPU reading A over PCIe. */
    ts_call tsm2 = call(TS_D, 20480, 2, 20480, one, zero);
    decide(&tsm2, &cfg, prof, 1);
    tap_ok(tsm2.decision == TS_RUN_CPU && tsm2.cls == TS_CLASS_TSM2, "auto: TSM2 D n=2 on host data stays on the CPU");

    /* Decisions the H100 end-to-end benchmark measured
     * (bench/results/e2e-H100-80GB-HBM3-2026-11-21.csv, GPU against
     * OpenBLAS): width 64 on host data runs faster on the GPU (TSM2 93 against
     * 118 ms, ISM2 88 against 148 ms); ISM2 D k=n=16 does not on pageable
     * data (93 against 90 ms: both directions go through the packing
     * threads) but does from pinned memory (46 against 100 ms: the two DMA
     * directions overlap). */
    ts_call wide = call(TS_D, 20480, 64, 20480, one, zero);
    decide(&wide, &cfg, prof, 1);
    tap_ok(wide.decision == TS_RUN_GPU, "auto: TSM2 D n=64 on host data goes to the GPU (cpu %.3gs, gpu %.3gs)",
           wide.predicted_cpu_s, wide.predicted_gpu_s);
    wide = call(TS_D, 1 << 22, 64, 64, one, zero);
    decide(&wide, &cfg, prof, 1);
    tap_ok(wide.decision == TS_RUN_GPU && wide.cls == TS_CLASS_ISM2,
           "auto: ISM2 D k=n=64 on host data goes to the GPU (cpu %.3gs, gpu %.3gs)", wide.predicted_cpu_s,
           wide.predicted_gpu_s);
    /* Sixteen ranks of an MPI job on this node share one GPU: each is
     * predicted its share of it, and the call stays on the rank's CPU. */
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "16", 1);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    wide = call(TS_D, 1 << 22, 64, 64, one, zero);
    decide(&wide, &cfg, prof, 1);
    tap_ok(wide.decision == TS_RUN_CPU,
           "auto: ISM2 D k=n=64 with 16 local ranks on one GPU stays on the CPU (cpu %.3gs, gpu %.3gs)",
           wide.predicted_cpu_s, wide.predicted_gpu_s);
    unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    ts_call ism2 = call(TS_D, 1 << 24, 16, 16, one, zero);
    decide(&ism2, &cfg, prof, 1);
    tap_ok(ism2.decision == TS_RUN_CPU && ism2.cls == TS_CLASS_ISM2,
           "auto: ISM2 D k=n=16 on pageable data stays on the CPU (cpu %.3gs, gpu %.3gs)", ism2.predicted_cpu_s,
           ism2.predicted_gpu_s);
    ism2.res_a = ism2.res_c = TS_MEM_PINNED;
    decide(&ism2, &cfg, prof, 1);
    tap_ok(ism2.decision == TS_RUN_GPU, "auto: ISM2 D k=n=16 on pinned data goes to the GPU (cpu %.3gs, gpu %.3gs)",
           ism2.predicted_cpu_s, ism2.predicted_gpu_s);

    /* Other precisions, same benchmark: OpenBLAS runs S and Z ISM2 slower
     * per byte than D, so they pay on the GPU from pageable memory (S 45
     * against 73 ms, Z 93 against 127 ms), and so does S TSM2 width 16 by
     * a little (45 against 49 ms); Z TSM2 width 16 does not (179 against
     * 154 ms). */
    static const float onef[2] = { 1, 0 }, zerof[2] = { 0, 0 };
    static const struct {
        ts_prec p;
        int64_t m, n, k;
        ts_class cls;
        ts_decision want;
    } prec_cases[] = { { TS_S, 1 << 24, 16, 16, TS_CLASS_ISM2, TS_RUN_GPU },
                       { TS_Z, 1 << 23, 16, 16, TS_CLASS_ISM2, TS_RUN_GPU },
                       { TS_S, 20480, 16, 20480, TS_CLASS_TSM2, TS_RUN_GPU },
                       { TS_Z, 20480, 16, 20480, TS_CLASS_TSM2, TS_RUN_CPU } };
    for (size_t i = 0; i < sizeof prec_cases / sizeof prec_cases[0]; i++) {
        int single = prec_cases[i].p == TS_S;
        ts_call x = call(prec_cases[i].p, prec_cases[i].m, prec_cases[i].n, prec_cases[i].k,
                         single ? (const void *)onef : one, single ? (const void *)zerof : zero);
        decide(&x, &cfg, prof, 1);
        tap_ok(x.cls == prec_cases[i].cls && x.decision == prec_cases[i].want,
               "auto: %s %s k=%lld n=%lld on pageable data %s (cpu %.3gs, gpu %.3gs)", ts_routine_symbol(x.routine),
               prec_cases[i].cls == TS_CLASS_ISM2 ? "ISM2" : "TSM2", (long long)x.k, (long long)x.n,
               prec_cases[i].want == TS_RUN_GPU ? "goes to the GPU" : "stays on the CPU", x.predicted_cpu_s,
               x.predicted_gpu_s);
    }

    /* Rank-k updates C += A B^T, D m = n = 8192, on pageable data: both
     * directions go through the packing threads, and OpenBLAS streams C at
     * about 100 GB/s (H100 runs: 10-12 ms on the CPU, 20-21 ms on the GPU). */
    for (int64_t k = 2; k <= 16; k *= 2) {
        ts_call rk;
        ts_call_shape(&rk, TS_D, 'N', 'T', 8192, 8192, k);
        rk.alpha = one;
        rk.beta = one;
        ts_scalar_flags(&rk);
        ts_classify(&rk, 2048, 64);
        settle(&rk);
        decide(&rk, &cfg, prof, 1);
        tap_ok(rk.cls == TS_CLASS_RANKK && rk.decision == TS_RUN_CPU,
               "auto: rank-k update D 8192x8192 k=%lld on pageable data stays on the CPU (cpu %.3gs, gpu %.3gs)",
               (long long)k, rk.predicted_cpu_s, rk.predicted_gpu_s);
    }

    ts_call square = call(TS_D, 4096, 4096, 4096, one, zero);
    decide(&square, &cfg, prof, 1);
    tap_ok(square.decision == TS_RUN_GPU, "auto: square D 4096 goes to the GPU (cpu %.3gs, gpu %.3gs)",
           square.predicted_cpu_s, square.predicted_gpu_s);

    ts_call dev = call(TS_D, 8, 8, 8, one, zero);
    dev.res_b = TS_MEM_DEVICE;
    cfg.mode = TS_MODE_CPU;
    decide(&dev, &cfg, prof, 1);
    tap_ok(dev.decision == TS_RUN_GPU && !strcmp(dev.reason, "device operands"),
           "device operands run on the GPU even in cpu mode");

    decide(&square, &cfg, prof, 1);
    tap_ok(square.decision == TS_RUN_CPU && !strcmp(square.reason, "mode cpu"), "cpu mode keeps host calls on the CPU");
    ts_call scaled = call(TS_D, 50, 50, 50, zero, two);
    decide(&scaled, &cfg, prof, 1);
    tap_ok(!strcmp(scaled.reason, "scaling only"), "cpu mode: alpha = 0 is scaling only (the shim computes C = beta C)");

    cfg.mode = TS_MODE_GPU;
    decide(&tiny, &cfg, prof, 1);
    tap_ok(tiny.decision == TS_RUN_GPU && !strcmp(tiny.reason, "mode gpu"), "gpu mode sends even 8x8x8 to the GPU");

    ts_call scale = call(TS_D, 5000, 8, 5000, zero, two);
    decide(&scale, &cfg, prof, 1);
    tap_ok(scale.decision == TS_RUN_CPU && !strcmp(scale.reason, "scaling only"), "alpha = 0 host calls stay on the CPU");

    cfg.disabled[TS_Z] = 1;
    ts_call z = call(TS_Z, 4096, 4096, 4096, one, zero);
    decide(&z, &cfg, prof, 1);
    tap_ok(z.decision == TS_RUN_CPU && !strcmp(z.reason, "routine disabled"), "a disabled routine stays on the CPU");

    /* The early decision the entry point takes without CUDA in the process
     * must name the same reason as the full policy on host operands. */
    ts_config auto_cfg;
    ts_config_load(&auto_cfg, no_env, NULL);
    auto_cfg.disabled[TS_S] = 1;
    const ts_call early[] = { call(TS_D, 8, 8, 8, one, zero), call(TS_D, 50, 50, 50, zero, two),
                              call(TS_S, 4096, 4096, 4096, one, zero), call(TS_D, 4096, 4096, 4096, one, zero),
                              call(TS_D, 20480, 2, 20480, one, zero), call(TS_D, 8, 8, 1 << 24, one, zero) };
    const ts_mode modes[] = { TS_MODE_AUTO, TS_MODE_GPU, TS_MODE_CPU };
    int agree = 1;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        auto_cfg.mode = modes[m];
        for (size_t i = 0; i < sizeof early / sizeof early[0]; i++) {
            ts_call full = early[i];
            decide(&full, &auto_cfg, prof, 1);
            const char *reason = ts_route_host_cpu(&early[i], &auto_cfg);
            int model = !strcmp(full.reason, "mode gpu") || !strncmp(full.reason, "cost model", 10);
            if (reason ? full.decision != TS_RUN_CPU || strcmp(reason, full.reason) : !model)
                agree = 0;
        }
    }
    tap_ok(agree, "the early CPU decision on host operands matches the full policy in every mode");
    auto_cfg.mode = TS_MODE_AUTO;
    tap_ok(ts_route_host_cpu(&early[0], &auto_cfg) && !ts_route_host_cpu(&early[3], &auto_cfg),
           "auto: 8x8x8 is settled early, square D 4096 goes to the cost model");

    /* The entry point's check on the raw arguments (this process has no
     * CUDA, and the test environment sets no TSSHIM_ variable): small calls
     * go straight to the CPU BLAS; alpha = 0, k = 0, empty and invalid sizes
     * and large calls take the full path. */
    static const struct {
        ts_prec p;
        int m, n, k;
        const double *alpha;
        int early;
    } raw[] = { { TS_D, 8, 8, 8, one, 1 },        { TS_Z, 8, 8, 8, one, 1 },     { TS_D, 8, 8, 8, zero, 0 },
                { TS_D, 8, 8, 0, one, 0 },        { TS_D, 0, 8, 8, one, 0 },     { TS_D, -1, 8, 8, one, 0 },
                { TS_D, 4096, 4096, 4096, one, 0 }, { TS_D, 20480, 2, 20480, one, 0 } };
    int raw_ok = ts_config_get()->mode == TS_MODE_AUTO && ts_config_get()->verbose == 0;
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        raw_ok &= ts_gate_forwards(ts_gemm_routine(raw[i].p), &raw[i].m, &raw[i].n, &raw[i].k, raw[i].alpha) == raw[i].early;
    tap_ok(raw_ok, "entry point: small calls go straight to the CPU BLAS, alpha = 0, k = 0, empty, invalid and "
                   "large calls take the full path");

    /* The GPU's start: a call the model sends to the GPU while it is not
     * started stays on the CPU and says so to the caller (which starts it
     * once the forgone savings pay for it); once it is started the
     * same call goes to the GPU.  Calls the model keeps on the CPU ask for
     * nothing, and in gpu mode nothing waits for readiness here. */
    ts_config start_cfg = cfg;
    start_cfg.mode = TS_MODE_AUTO;
    ts_call av = call(TS_S, 6000, 16, 6000, onef, zerof), av_ready = av;
    int asks = decide(&av, &start_cfg, prof, 0);
    int start_ok = asks == 1 && av.decision == TS_RUN_CPU && !strcmp(av.reason, "cost model: gpu faster, gpu start not repaid yet");
    start_ok &= decide(&av_ready, &start_cfg, prof, 1) == 0 && av_ready.decision == TS_RUN_GPU;
    ts_call small_gram = call(TS_D, 64, 64, 512, one, zero), forced = call(TS_S, 6000, 16, 6000, onef, zerof);
    start_ok &= decide(&small_gram, &start_cfg, prof, 0) == 0 && small_gram.decision == TS_RUN_CPU;
    ts_config gpu_cfg = cfg;
    gpu_cfg.mode = TS_MODE_GPU;
    start_ok &= decide(&forced, &gpu_cfg, prof, 0) == 0 && forced.decision == TS_RUN_GPU;
    tap_ok(start_ok, "auto: a call the model sends to the GPU stays on the CPU while it is not started, and runs there once it is");

    check_learning(&start_cfg, prof);

    /* Where the start may run on a thread of its own: auto mode, the key on,
     * a device visible (CUDA_VISIBLE_DEVICES's entries when set, else the
     * driver's device nodes).  Elsewhere the start ledger decides. */
    tap_ok(ts_gpu_devices_listed(NULL, 0) == 0 && ts_gpu_devices_listed(NULL, 2) == 2 &&
               ts_gpu_devices_listed("", 4) == 0 && ts_gpu_devices_listed("0", 0) == 1 &&
               ts_gpu_devices_listed("1,0", 8) == 2,
           "devices visible: CUDA_VISIBLE_DEVICES's entries when set, else the device nodes");
    ts_config bg = start_cfg;
    int bg_ok = ts_route_background_start(&bg, 1) && !ts_route_background_start(&bg, 0);
    bg.background_start = 0;
    bg_ok &= !ts_route_background_start(&bg, 1);
    bg.background_start = 1;
    bg.mode = TS_MODE_CPU;
    bg_ok &= !ts_route_background_start(&bg, 1);
    bg.mode = TS_MODE_GPU;
    bg_ok &= !ts_route_background_start(&bg, 1);
    tap_ok(bg_ok, "background start: auto mode with TSSHIM_BACKGROUND_START=1 and a device only");

    check_start_ledger(&start_cfg, prof);
    check_level3_routing(&ts_profile_defaults);
    check_level3_gpu_side();
    tap_ok(ts_call_flops(&z) == 8.0 * 4096.0 * 4096.0 * 4096.0, "complex flops count 8 per multiply-add");
    ts_call beta1 = call(TS_D, 10, 10, 10, one, one);
    tap_ok(ts_call_bytes(&beta1) == 8.0 * 400 && ts_call_bytes(&tiny) == 8.0 * 192,
           "bytes count C twice only when beta != 0");
    return tap_done();
}
