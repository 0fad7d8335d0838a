/* The exported entry points, one per row of the routine list
 * (src/routine_list.h): a call the CPU runs anyway goes straight to the CPU
 * BLAS; any other fills one descriptor and hands it to the core.  Only these
 * symbols are visible. */
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "gemm_entry.h"
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
    __attribute__((noinline, used)) void name##full(TS_GEMM_ARGS);                                      \
    void name##full(TS_GEMM_ARGS)                                                                       \
    {                                                                                                   \
        if (ts_gate_forwards(TS_R_##name, m, n, k, alpha))                                         \
            ts_gate_open_lane(TS_R_##name)(TS_GEMM_PASS);                                            \
        else                                                                                            \
            ts_gemm_fortran(TS_R_##name, TS_GEMM_PASS);                                                 \
    }

/* The same for an F77_64 row: the lane's routine has the ILP64 type. */
#define TS_GEMM64_FULL(name, prec)                                                                      \
    __attribute__((noinline, used)) void name##full(TS_GEMM_ARGS_OF(int64_t));                          \
    void name##full(TS_GEMM_ARGS_OF(int64_t))                                                           \
    {                                                                                                   \
        if (ts_gate_forwards_dims(TS_R_##name, *m, *n, *k, alpha))                                      \
            ((ts_gemm64_fn)(void (*)(void))ts_gate_open_lane(TS_R_##name))(TS_GEMM_PASS);                \
        else                                                                                            \
            ts_gemm_fortran64(TS_R_##name, TS_GEMM_PASS);                                               \
    }

#if defined(__x86_64__) && defined(__ELF__)
/* The exported symbol is ts_gate_lane_cpu written out by hand: GCC
 * cannot tail-call a function of 15 arguments without loading and storing
 * back the 9 on the stack (and saving 6 registers to hold them), which
 * tripled the shim's cost on a forwarded call.  Here the arguments stay
 * where the caller put them: m, n, k and alpha are read through rdx, rcx,
 * r8 and r9, only rax, r10 and r11 are written, and the CPU BLAS is entered
 * with a jump.  test_forward_entry checks it against the C definition. */
_Static_assert(offsetof(ts_forward_lane, cpu) == 0 && offsetof(ts_forward_lane, mnk_below) == 8 &&
                   offsetof(ts_forward_gate, startup_tail) == 0 && offsetof(struct link_map, l_next) == 24,
               "the layout the entry code below reads");

/* alpha == 0 (either sign) jumps to 1: the bits, sign shifted out, are 0. */
#define TS_ALPHA_ZERO_TS_S "movl (%r9), %r10d\n addl %r10d, %r10d\n jz 1f\n"
#define TS_ALPHA_ZERO_TS_D "movq (%r9), %r10\n addq %r10, %r10\n jz 1f\n"
#define TS_ALPHA_ZERO_TS_C "movq (%r9), %r10\n movabsq $0x7fffffff7fffffff, %r11\n testq %r11, %r10\n jz 1f\n"
#define TS_ALPHA_ZERO_TS_Z                                                                                 \
    "movq (%r9), %r10\n movq 8(%r9), %r11\n addq %r10, %r10\n addq %r11, %r11\n orq %r11, %r10\n jz 1f\n"

/* The integers' width: how one is loaded, and whether the product of the
 * first two may overflow (not from 32-bit factors). */
#define TS_LOAD_32 " movslq"
#define TS_LOAD_64 " movq"
#define TS_MUL_JO_32 ""
#define TS_MUL_JO_64 " jo 1f\n"

#define TS_GEMM_ASM(name, prec, w)                                                                      \
    __asm__(".text\n .globl " #name "\n .type " #name ", @function\n .p2align 4\n" #name ":\n"          \
            " endbr64\n"                                                                                \
            " movq ts_lane_" #name "(%rip), %rax\n testq %rax, %rax\n jz 1f\n"                          \
            TS_LOAD_##w " (%rdx), %r10\n testq %r10, %r10\n jle 1f\n"                                   \
            TS_LOAD_##w " (%rcx), %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n" TS_MUL_JO_##w  \
            TS_LOAD_##w " (%r8), %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n jo 1f\n"         \
            " cmpq ts_lane_" #name "+8(%rip), %r10\n jge 1f\n " TS_ALPHA_ZERO_##prec                    \
            " movq ts_gate(%rip), %r10\n cmpq $0, 24(%r10)\n jne 1f\n"                                  \
            " jmp *%rax\n"                                                                              \
            "1: jmp " #name "full\n"                                                                    \
            " .size " #name ", .-" #name "\n .hidden ts_gate\n .hidden ts_lane_" #name                  \
            "\n .hidden " #name "full\n");
#define TS_GEMM_SYMBOL(name, prec) TS_GEMM_FULL(name, prec) TS_GEMM_ASM(name, prec, 32)
#define TS_GEMM64_SYMBOL(name, prec) TS_GEMM64_FULL(name, prec) TS_GEMM_ASM(name, prec, 64)

#else
#define TS_GEMM_SYMBOL(name, prec)                                                                      \
    TS_GEMM_FULL(name, prec)                                                                            \
    __attribute__((visibility("default"))) void name(TS_GEMM_ARGS);                                     \
    void name(TS_GEMM_ARGS)                                                                             \
    {                                                                                                   \
        ts_gemm_fn cpu = ts_gate_lane_cpu(TS_R_##name, m, n, k, alpha);                             \
        (cpu ? cpu : name##full)(TS_GEMM_PASS);                                                         \
    }
#define TS_GEMM64_SYMBOL(name, prec)                                                                    \
    TS_GEMM64_FULL(name, prec)                                                                          \
    __attribute__((visibility("default"))) void name(TS_GEMM_ARGS_OF(int64_t));                         \
    void name(TS_GEMM_ARGS_OF(int64_t))                                                                 \
    {                                                                                                   \
        ts_gemm_fn cpu = ts_gate_lane_cpu_dims(TS_R_##name, *m, *n, *k, alpha);                         \
        (cpu ? (ts_gemm64_fn)(void (*)(void))cpu : name##full)(TS_GEMM_PASS);                            \
    }
#endif

/* CBLAS: real scalars come by value, complex ones by pointer; the adapter
 * collects the arguments for the core, which forwards them as received. */
#define TS_CBLAS_SCALAR_TS_S float
#define TS_CBLAS_SCALAR_TS_D double
#define TS_CBLAS_SCALAR_TS_C const void *
#define TS_CBLAS_SCALAR_TS_Z const void *
#define TS_CBLAS_AT_TS_S(x) (&(x))
#define TS_CBLAS_AT_TS_D(x) (&(x))
#define TS_CBLAS_AT_TS_C(x) (x)
#define TS_CBLAS_AT_TS_Z(x) (x)
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
/* The check written out by hand, as for the Fortran symbols: with six of
 * the arguments on the stack, C cannot tail-call without copying them.  m,
 * n and k arrive in ecx, r8d and r9d; a real alpha in xmm0, a complex
 * one's address as the first stack argument (8(%rsp)). */
#define TS_CBLAS_ALPHA_ZERO_TS_S "movd %xmm0, %r10d\n addl %r10d, %r10d\n jz 1f\n"
#define TS_CBLAS_ALPHA_ZERO_TS_D "movq %xmm0, %r10\n addq %r10, %r10\n jz 1f\n"
#define TS_CBLAS_ALPHA_ZERO_TS_C "movq 8(%rsp), %r10\n movq (%r10), %r10\n " TS_ALPHA_ZERO_C_BITS
#define TS_CBLAS_ALPHA_ZERO_TS_Z                                                                         \
    "movq 8(%rsp), %r10\n movq (%r10), %r11\n movq 8(%r10), %r10\n addq %r11, %r11\n addq %r10, %r10\n" \
    " orq %r11, %r10\n jz 1f\n"
#define TS_ALPHA_ZERO_C_BITS "movabsq $0x7fffffff7fffffff, %r11\n testq %r11, %r10\n jz 1f\n"

/* m, n and k as 64-bit values in r10 and r11, from 32-bit or 64-bit registers. */
#define TS_CBLAS_M_32 " movslq %ecx,"
#define TS_CBLAS_N_32 " movslq %r8d,"
#define TS_CBLAS_K_32 " movslq %r9d,"
#define TS_CBLAS_M_64 " movq %rcx,"
#define TS_CBLAS_N_64 " movq %r8,"
#define TS_CBLAS_K_64 " movq %r9,"

#define TS_CBLAS_GEMM_SYMBOL(name, prec) TS_CBLAS_FULL(name, prec) TS_CBLAS_GEMM_ASM(name, prec, 32)
#define TS_CBLAS64_GEMM_SYMBOL(name, prec) TS_CBLAS_FULL_OF(name, prec, int64_t) TS_CBLAS_GEMM_ASM(name, prec, 64)
#define TS_CBLAS_GEMM_ASM(name, prec, w)                                                                \
    __asm__(".text\n .globl " #name "\n .type " #name ", @function\n .p2align 4\n" #name ":\n"          \
            " endbr64\n"                                                                                \
            " movq ts_lane_" #name "(%rip), %rax\n testq %rax, %rax\n jz 1f\n"                          \
            TS_CBLAS_M_##w " %r10\n testq %r10, %r10\n jle 1f\n"                                        \
            TS_CBLAS_N_##w " %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n" TS_MUL_JO_##w       \
            TS_CBLAS_K_##w " %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n jo 1f\n"              \
            " cmpq ts_lane_" #name "+8(%rip), %r10\n jge 1f\n " TS_CBLAS_ALPHA_ZERO_##prec              \
            " movq ts_gate(%rip), %r10\n cmpq $0, 24(%r10)\n jne 1f\n"                                  \
            " jmp *%rax\n"                                                                              \
            "1: jmp " #name "_full\n"                                                                   \
            " .size " #name ", .-" #name "\n .hidden ts_gate\n .hidden ts_lane_" #name                  \
            "\n .hidden " #name "_full\n");
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
