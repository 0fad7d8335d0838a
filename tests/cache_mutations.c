/* The operand cache against every way a program can change an operand
 * between two calls that use it: run under the shim forced to the GPU
 * (tests/cache_mutations.sh), each case makes a call that caches the
 * operands, changes them, calls again and compares C with OpenBLAS's
 * (tests/ref_blas.c) computed on the operands as they are now.  Operands
 * hold small integers, so every product is exact on either side and the
 * comparison is for equality: a cached copy used stale cannot pass.
 * TAP on stdout. */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ref_blas.h"
#include "tap.h"

extern gemm_f77 dgemm_;

/* C (M x N) = A (M x K, leading dimension LDA) B (K x N): each operand is
 * at least 1 MiB, the TSSHIM_CACHE_MIN_MB that cache_mutations.sh sets, so
 * all three are cached. */
enum { M = 512, K = 512, N = 256, LDA = M };
#define A_ELEMS ((size_t)LDA * K)
#define A_BYTES (A_ELEMS * sizeof(double))

static double *b_op, *c_gpu, *c_ref;
static unsigned seed = 1;

static double small_int(void)
{
    seed = seed * 1103515245u + 12345u;
    return (double)((seed >> 16) % 9) - 4.0;
}

static void fill(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = small_int();
}

static void gemm(gemm_f77 *f, int m, int n, int k, const double *a, int lda, const double *b, int ldb, double beta,
                 double *c)
{
    const double one = 1.0;
    f("N", "N", &m, &n, &k, &one, a, &lda, b, &ldb, &beta, c, &m, 1, 1);
}

/* C = A B through the shim and through OpenBLAS; equal to the last bit. */
static int same_product(const char *what, const double *a, int lda, int k, const double *b)
{
    gemm(dgemm_, M, N, k, a, lda, b, k, 0.0, c_gpu);
    gemm(ref_gemm(TS_D), M, N, k, a, lda, b, k, 0.0, c_ref);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)M * N; i++)
        bad += c_gpu[i] != c_ref[i];
    return tap_ok(bad == 0, "%s: %zu of %d elements differ", what, bad, M * N);
}

