/* The entry points of the SYRK, HERK, TRSM, TRMM, SYMM, HEMM, SYR2K and
 * HER2K rows of the routine list
 * (included by shim/entry_points.c, which expands the list).  Each checks
 * the forwarding gate (ts_gate_lane_cpu; on x86-64 written out in assembly)
 * and jumps to the CPU BLAS with its own arguments, or hands them to the
 * core (src/entry/level3_entry.h).  bench/bench_forward_level3 measures what this
 * costs on the smallest calls. */
#ifndef TS_LEVEL3_ADAPTERS_H
#define TS_LEVEL3_ADAPTERS_H

#include <stdint.h>

#include "gate.h"
#include "entry/level3_entry.h"

/* HERK's scalars are real. */
#define TS_L3_HERK_SPREC_TS_C TS_S
#define TS_L3_HERK_SPREC_TS_Z TS_D

/* The parameters with integers of type I: int, or int64_t for the ILP64
 * rows (F77_64, CBLAS_64). */
#define TS_SYRK_F77_PARAMS(I)                                                                                \
    const char *uplo, const char *trans, const I *n, const I *k, const void *alpha, const void *a,           \
        const I *lda, const void *beta, void *c, const I *ldc, size_t uplo_len, size_t trans_len
#define TS_SYRK_F77_PASS uplo, trans, n, k, alpha, a, lda, beta, c, ldc, uplo_len, trans_len

#define TS_TRSM_F77_PARAMS(I)                                                                                \
    const char *side, const char *uplo, const char *transa, const char *diag, const I *m, const I *n,        \
        const void *alpha, const void *a, const I *lda, void *b, const I *ldb, size_t side_len,              \
        size_t uplo_len, size_t transa_len, size_t diag_len
#define TS_TRSM_F77_PASS side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, side_len, uplo_len, transa_len, diag_len

#define TS_SYMM_F77_PARAMS(I)                                                                                \
    const char *side, const char *uplo, const I *m, const I *n, const void *alpha, const void *a, const I *lda, \
        const void *b, const I *ldb, const void *beta, void *c, const I *ldc, size_t side_len, size_t uplo_len
#define TS_SYMM_F77_PASS side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, side_len, uplo_len

#define TS_SYR2K_F77_PARAMS(I)                                                                               \
    const char *uplo, const char *trans, const I *n, const I *k, const void *alpha, const void *a, const I *lda, \
        const void *b, const I *ldb, const void *beta, void *c, const I *ldc, size_t uplo_len, size_t trans_len
#define TS_SYR2K_F77_PASS uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, uplo_len, trans_len

/* The Fortran arguments collected for the core: an ILP64 row's integer
 * pointers travel as the struct's type (src/common/level3_args.h, ts_f77_dim). */
#define TS_L3_IP(p) ((const int *)(const void *)(p))
#define TS_SYRK_F77_COLLECT uplo, trans, TS_L3_IP(n), TS_L3_IP(k), alpha, a, TS_L3_IP(lda), a, TS_L3_IP(lda), beta, c, \
    TS_L3_IP(ldc), uplo_len, trans_len
#define TS_TRSM_F77_COLLECT side, uplo, transa, diag, TS_L3_IP(m), TS_L3_IP(n), alpha, a, TS_L3_IP(lda), b,        \
    TS_L3_IP(ldb), side_len, uplo_len, transa_len, diag_len

#define TS_SYMM_F77_COLLECT side, uplo, TS_L3_IP(m), TS_L3_IP(n), alpha, a, TS_L3_IP(lda), b, TS_L3_IP(ldb), beta, c, \
    TS_L3_IP(ldc), side_len, uplo_len
#define TS_SYR2K_F77_COLLECT uplo, trans, TS_L3_IP(n), TS_L3_IP(k), alpha, a, TS_L3_IP(lda), b, TS_L3_IP(ldb), beta, c, \
    TS_L3_IP(ldc), uplo_len, trans_len

