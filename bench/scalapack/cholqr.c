/* ScaLAPACK benchmark whose local work is tall and skinny: a tall M x N
 * double matrix A distributed by block rows over a P x 1 BLACS grid (row
 * block ceil(M/P), one column block of N), factored A = Q R by
 *
 *   cholqr2  CholeskyQR2: G = Q^T Q (PDSYRK), R = chol(G) (PDPOTRF),
 *            Q = Q R^-1 (PDTRSM), starting from Q = A and done twice,
 *            R = R2 R1 (PDTRMM).  Each rank's share is the Gram matrix
 *            of its rows (PBLAS calls DGEMM 'T','N': m = n = N, k long)
 *            and a DTRSM of its rows by the N x N triangle: the calls the
 *            shim offloads.
 *   geqrf    Householder QR (PDGEQRF) in panels of N/4 columns: each
 *            panel's update of the columns right of it is a pair of local
 *            GEMMs with the rank's rows as the long dimension.
 *
 *   mpirun -np P cholqr M N REPEATS [cholqr2|geqrf]    (default cholqr2)
 *
 * A(i, j) is a function of the global index alone (uniform in [-1, 1)),
 * so every rank count factors the same matrix; with M >> N its columns are
 * nearly orthogonal (condition number close to 1), which CholeskyQR needs.
 * One untimed iteration comes first (the shim's GPU start, first touches);
 * then REPEATS timed ones, each on a fresh copy of A (the copy is not
 * timed).  A phase's time is the slowest rank's.  Rank 0 prints one line:
 *
 *   case=C ranks=P m=M n=N repeats=R best_s=S median_s=S [gram_s=S chol_s=S
 *   trsm_s=S] orth=X resid=Y check=PASS|FAIL
 *
 * (the cholqr2 phases are medians over the repeats, both passes summed,
 * R = R2 R1 counted with chol),
 * where orth = ||Q^T Q - I||_F and resid = ||Q R - A||_F / ||A||_F of the
 * last repeat's factors.  Both must be below TOLERANCE, else the exit
 * status is 1. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both stay near 1e-14 for CholeskyQR2 and Householder QR on a matrix this
 * well conditioned; a wrong result (a stale or misplaced block) gives O(1). */
#define TOLERANCE 1e-10

/* The C BLACS, PBLAS (C, no hidden string lengths) and ScaLAPACK (Fortran:
 * a hidden length per character argument) of libscalapack-openmpi, which
 * installs no headers. */
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int notdone);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *context, const int *lld, int *info);
void pdsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
             const int *ia, const int *ja, const int *desca, const double *beta, double *c, const int *ic,
             const int *jc, const int *descc);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca, const double *b, const int *ib,
             const int *jb, const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);
void pdtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca, double *b,
             const int *ib, const int *jb, const int *descb);
void pdtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca, double *b,
             const int *ib, const int *jb, const int *descb);
void pdgeadd_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *ia,
              const int *ja, const int *desca, const double *beta, double *c, const int *ic, const int *jc,
              const int *descc);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *info,
              size_t);
void pdgeqrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca, double *tau,
              double *work, const int *lwork, int *info);
void pdorgqr_(const int *m, const int *n, const int *k, double *a, const int *ia, const int *ja, const int *desca,
              const double *tau, double *work, const int *lwork, int *info);
void pdlaset_(const char *uplo, const int *m, const int *n, const double *alpha, const double *beta, double *a,
              const int *ia, const int *ja, const int *desca, size_t);
double pdlange_(const char *norm, const int *m, const int *n, const double *a, const int *ia, const int *ja,
                const int *desca, double *work, size_t);

static const int i1 = 1;
static const double one = 1.0, zero = 0.0, minus_one = -1.0;

typedef struct {
    int m, n, ranks, rank;
    int mb;              /* row block: ceil(M/P), one block per rank */
    int mloc;            /* this rank's rows */
    size_t local;        /* elements of a local M x N piece (mloc x N) */
    int desc_a[9];       /* M x N, blocks mb x N: A, Q and the scratch */
    int desc_qr[9];      /* the same layout, blocks mb x N/4: PDGEQRF's panels */
    int desc_g[9];       /* N x N, one block, on rank 0: G, R and checks */
    double *a, *q, *scratch, *r, *r1;
    double *tau, *work; /* geqrf: PDGEQRF's and PDORGQR's */
    int lwork;
} problem;