static double *map_a(void *at)
{
    void *p = mmap(at, A_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Mutations of A between the two calls. */
static void m_none(double *a) { (void)a; }
static void m_first(double *a) { a[0] += 1; }
static void m_last(double *a) { a[A_ELEMS - 1] += 1; }
static void m_memcpy(double *a) { memcpy(a + 1000, a + 90000, 5000 * sizeof *a); }
static void m_memset(double *a) { memset(a + (size_t)LDA * 7, 0, M * sizeof *a); }

static void *writer(void *p)
{
    ((double *)p)[12345] = 3.0 + ((double *)p)[12345];
    return NULL;
}
static void m_thread(double *a)
{
    pthread_t t;
    pthread_create(&t, NULL, writer, a);
    pthread_join(t, NULL);
}

/* The kernel writes into A on the program's behalf. */
static void m_read(double *a)
{
    int fd[2];
    double src[512];
    for (int i = 0; i < 512; i++)
        src[i] = 2.0;
    if (pipe(fd))
        return;
    if (write(fd[1], src, sizeof src) == (ssize_t)sizeof src && read(fd[0], a + 777, sizeof src) < 0)
        a[777] = 1.0;
    close(fd[0]);
    close(fd[1]);
}

static void m_proc_mem(double *a)
{
    int fd = open("/proc/self/mem", O_RDWR);
    double v = 4.0;
    if (fd < 0 || pwrite(fd, &v, sizeof v, (off_t)(uintptr_t)(a + 99)) != (ssize_t)sizeof v)
        a[99] = v;
    if (fd >= 0)
        close(fd);
}

/* The pages read back as zeros. */
static void m_dontneed(double *a)
{
    uintptr_t lo = ((uintptr_t)(a + 20000) + 4095) & ~(uintptr_t)4095;
    madvise((void *)lo, 3 * 4096, MADV_DONTNEED);
}

/* No byte changes: the copy stays valid. */
static void m_mprotect(double *a)
{
    uintptr_t lo = (uintptr_t)a & ~(uintptr_t)4095;
    mprotect((void *)lo, A_BYTES, PROT_READ);
    mprotect((void *)lo, A_BYTES, PROT_READ | PROT_WRITE);
}

/* The child writes its copy and the parent writes its own afterwards
 * (copy-on-write broken on both sides). */
static void m_fork(double *a)
{
    pid_t pid = fork();
    if (pid == 0) {
        a[5] = 77.0;
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    a[6] += 1;
}

static void m_fork_child_only(double *a)
{
    pid_t pid = fork();
    if (pid == 0) {
        memset(a, 0, A_BYTES);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
}

typedef struct {
    const char *name;
    void (*mutate)(double *a);
} mutation;

static const mutation mutations[] = {
    { "nothing changed", m_none },
    { "first element written", m_first },
    { "last element (partial last page) written", m_last },
    { "memcpy into the middle", m_memcpy },
    { "memset of a column", m_memset },
    { "written by another thread", m_thread },
    { "read(2) into it", m_read },
    { "written through /proc/self/mem", m_proc_mem },
    { "MADV_DONTNEED on three pages", m_dontneed },
    { "mprotect read-only and back", m_mprotect },
    { "fork, both sides write", m_fork },
    { "fork, only the child writes", m_fork_child_only },
};

/* A mapping of its own holding A 16 bytes in, as malloc's large chunks
 * do, so its range ends part way through a page; no other object shares
 * its first and last pages.  (On malloc's heap the neighbours' writes to
 * those pages are reported too, the tracker seeing pages: such a copy is
 * never found unwritten, and every call asks before it runs.) */
#define OWN_MAP_BYTES (A_BYTES + 4096)
static double *own_mapping(void)
{
    char *p = mmap(NULL, OWN_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (double *)(p + 16);
}

/* Each mutation twice: on malloc's A right after the call that made its
 * copy (the next call asks the write tracker before it runs), and on an A
 * of its own mapping after a second call found the copy unwritten (the
 * next call uses it at once and asks while the GPU computes: a write found
 * then must make it run again). */
static void mutation_cases(void)
{
    enum { NMUT = sizeof mutations / sizeof mutations[0] };
    /* Each case's A at an address of its own, kept until all ran: the
     * cache stops caching an address whose contents were mostly rewritten
     * between two uses, which a case at the same address as an earlier
     * one would find (and then run uncached). */
    double *as[2][NMUT];
    for (int quiet = 0; quiet < 2; quiet++)
        for (size_t i = 0; i < NMUT; i++) {
            double *a = as[quiet][i] = quiet ? own_mapping() : malloc(A_BYTES);
            if (!a) {
                tap_skip("no memory for A");
                continue;
            }
            fill(a, A_ELEMS);
            same_product("first call", a, LDA, K, b_op);
            if (quiet)
                same_product("A unchanged, its copy found unwritten", a, LDA, K, b_op);
            mutations[i].mutate(a);
            char what[160];
            snprintf(what, sizeof what, "A %s (%s)", mutations[i].name,
                     quiet ? "asked while the GPU computes" : "asked before the call");
            same_product(what, a, LDA, K, b_op);
            same_product("and once more", a, LDA, K, b_op);
        }
    for (size_t i = 0; i < NMUT; i++) {
        free(as[0][i]);
        if (as[1][i])
            munmap((char *)as[1][i] - 16, OWN_MAP_BYTES);
    }
}

/* An A sharing its first and last pages with other objects, as arrays on
 * malloc's heap do: writes to those objects between calls change nothing
 * A's copy holds (the exit report counts such looks as neighbour_writes),
 * while a write to A's own bytes in those pages must be seen, also one
 * that comes with the neighbours' writes. */
static void neighbour_cases(void)
{
    static const struct {
        const char *name;
        int first, last; /* added to A's first and last element */
    } cases[] = {
        { "A unchanged", 0, 0 },
        { "A's first element written too", 1, 0 },
        { "A's last element written too", 0, -2 },
        { "A's first element written and written back", 0, 0 },
        { "A unchanged again", 0, 0 },
    };
    double *a = own_mapping();
    if (!a) {
        tap_skip("no memory for A");
        return;
    }
    char *before = (char *)a - 16, *after = (char *)(a + A_ELEMS);
    const size_t after_len = OWN_MAP_BYTES - 16 - A_BYTES;
    fill(a, A_ELEMS);
    same_product("A between other objects", a, LDA, K, b_op);
    same_product("and again, its copy found unwritten", a, LDA, K, b_op);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(before, (int)i + 1, 16);
        memset(after, (int)i + 1, after_len);
        a[0] += cases[i].first;
        a[A_ELEMS - 1] += cases[i].last;
        if (i == 3) {
            a[0] += 7;
            a[0] -= 7;
        }
        char what[160];
        snprintf(what, sizeof what, "the objects beside A written, %s", cases[i].name);
        same_product(what, a, LDA, K, b_op);
    }
    munmap(before, OWN_MAP_BYTES);
}

/* The same address holding other memory. */
static void address_reuse_cases(void)
{
    double *a = malloc(A_BYTES);
    fill(a, A_ELEMS);
    same_product("malloc'd A", a, LDA, K, b_op);
    free(a);
    double *again = malloc(A_BYTES);
    fill(again, A_ELEMS);
    tap_diag("malloc after free returned %s address", again == a ? "the same" : "another");
    same_product("free, malloc, new contents", again, LDA, K, b_op);
    free(again);

    a = map_a(NULL);
    fill(a, A_ELEMS);
    same_product("mmap'd A", a, LDA, K, b_op);
    munmap(a, A_BYTES);
    if (map_a(a) == a) {
        fill(a, A_ELEMS);
        same_product("munmap, mmap MAP_FIXED at the same address", a, LDA, K, b_op);
    } else {
        tap_skip("MAP_FIXED at the old address failed");
    }

    /* Moved away, and other memory mapped where it was. */
    void *spot = map_a(NULL);
    double *moved = mremap(a, A_BYTES, A_BYTES, MREMAP_MAYMOVE | MREMAP_FIXED, spot);
    if (moved != MAP_FAILED && map_a(a) == a) {
        fill(a, A_ELEMS);
        same_product("mremap away, new mapping at the old address", a, LDA, K, b_op);
        same_product("the moved A at its new address", moved, LDA, K, b_op);
        munmap(moved, A_BYTES);
    } else {
        tap_skip("mremap failed");
    }
    munmap(a, A_BYTES);
}

/* A view inside a cached A (columns 10 ..), then A again after the view's
 * memory was written. */
static void overlap_cases(void)
{
    double *a = malloc(A_BYTES);
    fill(a, A_ELEMS);
    same_product("whole A", a, LDA, K, b_op);
    same_product("columns 10.. of A, inside its copy", a + (size_t)LDA * 10, LDA, K - 10, b_op);
    a[(size_t)LDA * 20 + 3] += 2;
    same_product("the view after a write inside it", a + (size_t)LDA * 10, LDA, K - 10, b_op);
    same_product("whole A after that write", a, LDA, K, b_op);
    free(a);
}

/* The result as the next call's operand: W = A V, V = W Q (Q a signed
 * permutation, so the values stay small integers), with the program
 * changing V in between once. */
static void chain_case(void)
{
    enum { NB = 256, STEPS = 6 };
    double *a = calloc((size_t)M * M, sizeof *a), *v = malloc((size_t)M * NB * sizeof *v);
    double *w = malloc((size_t)M * NB * sizeof *w), *q = calloc((size_t)NB * NB, sizeof *q);
    double *rv = malloc((size_t)M * NB * sizeof *rv), *rw = malloc((size_t)M * NB * sizeof *rw);
    for (int i = 0; i < M; i++) /* two nonzeros per row: products stay small */
        a[i + (size_t)M * ((i * 7) % M)] = 1.0, a[i + (size_t)M * ((i * 13 + 5) % M)] = -1.0;
    for (int j = 0; j < NB; j++)
        q[(j * 5 + 3) % NB + (size_t)NB * j] = j % 2 ? -1.0 : 1.0;
    fill(v, (size_t)M * NB);
    memcpy(rv, v, (size_t)M * NB * sizeof *v);
    size_t bad = 0;
    for (int s = 0; s < STEPS; s++) {
        gemm(dgemm_, M, NB, M, a, M, v, M, 0.0, w);
        gemm(ref_gemm(TS_D), M, NB, M, a, M, rv, M, 0.0, rw);
        gemm(dgemm_, M, NB, NB, w, M, q, NB, 0.0, v);
        gemm(ref_gemm(TS_D), M, NB, NB, rw, M, q, NB, 0.0, rv);
        if (s == 2)
            v[M * 3 + 1] += 1, rv[M * 3 + 1] += 1;
        for (size_t i = 0; i < (size_t)M * NB; i++)
            bad += v[i] != rv[i] || w[i] != rw[i];
    }
    tap_ok(bad == 0, "chain W = A V, V = W Q, %d steps, V changed once: %zu differences", STEPS, bad);
    free(a), free(v), free(w), free(q), free(rv), free(rw);
}

/* C += A B with C cached from the previous call and changed in between. */
static void accumulate_case(void)
{
    double *a = malloc(A_BYTES), *c = malloc((size_t)M * N * sizeof *c), *r = malloc((size_t)M * N * sizeof *r);
    fill(a, A_ELEMS);
    fill(c, (size_t)M * N);
    memcpy(r, c, (size_t)M * N * sizeof *c);
    size_t bad = 0;
    for (int s = 0; s < 3; s++) {
        gemm(dgemm_, M, N, K, a, LDA, b_op, K, 1.0, c);
        gemm(ref_gemm(TS_D), M, N, K, a, LDA, b_op, K, 1.0, r);
        c[0] -= 1, r[0] -= 1;
        c[(size_t)M * N - 1] += 5, r[(size_t)M * N - 1] += 5;
    }
    for (size_t i = 0; i < (size_t)M * N; i++)
        bad += c[i] != r[i];
    tap_ok(bad == 0, "C += A B three times, C changed between calls: %zu differences", bad);
    free(a), free(c), free(r);
}

/* Another thread's calls make new copies of large operands, holding the
 * cache while each is sent, while this thread writes A between calls on
 * its unwritten copy: a check that meets the held cache gives up (the
 * call then runs again), and that second run must ask about A itself. */
enum { BIG_M = 8192, BIG_K = 2048, BIG_N = 4, BIG_ARRAYS = 12 };

static atomic_int big_done;

static void *big_calls(void *arg)
{
    (void)arg;
    double *b = calloc((size_t)BIG_K * BIG_N, sizeof *b), *c = malloc((size_t)BIG_M * BIG_N * sizeof *c);
    const size_t bytes = (size_t)BIG_M * BIG_K * sizeof(double);
    void *big[BIG_ARRAYS];
    int n = 0;
    /* Each at an address of its own, kept until all were sent. */
    for (; b && c && n < BIG_ARRAYS; n++) {
        double *a = big[n] = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (a == MAP_FAILED)
            break;
        memset(a, 0, bytes);
        gemm(dgemm_, BIG_M, BIG_N, BIG_K, a, BIG_M, b, BIG_K, 0.0, c);
    }
    atomic_store(&big_done, 1);
    while (n-- > 0)
        if (big[n] != MAP_FAILED)
            munmap(big[n], bytes);
    free(b), free(c);
    return NULL;
}

static void contended_case(void)
{
    double *a = own_mapping();
    pthread_t t;
    if (!a || pthread_create(&t, NULL, big_calls, NULL)) {
        tap_skip("no memory or thread for the contended case");
        return;
    }
    fill(a, A_ELEMS);
    same_product("A before the other thread's calls", a, LDA, K, b_op);
    size_t calls = 0, wrong = 0;
    while (!atomic_load(&big_done) || calls < 20) {
        /* Every other call: the call between finds the copy unwritten, so
         * the next one uses it unasked and checks while the GPU computes. */
        if (calls % 2)
            a[(calls * 4099) % A_ELEMS] += 1;
        gemm(dgemm_, M, N, K, a, LDA, b_op, K, 0.0, c_gpu);
        gemm(ref_gemm(TS_D), M, N, K, a, LDA, b_op, K, 0.0, c_ref);
        wrong += memcmp(c_gpu, c_ref, (size_t)M * N * sizeof *c_gpu) != 0;
        calls++;
    }
    pthread_join(t, NULL);
    tap_ok(wrong == 0, "A written before every other one of %zu calls while another thread's new copies held the cache: %zu wrong",
           calls, wrong);
    munmap((char *)a - 16, OWN_MAP_BYTES);
}

/* The program watches A with a userfaultfd of its own: the shim must not
 * take A over (it is not cached, and the product is still right). */
static void own_userfaultfd_case(void)
{
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    struct uffdio_api api = { .api = UFFD_API };
    double *a = map_a(NULL);
    if (fd < 0 || ioctl(fd, UFFDIO_API, &api) || !a) {
        tap_skip("userfaultfd not available to this process");
        return;
    }
    fill(a, A_ELEMS); /* populated first: the program's handler never runs */
    struct uffdio_register reg = { .range = { (uintptr_t)a, A_BYTES }, .mode = UFFDIO_REGISTER_MODE_MISSING };
    if (ioctl(fd, UFFDIO_REGISTER, &reg)) {
        tap_skip("UFFDIO_REGISTER failed");
    } else {
        same_product("A under the program's own userfaultfd", a, LDA, K, b_op);
        a[3] += 1;
        same_product("and after a write", a, LDA, K, b_op);
    }
    close(fd);
    munmap(a, A_BYTES);
}

int main(void)
{
    char err[256];
    if (ref_blas_open(err, sizeof err)) {
        printf("1..0 # SKIP %s\n", err);
        return 0;
    }
    b_op = malloc((size_t)K * N * sizeof *b_op);
    c_gpu = malloc((size_t)M * N * sizeof *c_gpu);
    c_ref = malloc((size_t)M * N * sizeof *c_ref);
    fill(b_op, (size_t)K * N);
    mutation_cases();
    neighbour_cases();
    address_reuse_cases();
    overlap_cases();
    chain_case();
    accumulate_case();
    contended_case();
    own_userfaultfd_case();
    return tap_done();
}
