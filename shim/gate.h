/* What every exported entry point is made of (shim/entry_points.c,
 * shim/level3_adapters.h): how CBLAS passes scalars, and on x86-64 the
 * pieces of the forwarding check written out in assembly.  The check is
 * ts_gate_lane_cpu by hand: in C, GCC saves six registers and copies every
 * stack argument before the tail call (it tripled the cost of a forwarded
 * GEMM), while here the arguments stay where the caller put them and only
 * rax, r10 and r11 are written.  The dimensions' product lands in r10
 * (the last multiplication may overflow: jo), then come the lane's bound,
 * alpha != 0 and nothing loaded since start-up (ts_gate's tail has no
 * l_next); any failed test jumps to 1, the symbol's out-of-line full path
 * NAME_full.  tests/test_forward_entry, test_forward_level3 and
 * test_forward_ilp64 check each symbol against the C definition. */
#ifndef TS_SHIM_GATE_H
#define TS_SHIM_GATE_H

#include <link.h>
#include <stddef.h>

#include "entry/gemm_entry.h"

/* The scalar parameters of each precision of scalars: CBLAS passes real
 * ones by value, complex ones by pointer. */
#define TS_CBLAS_SCALAR_TS_S float
#define TS_CBLAS_SCALAR_TS_D double
#define TS_CBLAS_SCALAR_TS_C const void *
#define TS_CBLAS_SCALAR_TS_Z const void *
#define TS_CBLAS_AT_TS_S(x) (&(x))
#define TS_CBLAS_AT_TS_D(x) (&(x))
#define TS_CBLAS_AT_TS_C(x) (x)
#define TS_CBLAS_AT_TS_Z(x) (x)

#if defined(__x86_64__) && defined(__ELF__)
_Static_assert(offsetof(ts_forward_lane, cpu) == 0 && offsetof(ts_forward_lane, mnk_below) == 8 &&
                   offsetof(ts_forward_gate, startup_tail) == 0 && offsetof(struct link_map, l_next) == 24,
               "the layout the entry code reads");

#define TS_GATE_HEAD(name)                                                                                \
    ".text\n .globl " #name "\n .type " #name ", @function\n .p2align 4\n" #name ":\n"                     \
    " endbr64\n movq ts_lane_" #name "(%rip), %rax\n testq %rax, %rax\n jz 1f\n"
#define TS_GATE_BOUND(name) " cmpq ts_lane_" #name "+8(%rip), %r10\n jge 1f\n"
#define TS_GATE_JUMP(name)                                                                                \
    " movq ts_gate(%rip), %r10\n cmpq $0, 24(%r10)\n jne 1f\n jmp *%rax\n"                                  \
    "1: jmp " #name "_full\n .size " #name ", .-" #name "\n .hidden ts_gate\n .hidden ts_lane_" #name      \
    "\n .hidden " #name "_full\n"

/* alpha == 0 (either sign, both parts) jumps to 1: alpha's address in reg,
 * or a real alpha by value in xmm0. */
#define TS_GATE_ALPHA_AT_TS_S(reg) " movl (" reg "), %r10d\n addl %r10d, %r10d\n jz 1f\n"
#define TS_GATE_ALPHA_AT_TS_D(reg) " movq (" reg "), %r10\n addq %r10, %r10\n jz 1f\n"
#define TS_GATE_ALPHA_AT_TS_C(reg) " movq (" reg "), %r10\n movabsq $0x7fffffff7fffffff, %r11\n testq %r11, %r10\n jz 1f\n"
#define TS_GATE_ALPHA_AT_TS_Z(reg)                                                                            \
    " movq (" reg "), %r10\n movq 8(" reg "), %r11\n addq %r10, %r10\n addq %r11, %r11\n orq %r11, %r10\n jz 1f\n"
#define TS_GATE_ALPHA_XMM_TS_S " movd %xmm0, %r10d\n addl %r10d, %r10d\n jz 1f\n"
#define TS_GATE_ALPHA_XMM_TS_D " movq %xmm0, %r10\n addq %r10, %r10\n jz 1f\n"
/* The integers' width w (32 or 64): how one is loaded into a 64-bit
 * register, and whether the product of the first two may overflow (not
 * from 32-bit factors). */
#define TS_GATE_LOAD_32 " movslq"
#define TS_GATE_LOAD_64 " movq"
#define TS_GATE_JO_32 ""
#define TS_GATE_JO_64 " jo 1f\n"
/* CBLAS integers by value: the register's name at each width. */
#define TS_GATE_ECX_32 "%ecx"
#define TS_GATE_ECX_64 "%rcx"
#define TS_GATE_R8_32 "%r8d"
#define TS_GATE_R8_64 "%r8"
#define TS_GATE_R9_32 "%r9d"
#define TS_GATE_R9_64 "%r9"
#endif

#endif
