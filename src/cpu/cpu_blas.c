#include "cpu/cpu_blas.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common/cblas.h"
#include "util/configuration.h"
#include "cpu/forward_level3.h"
#include "util/log.h"

_Atomic(ts_gemm_fn) ts_cpu_resolved[TS_NROUTINE];

/* Base address of the object holding this code: what must never be the target. */
static void *own_base(void)
{
    Dl_info info;
    return dladdr((void *)own_base, &info) ? info.dli_fbase : NULL;
}

static int is_own(void *fn)
{
    Dl_info info;
    return !fn || (dladdr(fn, &info) && info.dli_fbase == own_base());
}

struct search {
    const char *symbol;
    void *found;
};

/* dl_iterate_phdr callback: the first loaded object, other than the
 * executable and the shim, that defines the symbol. */
static int search_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct search *s = data;
    if (!info->dlpi_name || !info->dlpi_name[0] || (void *)info->dlpi_addr == own_base())
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *fn = dlsym(h, s->symbol);
    if (fn && !is_own(fn)) {
        s->found = fn; /* the handle stays open so the object stays loaded */
        return 1;
    }
    dlclose(h);
    return 0;
}

static void *resolve(ts_routine r)
{
    const char *sym = ts_routine_symbol(r);
    const char *path = ts_config_get()->cpu_blas;
    if (path[0]) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        void *fn = h ? dlsym(h, sym) : NULL;
        if (!is_own(fn))
            return fn;
        ts_log(1, "TSSHIM_CPU_BLAS=%s does not provide %s (%s); searching the loaded objects", path, sym,
               h ? "symbol missing" : dlerror());
    }
    void *fn = dlsym(RTLD_NEXT, sym);
    if (!is_own(fn))
        return fn;
    struct search s = { sym, NULL };
    dl_iterate_phdr(search_object, &s);
    return s.found;
}

void *ts_cpu_blas_find(ts_routine r) { return resolve(r); }

int ts_cpu_blas_linked(void) { return resolve(ts_gemm_routine(TS_D)) != NULL; }

ts_gemm_fn ts_cpu_gemm_resolve(ts_routine r)
{
    ts_gemm_fn fn, none = NULL;
    void *sym = resolve(r);
    if (!sym) {
        ts_log_error("no CPU BLAS provides %s: link the program with a BLAS (e.g. -lopenblas) "
                     "or set TSSHIM_CPU_BLAS=/path/to/libopenblas.so", ts_routine_symbol(r));
        _exit(127);
    }
    /* Converting the object pointer from dlsym is how POSIX hands out functions. */
    memcpy(&fn, &sym, sizeof fn);
    /* Threads resolving at once find the same symbol: the first one says where. */
    if (atomic_compare_exchange_strong_explicit(&ts_cpu_resolved[r], &none, fn, memory_order_acq_rel,
                                                memory_order_acquire)) {
        Dl_info info;
        const ElfW(Sym) *entry = NULL;
        int found = dladdr1(sym, &info, (void **)&entry, RTLD_DL_SYMENT);
        /* A protected definition (the wheels' OpenBLAS) binds its own
         * library's calls to it, its LAPACK's, inside that library. */
        int protected = found && entry && ELF64_ST_VISIBILITY(entry->st_other) == STV_PROTECTED;
        ts_log(2, "%s served by %s%s", ts_routine_symbol(r),
               found && info.dli_fname && info.dli_fname[0] ? info.dli_fname : "the program",
               protected ? " (protected: that library's own LAPACK calls it directly, not through tsshim)" : "");
    }
    return fn;
}

#define GEMM_ARGS(SCALAR)                                                                               \
    a->layout, a->transa, a->transb, a->m, a->n, a->k, SCALAR(a->alpha), a->a, a->lda, a->b, a->ldb,        \
        SCALAR(a->beta), a->c, a->ldc

void ts_forward_cblas(ts_routine r, const ts_cblas_args *a)
{
    TS_CBLAS_FORWARD(ts_cpu_gemm(r), ts_routine_prec(r), ts_routine_ilp64(r), GEMM, GEMM_ARGS);
}

void ts_forward(const ts_call *c)
{
    if (ts_routine_args(c->routine) != TS_ARGS_GEMM) {
        ts_forward_level3(c);
        return;
    }
    if (ts_routine_cblas(c->routine)) {
        ts_forward_cblas(c->routine, c->cb);
        return;
    }
    /* F77 and F77_64: the pointers as received, whatever their integers' width. */
    const ts_fortran_args *f = &c->f;
    ts_cpu_gemm(c->routine)(f->transa, f->transb, f->m, f->n, f->k, f->alpha, f->a, f->lda, f->b, f->ldb,
                            f->beta, f->c, f->ldc, f->transa_len, f->transb_len);
}

void ts_cpu_gemm_descriptor(const ts_call *s)
{
    ts_routine r = ts_family_gemm_routine(s->routine);
    ts_gemm_fn fn = ts_cpu_gemm(r);
    if (ts_routine_ilp64(r)) {
        const int64_t d[6] = { s->m, s->n, s->k, s->lda, s->ldb, s->ldc };
        ((ts_gemm64_fn)fn)(&s->transa, &s->transb, &d[0], &d[1], &d[2], s->alpha, s->a, &d[3], s->b, &d[4], s->beta,
                           s->c, &d[5], 1, 1);
        return;
    }
    const int d[6] = { (int)s->m, (int)s->n, (int)s->k, (int)s->lda, (int)s->ldb, (int)s->ldc };
    fn(&s->transa, &s->transb, &d[0], &d[1], &d[2], s->alpha, s->a, &d[3], s->b, &d[4], s->beta, s->c, &d[5], 1, 1);
}
