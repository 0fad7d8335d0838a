/* The exported entry points, one per row of the routine list
 * (src/common/routine_list.h): a call the CPU runs anyway goes straight to the CPU
 * BLAS; any other fills one descriptor and hands it to the core.  Only these
 * symbols are visible. */
#include <stdint.h>

#include "entry/gemm_entry.h"
#include "level3_adapters.h"

/* The Fortran GEMM's parameters with integers of type I (int, or int64_t
 * for the ILP64 rows). */
#define TS_GEMM_ARGS_OF(I)                                                                              \
    const char *transa, const char *transb, const I *m, const I *n, const I *k, const void *alpha,       \
        const void *a, const I *lda, const void *b, const I *ldb, const void *beta, void *c, const I *ldc, \
        size_t transa_len, size_t transb_len
#define TS_GEMM_ARGS TS_GEMM_ARGS_OF(int)
#define TS_GEMM_PASS transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len, transb_len

/* Every call the fast check below does not pass: out of line, so that the
 * check keeps no frame of its own. */
#define TS_GEMM_FULL(name, prec)                                                                        \
    __attribute__((noinline, used)) void name##_full(TS_GEMM_ARGS);                                      \
    void name##_full(TS_GEMM_ARGS)                                                                       \
    {                                                                                                   \
        if (ts_gate_forwards(TS_R_##name, m, n, k, alpha))                                         \
            ts_gate_open_lane(TS_R_##name)(TS_GEMM_PASS);                                            \
        else                                                                                            \
            ts_gemm_fortran(TS_R_##name, TS_GEMM_PASS);                                                 \
    }

/* The same for an F77_64 row: the lane's routine has the ILP64 type. */
#define TS_GEMM64_FULL(name, prec)                                                                      \
    __attribute__((noinline, used)) void name##_full(TS_GEMM_ARGS_OF(int64_t));                          \
    void name##_full(TS_GEMM_ARGS_OF(int64_t))                                                           \
    {                                                                                                   \
        if (ts_gate_forwards_dims(TS_R_##name, *m, *n, *k, alpha))                                      \
            ((ts_gemm64_fn)(void (*)(void))ts_gate_open_lane(TS_R_##name))(TS_GEMM_PASS);                \
        else                                                                                            \
            ts_gemm_fortran64(TS_R_##name, TS_GEMM_PASS);                                               \
    }

#if defined(__x86_64__) && defined(__ELF__)
/* The check in assembly (shim/gate.h): GCC cannot tail-call a function of
 * 15 arguments without loading and storing back the 9 on the stack.  m, n,
 * k and alpha are read through rdx, rcx, r8 and r9. */
#define TS_GEMM_ASM(name, prec, w)                                                                      \
    __asm__(TS_GATE_HEAD(name) TS_GATE_LOAD_##w " (%rdx), %r10\n testq %r10, %r10\n jle 1f\n"          \
            TS_GATE_LOAD_##w " (%rcx), %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n" TS_GATE_JO_##w \
            TS_GATE_LOAD_##w " (%r8), %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n jo 1f\n"      \
            TS_GATE_BOUND(name) TS_GATE_ALPHA_AT_##prec("%r9") TS_GATE_JUMP(name));
#define TS_GEMM_SYMBOL(name, prec) TS_GEMM_FULL(name, prec) TS_GEMM_ASM(name, prec, 32)
#define TS_GEMM64_SYMBOL(name, prec) TS_GEMM64_FULL(name, prec) TS_GEMM_ASM(name, prec, 64)

#else
#define TS_GEMM_SYMBOL(name, prec)                                                                      \
    TS_GEMM_FULL(name, prec)                                                                            \
    __attribute__((visibility("default"))) void name(TS_GEMM_ARGS);                                     \
    void name(TS_GEMM_ARGS)                                                                             \
    {                                                                                                   \
        ts_gemm_fn cpu = ts_gate_lane_cpu(TS_R_##name, m, n, k, alpha);                             \
        (cpu ? cpu : name##_full)(TS_GEMM_PASS);                                                         \
    }
#define TS_GEMM64_SYMBOL(name, prec)                                                                    \
    TS_GEMM64_FULL(name, prec)                                                                          \
    __attribute__((visibility("default"))) void name(TS_GEMM_ARGS_OF(int64_t));                         \
    void name(TS_GEMM_ARGS_OF(int64_t))                                                                 \
    {                                                                                                   \
        ts_gemm_fn cpu = ts_gate_lane_cpu_dims(TS_R_##name, *m, *n, *k, alpha);                         \
        (cpu ? (ts_gemm64_fn)(void (*)(void))cpu : name##_full)(TS_GEMM_PASS);                            \
    }
#endif

/* CBLAS: real scalars come by value, complex ones by pointer; the adapter
 * collects the arguments for the core, which forwards them as received. */
#define TS_CBLAS_FN_TS_S ts_cblas_sgemm_fn
#define TS_CBLAS_FN_TS_D ts_cblas_dgemm_fn
#define TS_CBLAS_FN_TS_C ts_cblas_cgemm_fn
#define TS_CBLAS_FN_TS_Z ts_cblas_cgemm_fn
#define TS_CBLAS64_FN_TS_S ts_cblas_sgemm64_fn
#define TS_CBLAS64_FN_TS_D ts_cblas_dgemm64_fn
#define TS_CBLAS64_FN_TS_C ts_cblas_cgemm64_fn
#define TS_CBLAS64_FN_TS_Z ts_cblas_cgemm64_fn

/* The CBLAS signature: C's own ABI, so the fast path below is a tail call
 * (same signature, arguments left where they are) in plain C. */
#define TS_CBLAS_PARAMS_OF(prec, I)                                                                     \
    int layout, int transa, int transb, I m, I n, I k, TS_CBLAS_SCALAR_##prec alpha, const void *a, I lda, \
        const void *b, I ldb, TS_CBLAS_SCALAR_##prec beta, void *c, I ldc
#define TS_CBLAS_PARAMS(prec) TS_CBLAS_PARAMS_OF(prec, int)
#define TS_CBLAS_PASS layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc

/* Every CBLAS call the gate does not pass, through the core: out of line,
 * so that the check keeps no frame. */
#define TS_CBLAS_FULL(name, prec) TS_CBLAS_FULL_OF(name, prec, int)
#define TS_CBLAS_FULL_OF(name, prec, I)                                                                 \
    __attribute__((noinline, used)) void name##_full(TS_CBLAS_PARAMS_OF(prec, I));                      \
    void name##_full(TS_CBLAS_PARAMS_OF(prec, I))                                                       \
    {                                                                                                   \
        const ts_cblas_args args = { layout, transa, transb, m, n, k, TS_CBLAS_AT_##prec(alpha), a, lda, \
                                     b, ldb, TS_CBLAS_AT_##prec(beta), c, ldc };                        \
        ts_cblas_gemm(TS_R_##name, &args);                                                              \
    }

#if defined(__x86_64__) && defined(__ELF__)
/* The check in assembly, as for the Fortran symbols: with six of the
 * arguments on the stack, C cannot tail-call without copying them.  m, n
 * and k arrive in ecx, r8d and r9d (rcx, r8, r9); a real alpha in xmm0, a
 * complex one's address as the first stack argument (8(%rsp)). */
#define TS_CBLAS_GEMM_ALPHA_TS_S TS_GATE_ALPHA_XMM_TS_S
#define TS_CBLAS_GEMM_ALPHA_TS_D TS_GATE_ALPHA_XMM_TS_D
#define TS_CBLAS_GEMM_ALPHA_TS_C " movq 8(%rsp), %r11\n" TS_GATE_ALPHA_AT_TS_C("%r11")
#define TS_CBLAS_GEMM_ALPHA_TS_Z " movq 8(%rsp), %r11\n" TS_GATE_ALPHA_AT_TS_Z("%r11")

#define TS_CBLAS_GEMM_SYMBOL(name, prec) TS_CBLAS_FULL(name, prec) TS_CBLAS_GEMM_ASM(name, prec, 32)
#define TS_CBLAS64_GEMM_SYMBOL(name, prec) TS_CBLAS_FULL_OF(name, prec, int64_t) TS_CBLAS_GEMM_ASM(name, prec, 64)
#define TS_CBLAS_GEMM_ASM(name, prec, w)                                                                \
    __asm__(TS_GATE_HEAD(name) TS_GATE_LOAD_##w " " TS_GATE_ECX_##w ", %r10\n testq %r10, %r10\n jle 1f\n"  \
            TS_GATE_LOAD_##w " " TS_GATE_R8_##w ", %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n"   \
            TS_GATE_JO_##w TS_GATE_LOAD_##w " " TS_GATE_R9_##w ", %r11\n testq %r11, %r11\n jle 1f\n"        \
            " imulq %r11, %r10\n jo 1f\n" TS_GATE_BOUND(name) TS_CBLAS_GEMM_ALPHA_##prec TS_GATE_JUMP(name));
#else
#define TS_CBLAS_GEMM_SYMBOL(name, prec)                                                                \
    TS_CBLAS_FULL(name, prec)                                                                           \
    __attribute__((visibility("default"))) void name(TS_CBLAS_PARAMS(prec));                            \
    void name(TS_CBLAS_PARAMS(prec))                                                                    \
    {                                                                                                   \
        ts_gemm_fn cpu = ts_gate_lane_cpu(TS_R_##name, &m, &n, &k, TS_CBLAS_AT_##prec(alpha));          \
        (cpu ? (TS_CBLAS_FN_##prec)(void (*)(void))cpu : name##_full)(TS_CBLAS_PASS);                    \
    }
#define TS_CBLAS64_GEMM_SYMBOL(name, prec)                                                              \
    TS_CBLAS_FULL_OF(name, prec, int64_t)                                                               \
    __attribute__((visibility("default"))) void name(TS_CBLAS_PARAMS_OF(prec, int64_t));                \
    void name(TS_CBLAS_PARAMS_OF(prec, int64_t))                                                        \
    {                                                                                                   \
        ts_gemm_fn cpu = ts_gate_lane_cpu_dims(TS_R_##name, m, n, k, TS_CBLAS_AT_##prec(alpha));        \
        (cpu ? (TS_CBLAS64_FN_##prec)(void (*)(void))cpu : name##_full)(TS_CBLAS_PASS);                  \
    }
#endif

/* The adapter of each (arguments, abi) pair of the routine list. */
#define TS_ENTRY_GEMM_F77(name, prec) TS_GEMM_SYMBOL(name, prec)
#define TS_ENTRY_GEMM_CBLAS(name, prec) TS_CBLAS_GEMM_SYMBOL(name, prec)
#define TS_ENTRY_GEMM_F77_64(name, prec) TS_GEMM64_SYMBOL(name, prec)
#define TS_ENTRY_GEMM_CBLAS_64(name, prec) TS_CBLAS64_GEMM_SYMBOL(name, prec)
#define TS_ENTRY(symbol, prec, args, abi) TS_ENTRY_##args##_##abi(symbol, prec)
TS_ROUTINE_LIST(TS_ENTRY)
