/* What the end-to-end benchmark's parts share (bench/bench_e2e.c runs a
 * case; bench/e2e_*.c are the kinds of case and their helpers). */
#ifndef E2E_H
#define E2E_H

#include <stddef.h>

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                     const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
extern gemm_fn sgemm_, dgemm_, zgemm_;

typedef enum { HOST, PINNED, DEVICE, MANAGED } e2e_memory;

typedef struct e2e_case e2e_case;

/* What one run of a case measured: `seconds` is the case's figure (a
 * call, a call after the first, a chain iteration after the first, or a
 * whole program), `first_s` the first call or iteration (or the program's
 * GEMM) where the case has one, else negative; `steady_s` the fastest call
 * or iteration after the first three (the steady state issue 22 compares),
 * where the case repeats one, else negative; `check` "ok", "FAIL", or "-"
 * where the result was not verified. */
typedef struct {
    double seconds, first_s, steady_s;
    const char *check;
} e2e_result;

struct e2e_case {
    const char *name;
    const char *cls;  /* the GEMM's shape class (tsm2, ism2, tsmttsm, rankk, regular, small) */
    const char *kind; /* call, reuse, chain, program: what `seconds` times */
    char prec;        /* s, d, z */
    char ta, tb;
    long m, n, k;
    int beta_one; /* C += ... ; else C = ... */
    e2e_memory mem;
    int calls; /* per timed batch, or in all for reuse cases */
    void (*run)(const e2e_case *, e2e_result *);
};

/* The case kinds (bench_e2e.c, e2e_reuse.c, e2e_program.c). */
void e2e_run_call(const e2e_case *, e2e_result *);
void e2e_run_reuse(const e2e_case *, e2e_result *);
void e2e_run_rewrite(const e2e_case *, e2e_result *);
void e2e_run_gram(const e2e_case *, e2e_result *);
void e2e_run_chain(const e2e_case *, e2e_result *);
void e2e_run_program(const e2e_case *, e2e_result *);
/* The child process of a program case. */
int e2e_program_child(const e2e_case *);

/* e2e_util.c */
double e2e_now(void);
/* The environment variable as a number, or fallback where unset or empty. */
long e2e_env_long(const char *name, long fallback);
void e2e_die(const char *what);
/* A long dimension (1024 or more) divided by E2E_SHRINK (default 1): tiny
 * sizes for a smoke run on a machine without a GPU. */
long e2e_dim(long v);
long e2e_shrink(void);
size_t e2e_elem_size(char prec);
gemm_fn *e2e_gemm(char prec);
/* The scalars one and zero in the precision's layout. */
const void *e2e_one(char prec);
const void *e2e_zero(char prec);
/* Values in [-0.5, 0.5) from a generator seeded with `seed`, one thread per core. */
void e2e_fill(void *mem, size_t elems, char prec, unsigned seed);
/* malloc that dies on failure; `elems` elements of the precision, filled. */
void *e2e_host_operand(size_t elems, char prec, unsigned seed);
/* Calls fn(i0, i1, part, arg) on parts of [0, count), one thread per
 * core (at most `count` parts); returns the number of parts. */
int e2e_parallel(long count, void (*fn)(long, long, int, void *), void *arg);
enum { E2E_MAX_PARTS = 64 };
/* GPU-worthy calls on an operand of their own until E2E_WARMUP_S seconds
 * passed (at least one): the GPU started, the cases' operands not yet seen. */
void e2e_start_gpu(void);

/* e2e_check.c: column checksums, e^T C, against e^T op(A) op(B) computed
 * without BLAS in double precision.  Vectors of complex values are (re, im)
 * pairs; real ones use the re parts (im 0). */
/* u[l] = sum_i op(A)[i, l] for op(A) rows x cols (trans 'N' or 'T'); uabs
 * the same of |op(A)|.  u has 2 cols doubles, uabs cols. */
void e2e_op_sums(char prec, char trans, long rows, long cols, const void *a, long lda, double *u, double *uabs);
/* x[j] = sum_l u[l] op(B)[l, j], scale[j] = sum_l uabs[l] |op(B)[l, j]|,
 * for op(B) k x n. */
void e2e_sums_times(char prec, char tb, long k, long n, const double *u, const double *uabs, const void *b, long ldb,
                    double *x, double *scale);
/* x = e^T op(A) op(B) and its scale, allocating the sums of op(A). */
void e2e_product_sums(char prec, char ta, char tb, long m, long n, long k, const void *a, long lda, const void *b,
                      long ldb, double *x, double *scale);
/* got against want (n values each): "ok" when every difference is within
 * the rounding a GEMM of depth k and a checksum over m rows can explain
 * with `adds` updates of C, else "FAIL" with a line on stderr naming `what`. */
const char *e2e_compare(const char *what, char prec, long m, long n, long k, long adds, const double *got,
                        const double *want, const double *scale);
/* e^T C of the m x n C against want. */
const char *e2e_check_c(const char *what, char prec, long m, long n, const void *c, long ldc, long k, long adds,
                        const double *want, const double *scale);
/* The worse of two checks. */
const char *e2e_worse(const char *a, const char *b);

#endif