#define TS_SYRK_CBLAS_PARAMS(sprec, I)                                                                       \
    int layout, int uplo, int trans, I n, I k, TS_CBLAS_SCALAR_##sprec alpha, const void *a, I lda,             \
        TS_CBLAS_SCALAR_##sprec beta, void *c, I ldc
#define TS_SYRK_CBLAS_PASS layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc

#define TS_TRSM_CBLAS_PARAMS(sprec, I)                                                                       \
    int layout, int side, int uplo, int transa, int diag, I m, I n, TS_CBLAS_SCALAR_##sprec alpha,              \
        const void *a, I lda, void *b, I ldb
#define TS_TRSM_CBLAS_PASS layout, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb

#define TS_SYMM_CBLAS_PARAMS(sprec, I)                                                                       \
    int layout, int side, int uplo, I m, I n, TS_CBLAS_SCALAR_##sprec alpha, const void *a, I lda, const void *b, \
        I ldb, TS_CBLAS_SCALAR_##sprec beta, void *c, I ldc
#define TS_SYMM_CBLAS_PASS layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc

/* SYR2K and HER2K: alpha of precision aprec, beta of bprec (HER2K's real). */
#define TS_SYR2K_CBLAS_PARAMS(aprec, bprec, I)                                                               \
    int layout, int uplo, int trans, I n, I k, TS_CBLAS_SCALAR_##aprec alpha, const void *a, I lda, const void *b, \
        I ldb, TS_CBLAS_SCALAR_##bprec beta, void *c, I ldc
#define TS_SYR2K_CBLAS_PASS layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc

/* The full path, out of line so that the check keeps no frame: the
 * arguments collected for the core. */
