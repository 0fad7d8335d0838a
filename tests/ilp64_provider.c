/* A real ILP64 BLAS under the names tsshim intercepts for it (dgemm_64_,
 * cblas_dgemm64_, scipy_dgemm_64_, ...: the ILP64 rows of the routine
 * list).  Debian's libopenblas64 is built with 64-bit integers but keeps
 * the plain names (dgemm_), which the LP64 rows own; OpenBLAS builds with
 * SYMBOLSUFFIX=64_ (and NumPy's scipy-openblas64) are not packaged here.
 * So each name is a jump to the plain-named routine of the library named
 * by TSSHIM_TEST_ILP64_BLAS (default libopenblas64.so.0), opened with
 * RTLD_DEEPBIND so that its own calls (xerbla_ included) stay inside it:
 * the arguments and the error reports are that library's (without it,
 * its own exported internals would bind to the LP64 OpenBLAS's of the same
 * names).  tsshim_ilp64_provider_missing() says why it cannot serve, or
 * NULL.  x86-64 only: the jumps are assembly, which passes any signature
 * untouched. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "common/routine_list.h"
#include "provider_jumps.h"

const char *tsshim_ilp64_provider_missing(void);

#if defined(__x86_64__) && defined(__ELF__)
#define ROUTINES(X) TS_ILP64_ROUTINES(X, ) TS_ILP64_ROUTINES(X, scipy_)
PROVIDER_JUMPS(ROUTINES)

static const char *missing = "not opened";

/* dgemm_64_ -> dgemm_, scipy_cblas_dgemm64_ -> cblas_dgemm. */
static void plain_name(const char *name, char *out, size_t size)
{
    if (!strncmp(name, "scipy_", 6))
        name += 6;
    size_t len = strlen(name) - 3; /* "64_" */
    if (len >= size)
        len = size - 1;
    memcpy(out, name, len);
    out[len] = 0;
}

__attribute__((constructor)) static void open_provider(void)
{
    if (dlsym(RTLD_DEFAULT, "__asan_init")) {
        missing = "the sanitizer runtime refuses RTLD_DEEPBIND";
        return;
    }
    const char *path = getenv("TSSHIM_TEST_ILP64_BLAS");
    void *h = dlopen(path && *path ? path : "libopenblas64.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        missing = "no ILP64 BLAS (TSSHIM_TEST_ILP64_BLAS, default libopenblas64.so.0)";
        return;
    }
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char plain[64];
        plain_name(targets[i].name, plain, sizeof plain);
        if (!(*targets[i].target = dlsym(h, plain))) {
            missing = "the ILP64 BLAS lacks a routine";
            return;
        }
    }
    missing = NULL;
}

const char *tsshim_ilp64_provider_missing(void) { return missing; }
#else
const char *tsshim_ilp64_provider_missing(void) { return "the provider's jumps are x86-64 assembly"; }
#endif