static void fail(const char *what)
{
    fprintf(stderr, "cholqr: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void *alloc(size_t elements)
{
    double *p = malloc((elements ? elements : 1) * sizeof(double));
    if (!p)
        fail("out of memory");
    return p;
}

/* splitmix64 of the global index: the same A whatever the rank count. */
static double entry(uint64_t global)
{
    uint64_t z = global * 0x9e3779b97f4a7c15u + 0x632be59bd9b4e019u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

static void setup(problem *p, int context)
{
    int nprow, npcol, myrow, mycol, info, src = 0, lld, lld_g;
    Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
    p->mb = (p->m + p->ranks - 1) / p->ranks;
    /* R's rows 1..N must lie on rank 0, where the N x N matrices live. */
    if (p->mb < p->n)
        fail("M / ranks must be at least N");
    p->mloc = numroc_(&p->m, &p->mb, &myrow, &src, &nprow);
    /* ScaLAPACK indexes a local piece with int. */
    if ((int64_t)p->mb * p->n > INT32_MAX)
        fail("a rank's piece (M / ranks x N) exceeds 2^31 elements: use more ranks");
    p->local = (size_t)p->mloc * (size_t)p->n;
    lld = p->mloc > 1 ? p->mloc : 1;
    int nb_qr = p->n / 4 > 0 ? p->n / 4 : 1;
    int rows_g = numroc_(&p->n, &p->n, &myrow, &src, &nprow);
    lld_g = rows_g > 1 ? rows_g : 1;
    descinit_(p->desc_a, &p->m, &p->n, &p->mb, &p->n, &src, &src, &context, &lld, &info);
    if (info == 0)
        descinit_(p->desc_qr, &p->m, &p->n, &p->mb, &nb_qr, &src, &src, &context, &lld, &info);
    if (info == 0)
        descinit_(p->desc_g, &p->n, &p->n, &p->n, &p->n, &src, &src, &context, &lld_g, &info);
    if (info != 0)
        fail("descinit failed");
    p->a = alloc(p->local);
    p->q = alloc(p->local);
    p->scratch = alloc(p->local);
    p->r = alloc((size_t)lld_g * p->n);
    p->r1 = alloc((size_t)lld_g * p->n);
    /* This rank's rows start at global row rank * mb (one block each). */
    for (int j = 0; j < p->n; j++)
        for (int i = 0; i < p->mloc; i++)
            p->a[i + (size_t)j * lld] = entry((uint64_t)j * (uint64_t)p->m + (uint64_t)myrow * p->mb + i);
}

/* One CholeskyQR pass on Q: R = chol(Q^T Q), Q = Q R^-1.  R is zeroed
 * first: PDSYRK and PDPOTRF leave its lower triangle alone, and R = R2 R1
 * multiplies the whole of R1. */
static void cholqr_pass(const problem *p, double *r, double seconds[3])
{
    int info;
    pdlaset_("A", &p->n, &p->n, &zero, &zero, r, &i1, &i1, p->desc_g, 1);
    double t0 = MPI_Wtime();
    pdsyrk_("U", "T", &p->n, &p->m, &one, p->q, &i1, &i1, p->desc_a, &zero, r, &i1, &i1, p->desc_g);
    double t1 = MPI_Wtime();
    pdpotrf_("U", &p->n, r, &i1, &i1, p->desc_g, &info, 1);
    if (info != 0)
        fail("PDPOTRF: the Gram matrix is not positive definite");
    double t2 = MPI_Wtime();
    pdtrsm_("R", "U", "N", "N", &p->m, &p->n, &one, r, &i1, &i1, p->desc_g, p->q, &i1, &i1, p->desc_a);
    double t3 = MPI_Wtime();
    seconds[0] += t1 - t0;
    seconds[1] += t2 - t1;
    seconds[2] += t3 - t2;
}

/* CholeskyQR2 of A: Q in p->q, R in p->r.  seconds: gram, chol, trsm. */
static void cholqr2(problem *p, double seconds[3])
{
    memcpy(p->q, p->a, p->local * sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    seconds[0] = seconds[1] = seconds[2] = 0;
    cholqr_pass(p, p->r1, seconds);
    cholqr_pass(p, p->r, seconds);
    double t0 = MPI_Wtime();
    pdtrmm_("L", "U", "N", "N", &p->n, &p->n, &one, p->r, &i1, &i1, p->desc_g, p->r1, &i1, &i1, p->desc_g);
    seconds[1] += MPI_Wtime() - t0;
    double *r = p->r;
    p->r = p->r1;
    p->r1 = r;
}

/* The workspace of PDGEQRF and PDORGQR, allocated before the timed calls. */
static void geqrf_setup(problem *p)
{
    int info, lwork = -1;
    double query[2];
    p->tau = alloc((size_t)p->n);
    pdgeqrf_(&p->m, &p->n, p->q, &i1, &i1, p->desc_qr, p->tau, &query[0], &lwork, &info);
    if (info == 0)
        pdorgqr_(&p->m, &p->n, &p->n, p->q, &i1, &i1, p->desc_qr, p->tau, &query[1], &lwork, &info);
    if (info != 0)
        fail("the workspace query of PDGEQRF or PDORGQR failed");
    p->lwork = (int)(query[0] > query[1] ? query[0] : query[1]) + 1;
    p->work = alloc((size_t)p->lwork);
}

/* PDGEQRF of A into p->q (V below the diagonal, R on and above). */
static void geqrf(problem *p, double seconds[3])
{
    int info;
    memcpy(p->q, p->a, p->local * sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgeqrf_(&p->m, &p->n, p->q, &i1, &i1, p->desc_qr, p->tau, p->work, &p->lwork, &info);
    seconds[0] = MPI_Wtime() - t0;
    if (info != 0)
        fail("PDGEQRF failed");
}

/* After geqrf: R (upper triangle of the factor, rows 1..N, on rank 0) into
 * p->r, and Q formed in place by PDORGQR.  Not timed. */
static void geqrf_factors(problem *p)
{
    int info, lld = p->desc_a[8];
    if (p->rank == 0)
        for (int j = 0; j < p->n; j++)
            for (int i = 0; i < p->n; i++)
                p->r[i + (size_t)j * p->n] = i <= j ? p->q[i + (size_t)j * lld] : 0.0;
    pdorgqr_(&p->m, &p->n, &p->n, p->q, &i1, &i1, p->desc_qr, p->tau, p->work, &p->lwork, &info);
    if (info != 0)
        fail("PDORGQR failed");
}

/* orth = ||Q^T Q - I||_F, resid = ||Q R - A||_F / ||A||_F (every rank gets
 * both).  desc_a describes Q whichever case made it: with one process
 * column, the column block size leaves the local layout unchanged. */
static void check(problem *p, double *orth, double *resid)
{
    double unused;
    pdlaset_("A", &p->n, &p->n, &zero, &one, p->r1, &i1, &i1, p->desc_g, 1);
    pdgemm_("T", "N", &p->n, &p->n, &p->m, &one, p->q, &i1, &i1, p->desc_a, p->q, &i1, &i1, p->desc_a, &minus_one,
            p->r1, &i1, &i1, p->desc_g);
    *orth = pdlange_("F", &p->n, &p->n, p->r1, &i1, &i1, p->desc_g, &unused, 1);
    memcpy(p->scratch, p->q, p->local * sizeof(double));
    pdtrmm_("R", "U", "N", "N", &p->m, &p->n, &one, p->r, &i1, &i1, p->desc_g, p->scratch, &i1, &i1, p->desc_a);
    pdgeadd_("N", &p->m, &p->n, &minus_one, p->a, &i1, &i1, p->desc_a, &one, p->scratch, &i1, &i1, p->desc_a);
    *resid = pdlange_("F", &p->m, &p->n, p->scratch, &i1, &i1, p->desc_a, &unused, 1) /
             pdlange_("F", &p->m, &p->n, p->a, &i1, &i1, p->desc_a, &unused, 1);
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int parse(const char *s, long max, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > max)
        return 0;
    *out = (int)v;
    return 1;
}

int main(int argc, char **argv)
{
    problem p = {0};
    int repeats, is_qr = 0, context;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.ranks);
    if (argc < 4 || argc > 5 || !parse(argv[1], INT32_MAX, &p.m) || !parse(argv[2], 4096, &p.n) ||
        !parse(argv[3], 1000, &repeats) || p.n > p.m ||
        (argc == 5 && !(is_qr = !strcmp(argv[4], "geqrf")) && strcmp(argv[4], "cholqr2"))) {
        if (p.rank == 0)
            fprintf(stderr, "usage: mpirun -np P %s M N REPEATS [cholqr2|geqrf]  (1 <= N <= M)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    Cblacs_get(-1, 0, &context);
    Cblacs_gridinit(&context, "Col", p.ranks, 1);
    setup(&p, context);
    if (is_qr)
        geqrf_setup(&p);
    double *total = alloc((size_t)repeats), *phase[3];
    for (int k = 0; k < 3; k++)
        phase[k] = alloc((size_t)repeats);

    for (int it = -1; it < repeats; it++) {
        double s[4] = {0, 0, 0, 0};
        if (is_qr)
            geqrf(&p, s);
        else
            cholqr2(&p, s);
        s[3] = s[0] + s[1] + s[2];
        MPI_Allreduce(MPI_IN_PLACE, s, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it < 0)
            continue;
        for (int k = 0; k < 3; k++)
            phase[k][it] = s[k];
        total[it] = s[3];
    }
    if (is_qr)
        geqrf_factors(&p);
    double orth, resid;
    check(&p, &orth, &resid);
    int pass = orth < TOLERANCE && resid < TOLERANCE;

    if (p.rank == 0) {
        double best = total[0];
        for (int it = 1; it < repeats; it++)
            best = total[it] < best ? total[it] : best;
        printf("case=%s ranks=%d m=%d n=%d repeats=%d best_s=%.6g median_s=%.6g", is_qr ? "geqrf" : "cholqr2",
               p.ranks, p.m, p.n, repeats, best, median(total, repeats));
        if (!is_qr)
            printf(" gram_s=%.6g chol_s=%.6g trsm_s=%.6g", median(phase[0], repeats), median(phase[1], repeats),
                   median(phase[2], repeats));
        printf(" orth=%.3g resid=%.3g check=%s\n", orth, resid, pass ? "PASS" : "FAIL");
        fflush(stdout);
    }
    Cblacs_gridexit(context);
    Cblacs_exit(1);
    MPI_Finalize();
    return pass ? 0 : 1;
}