#define TS_L3_FULL(name, params, core, type, ...)                                                           \
    __attribute__((noinline, used)) void name##_full(params);                                               \
    void name##_full(params)                                                                                \
    {                                                                                                       \
        const type args = { __VA_ARGS__ };                                                                  \
        core(TS_R_##name, &args);                                                                           \
    }

#if defined(__x86_64__) && defined(__ELF__)
/* The check in assembly, of shim/gate.h's pieces: in C it cost 1.5 to 3.4
 * ns a call, up to 1.8% of the smallest SYRK or TRSM on the build machine
 * and more on a faster CPU. */
/* CBLAS: real scalars by value, complex ones by address (r9 for SYRK, the
 * second stack argument for TRSM). */
#define TS_L3_CBLAS_SYRK_ALPHA_TS_S TS_GATE_ALPHA_XMM_TS_S
#define TS_L3_CBLAS_SYRK_ALPHA_TS_D TS_GATE_ALPHA_XMM_TS_D
#define TS_L3_CBLAS_SYRK_ALPHA_TS_C TS_GATE_ALPHA_AT_TS_C("%r9")
#define TS_L3_CBLAS_SYRK_ALPHA_TS_Z TS_GATE_ALPHA_AT_TS_Z("%r9")
#define TS_L3_CBLAS_TRSM_ALPHA_TS_S TS_GATE_ALPHA_XMM_TS_S
#define TS_L3_CBLAS_TRSM_ALPHA_TS_D TS_GATE_ALPHA_XMM_TS_D
#define TS_L3_CBLAS_TRSM_ALPHA_TS_C " movq 16(%rsp), %r11\n" TS_GATE_ALPHA_AT_TS_C("%r11")
#define TS_L3_CBLAS_TRSM_ALPHA_TS_Z " movq 16(%rsp), %r11\n" TS_GATE_ALPHA_AT_TS_Z("%r11")

/* Fortran SYRK, HERK: n and k through rdx and rcx, alpha's address in r8. */
#define TS_L3_F77_SYRK_ASM(name, sprec, w)                                                                  \
    __asm__(TS_GATE_HEAD(name) TS_GATE_LOAD_##w " (%rdx), %r10\n testq %r10, %r10\n jle 1f\n imulq %r10, %r10\n" \
            TS_GATE_JO_##w TS_GATE_LOAD_##w " (%rcx), %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n jo 1f\n" \
            TS_GATE_BOUND(name) TS_GATE_ALPHA_AT_##sprec("%r8") TS_GATE_JUMP(name));
/* Fortran TRSM and TRMM: side's address in rdi, m and n through r8 and
 * r9, alpha's address the first stack argument; the triangle is m for side
 * L or l.  SYMM and HEMM: the same with m and n through rdx and rcx, alpha's
 * address in r8. */
#define TS_L3_F77_SIDE_ASM(name, w, mreg, nreg, alpha)                                                      \
    __asm__(TS_GATE_HEAD(name) TS_GATE_LOAD_##w " (" mreg "), %r10\n testq %r10, %r10\n jle 1f\n"           \
            TS_GATE_LOAD_##w " (" nreg "), %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n" TS_GATE_JO_##w \
            " movzbl (%rdi), %r11d\n orl $32, %r11d\n cmpl $108, %r11d\n jne 2f\n" TS_GATE_LOAD_##w " (" mreg \
            "), %r11\n jmp 3f\n2:" TS_GATE_LOAD_##w " (" nreg "), %r11\n3: imulq %r11, %r10\n jo 1f\n"          \
            TS_GATE_BOUND(name) alpha TS_GATE_JUMP(name));
#define TS_L3_F77_TRSM_ASM(name, sprec, w)                                                                  \
    TS_L3_F77_SIDE_ASM(name, w, "%r8", "%r9", " movq 8(%rsp), %r11\n" TS_GATE_ALPHA_AT_##sprec("%r11"))
#define TS_L3_F77_SYMM_ASM(name, sprec, w) TS_L3_F77_SIDE_ASM(name, w, "%rdx", "%rcx", TS_GATE_ALPHA_AT_##sprec("%r8"))
/* CBLAS SYRK, HERK: n and k in ecx and r8d (rcx and r8). */
#define TS_L3_CBLAS_SYRK_ASM(name, sprec, w)                                                                \
    __asm__(TS_GATE_HEAD(name) TS_GATE_LOAD_##w " " TS_GATE_ECX_##w ", %r10\n testq %r10, %r10\n jle 1f\n"     \
            " imulq %r10, %r10\n" TS_GATE_JO_##w TS_GATE_LOAD_##w " " TS_GATE_R8_##w ", %r11\n testq %r11, %r11\n"  \
            " jle 1f\n imulq %r11, %r10\n jo 1f\n"                                                          \
            TS_GATE_BOUND(name) TS_L3_CBLAS_SYRK_ALPHA_##sprec TS_GATE_JUMP(name));
/* CBLAS TRSM and TRMM: side in esi, m in r9d (r9), n the first stack
 * argument; the triangle is m for CblasLeft (141).  SYMM and HEMM: m and n
 * in ecx and r8d (rcx, r8), alpha as SYRK's. */
#define TS_L3_CBLAS_SIDE_ASM(name, w, mloc, nloc, alpha)                                                    \
    __asm__(TS_GATE_HEAD(name) TS_GATE_LOAD_##w " " mloc ", %r10\n testq %r10, %r10\n jle 1f\n"              \
            TS_GATE_LOAD_##w " " nloc ", %r11\n testq %r11, %r11\n jle 1f\n imulq %r11, %r10\n" TS_GATE_JO_##w   \
            " cmpl $141, %esi\n jne 2f\n" TS_GATE_LOAD_##w " " mloc ", %r11\n2: imulq %r11, %r10\n jo 1f\n"      \
            TS_GATE_BOUND(name) alpha TS_GATE_JUMP(name));
#define TS_L3_CBLAS_TRSM_ASM(name, sprec, w)                                                                \
    TS_L3_CBLAS_SIDE_ASM(name, w, TS_GATE_R9_##w, "8(%rsp)", TS_L3_CBLAS_TRSM_ALPHA_##sprec)
#define TS_L3_CBLAS_SYMM_ASM(name, sprec, w)                                                                \
    TS_L3_CBLAS_SIDE_ASM(name, w, TS_GATE_ECX_##w, TS_GATE_R8_##w, TS_L3_CBLAS_SYRK_ALPHA_##sprec)

#define TS_L3_SYMBOL(asm_gate, name, sprec, w, params, dims, alpha, pass) asm_gate(name, sprec, w)
#else
/* Elsewhere the check in C: the gate's answer, then one tail call (to the
 * lane's routine, of the entry point's own type). */
#define TS_L3_SYMBOL(asm_gate, name, sprec, w, params, dims, alpha, pass)                                   \
    __attribute__((visibility("default"))) void name(params);                                               \
    void name(params)                                                                                       \
    {                                                                                                       \
        ts_gemm_fn cpu = ts_gate_lane_cpu_dims(TS_R_##name, dims, alpha);                                   \
        (cpu ? (__typeof__(&name##_full))(void (*)(void))cpu : name##_full)(pass);                           \
    }
#endif

/* The gate's m, n, k (values): TRSM's k is the triangle's order. */
#define TS_L3_DIMS(a, b, c) a, b, c
#define TS_TRSM_F77_DIMS TS_L3_DIMS(*m, *n, *side == 'L' || *side == 'l' ? *m : *n)
#define TS_TRSM_CBLAS_DIMS TS_L3_DIMS(m, n, side == TS_CBLAS_LEFT ? m : n)
#define TS_SYMM_F77_DIMS TS_TRSM_F77_DIMS
#define TS_SYMM_CBLAS_DIMS TS_TRSM_CBLAS_DIMS

/* Each family at integer type I and width w. */
#define TS_L3_SYRK_F77(name, sprec, I, w)                                                                  \
    TS_L3_FULL(name, TS_SYRK_F77_PARAMS(I), ts_syrk_fortran, ts_syrk_f77_args, TS_SYRK_F77_COLLECT)          \
    TS_L3_SYMBOL(TS_L3_F77_SYRK_ASM, name, sprec, w, TS_SYRK_F77_PARAMS(I), TS_L3_DIMS(*n, *n, *k), alpha,    \
                 TS_SYRK_F77_PASS)

#define TS_L3_TRSM_F77(name, prec, I, w)                                                                   \
    TS_L3_FULL(name, TS_TRSM_F77_PARAMS(I), ts_trsm_fortran, ts_trsm_f77_args, TS_TRSM_F77_COLLECT)          \
    TS_L3_SYMBOL(TS_L3_F77_TRSM_ASM, name, prec, w, TS_TRSM_F77_PARAMS(I), TS_TRSM_F77_DIMS, alpha,          \
                 TS_TRSM_F77_PASS)

#define TS_L3_SYMM_F77(name, prec, I, w)                                                                   \
    TS_L3_FULL(name, TS_SYMM_F77_PARAMS(I), ts_symm_fortran, ts_symm_f77_args, TS_SYMM_F77_COLLECT)          \
    TS_L3_SYMBOL(TS_L3_F77_SYMM_ASM, name, prec, w, TS_SYMM_F77_PARAMS(I), TS_SYMM_F77_DIMS, alpha,          \
                 TS_SYMM_F77_PASS)

/* SYR2K and HER2K: SYRK's check (alpha of the routine's precision). */
#define TS_L3_SYR2K_F77(name, prec, I, w)                                                                  \
    TS_L3_FULL(name, TS_SYR2K_F77_PARAMS(I), ts_syrk_fortran, ts_syrk_f77_args, TS_SYR2K_F77_COLLECT)        \
    TS_L3_SYMBOL(TS_L3_F77_SYRK_ASM, name, prec, w, TS_SYR2K_F77_PARAMS(I), TS_L3_DIMS(*n, *n, *k), alpha,    \
                 TS_SYR2K_F77_PASS)

/* CBLAS, by the precision of the scalars as passed (sprec). */
#define TS_L3_SYRK_CBLAS(name, sprec, I, w)                                                                \
    TS_L3_FULL(name, TS_SYRK_CBLAS_PARAMS(sprec, I), ts_syrk_cblas, ts_syrk_cblas_args, layout, uplo, trans, n, \
               k, TS_CBLAS_AT_##sprec(alpha), a, lda, a, lda, TS_CBLAS_AT_##sprec(beta), c, ldc)                         \
    TS_L3_SYMBOL(TS_L3_CBLAS_SYRK_ASM, name, sprec, w, TS_SYRK_CBLAS_PARAMS(sprec, I), TS_L3_DIMS(n, n, k),    \
                 TS_CBLAS_AT_##sprec(alpha), TS_SYRK_CBLAS_PASS)
#define TS_L3_TRSM_CBLAS(name, sprec, I, w)                                                                \
    TS_L3_FULL(name, TS_TRSM_CBLAS_PARAMS(sprec, I), ts_trsm_cblas, ts_trsm_cblas_args, layout, side, uplo,   \
               transa, diag, m, n, TS_CBLAS_AT_##sprec(alpha), a, lda, b, ldb)                                \
    TS_L3_SYMBOL(TS_L3_CBLAS_TRSM_ASM, name, sprec, w, TS_TRSM_CBLAS_PARAMS(sprec, I), TS_TRSM_CBLAS_DIMS,    \
                 TS_CBLAS_AT_##sprec(alpha), TS_TRSM_CBLAS_PASS)

#define TS_L3_SYMM_CBLAS(name, sprec, I, w)                                                                \
    TS_L3_FULL(name, TS_SYMM_CBLAS_PARAMS(sprec, I), ts_symm_cblas, ts_symm_cblas_args, layout, side, uplo, m, n, \
               TS_CBLAS_AT_##sprec(alpha), a, lda, b, ldb, TS_CBLAS_AT_##sprec(beta), c, ldc)                  \
    TS_L3_SYMBOL(TS_L3_CBLAS_SYMM_ASM, name, sprec, w, TS_SYMM_CBLAS_PARAMS(sprec, I), TS_SYMM_CBLAS_DIMS,    \
                 TS_CBLAS_AT_##sprec(alpha), TS_SYMM_CBLAS_PASS)
/* SYR2K and HER2K: alpha of precision aprec, beta of bprec; SYRK's check. */
#define TS_L3_SYR2K_CBLAS(name, aprec, bprec, I, w)                                                        \
    TS_L3_FULL(name, TS_SYR2K_CBLAS_PARAMS(aprec, bprec, I), ts_syrk_cblas, ts_syrk_cblas_args, layout, uplo,     \
               trans, n, k, TS_CBLAS_AT_##aprec(alpha), a, lda, b, ldb, TS_CBLAS_AT_##bprec(beta), c, ldc)        \
    TS_L3_SYMBOL(TS_L3_CBLAS_SYRK_ASM, name, aprec, w, TS_SYR2K_CBLAS_PARAMS(aprec, bprec, I),              \
                 TS_L3_DIMS(n, n, k), TS_CBLAS_AT_##aprec(alpha), TS_SYR2K_CBLAS_PASS)

/* One more expansion step, so that HERK's scalar precision (real) is a token first. */
#define TS_L3_EXPAND(macro, name, sprec, I, w) macro(name, sprec, I, w)
#define TS_ENTRY_SYRK_F77(name, prec) TS_L3_SYRK_F77(name, prec, int, 32)
#define TS_ENTRY_HERK_F77(name, prec) TS_L3_EXPAND(TS_L3_SYRK_F77, name, TS_L3_HERK_SPREC_##prec, int, 32)
#define TS_ENTRY_TRSM_F77(name, prec) TS_L3_TRSM_F77(name, prec, int, 32)
#define TS_ENTRY_SYRK_CBLAS(name, prec) TS_L3_SYRK_CBLAS(name, prec, int, 32)
#define TS_ENTRY_HERK_CBLAS(name, prec) TS_L3_EXPAND(TS_L3_SYRK_CBLAS, name, TS_L3_HERK_SPREC_##prec, int, 32)
#define TS_ENTRY_TRSM_CBLAS(name, prec) TS_L3_TRSM_CBLAS(name, prec, int, 32)
#define TS_ENTRY_SYRK_F77_64(name, prec) TS_L3_SYRK_F77(name, prec, int64_t, 64)
#define TS_ENTRY_HERK_F77_64(name, prec) TS_L3_EXPAND(TS_L3_SYRK_F77, name, TS_L3_HERK_SPREC_##prec, int64_t, 64)
#define TS_ENTRY_TRSM_F77_64(name, prec) TS_L3_TRSM_F77(name, prec, int64_t, 64)
#define TS_ENTRY_SYRK_CBLAS_64(name, prec) TS_L3_SYRK_CBLAS(name, prec, int64_t, 64)
#define TS_ENTRY_HERK_CBLAS_64(name, prec) TS_L3_EXPAND(TS_L3_SYRK_CBLAS, name, TS_L3_HERK_SPREC_##prec, int64_t, 64)
#define TS_ENTRY_TRSM_CBLAS_64(name, prec) TS_L3_TRSM_CBLAS(name, prec, int64_t, 64)

/* TRMM takes TRSM's adapters; SYMM and HEMM one adapter, SYR2K and HER2K
 * another, each family at integer type I and width w. */
#define TS_L3_EXPAND5(macro, name, aprec, bprec, I, w) macro(name, aprec, bprec, I, w)
#define TS_ENTRY_TRMM_F77(name, prec) TS_L3_TRSM_F77(name, prec, int, 32)
#define TS_ENTRY_TRMM_CBLAS(name, prec) TS_L3_TRSM_CBLAS(name, prec, int, 32)
#define TS_ENTRY_TRMM_F77_64(name, prec) TS_L3_TRSM_F77(name, prec, int64_t, 64)
#define TS_ENTRY_TRMM_CBLAS_64(name, prec) TS_L3_TRSM_CBLAS(name, prec, int64_t, 64)
#define TS_ENTRY_SYMM_F77(name, prec) TS_L3_SYMM_F77(name, prec, int, 32)
#define TS_ENTRY_SYMM_CBLAS(name, prec) TS_L3_SYMM_CBLAS(name, prec, int, 32)
#define TS_ENTRY_SYMM_F77_64(name, prec) TS_L3_SYMM_F77(name, prec, int64_t, 64)
#define TS_ENTRY_SYMM_CBLAS_64(name, prec) TS_L3_SYMM_CBLAS(name, prec, int64_t, 64)
#define TS_ENTRY_HEMM_F77(name, prec) TS_ENTRY_SYMM_F77(name, prec)
#define TS_ENTRY_HEMM_CBLAS(name, prec) TS_ENTRY_SYMM_CBLAS(name, prec)
#define TS_ENTRY_HEMM_F77_64(name, prec) TS_ENTRY_SYMM_F77_64(name, prec)
#define TS_ENTRY_HEMM_CBLAS_64(name, prec) TS_ENTRY_SYMM_CBLAS_64(name, prec)
#define TS_ENTRY_SYR2K_F77(name, prec) TS_L3_SYR2K_F77(name, prec, int, 32)
#define TS_ENTRY_SYR2K_F77_64(name, prec) TS_L3_SYR2K_F77(name, prec, int64_t, 64)
#define TS_ENTRY_HER2K_F77(name, prec) TS_L3_SYR2K_F77(name, prec, int, 32)
#define TS_ENTRY_HER2K_F77_64(name, prec) TS_L3_SYR2K_F77(name, prec, int64_t, 64)
#define TS_ENTRY_SYR2K_CBLAS(name, prec) TS_L3_SYR2K_CBLAS(name, prec, prec, int, 32)
#define TS_ENTRY_SYR2K_CBLAS_64(name, prec) TS_L3_SYR2K_CBLAS(name, prec, prec, int64_t, 64)
#define TS_ENTRY_HER2K_CBLAS(name, prec) TS_L3_EXPAND5(TS_L3_SYR2K_CBLAS, name, prec, TS_L3_HERK_SPREC_##prec, int, 32)
#define TS_ENTRY_HER2K_CBLAS_64(name, prec)                                                                 \
    TS_L3_EXPAND5(TS_L3_SYR2K_CBLAS, name, prec, TS_L3_HERK_SPREC_##prec, int64_t, 64)

#endif
