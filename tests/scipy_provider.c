/* SciPy's bundled OpenBLAS as tsshim sees it: the LP64 routines under the
 * scipy_ prefix and no suffix (scipy_dgemm_, scipy_cblas_dgemm, ...: the
 * rows TS_LP64_ROUTINES(X, scipy_) of the routine list).  SciPy's wheels
 * are not packaged here, so each name is a jump to the plain-named routine
 * of the LP64 OpenBLAS named by TSSHIM_TEST_SCIPY_BLAS (default
 * libopenblas.so.0), opened with dlopen(RTLD_LOCAL) from this object, so
 * never the shim's.  The client opens this library with dlopen(RTLD_LOCAL)
 * after start, as SciPy opens its libscipy_openblas.
 * tsshim_scipy_provider_plain(name) is the OpenBLAS routine behind a name
 * (the client's reference), NULL when it cannot serve.  x86-64 only
 * (tests/provider_jumps.h). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "common/routine_list.h"
#include "provider_jumps.h"

void *tsshim_scipy_provider_plain(const char *name);

#if defined(__x86_64__) && defined(__ELF__)
#define ROUTINES(X) TS_LP64_ROUTINES(X, scipy_)
PROVIDER_JUMPS(ROUTINES)

static int serving;

__attribute__((constructor)) static void open_provider(void)
{
    const char *path = getenv("TSSHIM_TEST_SCIPY_BLAS");
    void *h = dlopen(path && *path ? path : "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (!(*targets[i].target = dlsym(h, targets[i].name + strlen("scipy_"))))
            return;
    serving = 1;
}

void *tsshim_scipy_provider_plain(const char *name)
{
    for (size_t i = 0; serving && i < sizeof targets / sizeof targets[0]; i++)
        if (!strcmp(targets[i].name, name))
            return *targets[i].target;
    return NULL;
}
#else
void *tsshim_scipy_provider_plain(const char *name) { return (void)name, NULL; }
#endif
