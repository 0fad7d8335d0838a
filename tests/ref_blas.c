/* Loads the reference OpenBLAS privately (RTLD_LOCAL) and proves that every
 * resolved GEMM lives in that object: a preloaded shim must never end up as
 * its own reference. */
#include "ref_blas.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OPENBLAS_LIBRARY
#error "OPENBLAS_LIBRARY (path of libopenblas.so.0) must come from config.h or -D"
#endif

static const char *const symbols[TS_NPREC] = { "sgemm_", "dgemm_", "cgemm_",
                                               "zgemm_" };
static gemm_f77 *table[TS_NPREC];
static const char *opened_path;

const char *gemm_symbol(ts_prec p) { return symbols[p]; }

const char *ref_blas_path(void) { return opened_path; }

gemm_f77 *ref_gemm(ts_prec p) { return table[p]; }

/* Checks that fn is defined inside the object of the handle (dladdr names
 * the object containing an address; dlinfo names the handle's object). */
static int inside_object(void *handle, void *fn, const char *sym, char *err,
                         size_t errlen)
{
    struct link_map *lm = NULL;
    Dl_info info;

    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
        snprintf(err, errlen, "dlinfo: %s", dlerror());
        return 0;
    }
    if (dladdr(fn, &info) == 0 || info.dli_fname == NULL) {
        snprintf(err, errlen, "dladdr cannot place %s", sym);
        return 0;
    }
    if (strstr(info.dli_fname, "libtsshim") != NULL) {
        snprintf(err, errlen, "%s resolved into the shim %s", sym,
                 info.dli_fname);
        return 0;
    }
    if (strcmp(info.dli_fname, lm->l_name) != 0) {
        snprintf(err, errlen, "%s resolved into %s, not %s", sym,
                 info.dli_fname, lm->l_name);
        return 0;
    }
    return 1;
}

static void *opened;

void *ref_blas_symbol(const char *name, char *err, size_t errlen)
{
    void *fn = opened ? dlsym(opened, name) : NULL;
    if (fn == NULL) {
        snprintf(err, errlen, "%s not found in %s", name, opened_path ? opened_path : "(nothing opened)");
        return NULL;
    }
    return inside_object(opened, fn, name, err, errlen) ? fn : NULL;
}

int ref_blas_open(char *err, size_t errlen)
{
    const char *path = getenv("OPENBLAS_LIB");
    void *handle;

    if (path == NULL || path[0] == '\0')
        path = OPENBLAS_LIBRARY;
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(err, errlen, "dlopen: %s", dlerror());
        return -1;
    }
    for (int p = 0; p < TS_NPREC; p++) {
        void *fn = dlsym(handle, symbols[p]);

        if (fn == NULL) {
            snprintf(err, errlen, "%s not found in %s", symbols[p], path);
            return -1;
        }
        if (!inside_object(handle, fn, symbols[p], err, errlen))
            return -1;
        table[p] = (gemm_f77 *)fn;
    }
    opened_path = path;
    opened = handle;
    return 0;
}

int ref_resolves_into(const char *name, const char *want)
{
    char real_want[PATH_MAX] = "", got[PATH_MAX];
    if (!realpath(want, real_want))
        snprintf(real_want, sizeof real_want, "%s", want);
    Dl_info info;
    void *fn = dlsym(RTLD_DEFAULT, name);
    if (fn && dladdr(fn, &info) && info.dli_fname && realpath(info.dli_fname, got) && !strcmp(got, real_want))
        return 1;
    printf("# %s does not come from %s\n", name, real_want);
    return 0;
}
