# TSSHIM_CHECK_CUDA
# --with-cuda=auto|yes|no|PATH and --with-cuda-arch=sm_NN.  Sets NVCC,
# NVCCFLAGS, CUDA_CPPFLAGS, CUDA_LDFLAGS, CUDA_LIBS, the HAVE_CUDA
# conditional and define.  With auto, a missing toolkit only disables the GPU
# backend: the shim still builds and forwards every call.
AC_DEFUN([TSSHIM_CHECK_CUDA], [
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda=auto|yes|no|PATH],
    [build the GPU backend with the CUDA toolkit (default: auto; PATH is the toolkit root)])],
  [], [with_cuda=auto])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=sm_NN], [GPU architecture to compile for (default: sm_90)])],
  [], [with_cuda_arch=sm_90])

tsshim_cuda_ok=no
AS_CASE([$with_cuda],
  [no], [],
  [yes|auto], [tsshim_cuda_root=""],
  [tsshim_cuda_root=$with_cuda])
AS_IF([test "x$with_cuda" != xno], [
  AS_IF([test -z "$tsshim_cuda_root"], [
    AC_PATH_PROG([NVCC], [nvcc], [], [$PATH:/usr/local/cuda/bin])
    AS_IF([test -n "$NVCC"],
      [tsshim_cuda_root=`dirname "$NVCC"`; tsshim_cuda_root=`dirname "$tsshim_cuda_root"`])
  ], [
    NVCC="$tsshim_cuda_root/bin/nvcc"
  ])
  AS_IF([test -n "$NVCC" && test -x "$NVCC"], [
    tsshim_cuda_libdir="$tsshim_cuda_root/lib64"
    AS_IF([test -d "$tsshim_cuda_libdir"], [], [tsshim_cuda_libdir="$tsshim_cuda_root/lib"])
    CUDA_CPPFLAGS="-I$tsshim_cuda_root/include"
    CUDA_LDFLAGS="-L$tsshim_cuda_libdir -Wl,-rpath,$tsshim_cuda_libdir"
    CUDA_LIBS="-lcublas -lcudart"
    tsshim_save_CPPFLAGS=$CPPFLAGS
    tsshim_save_LIBS=$LIBS
    tsshim_save_LDFLAGS=$LDFLAGS
    CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
    LDFLAGS="$LDFLAGS $CUDA_LDFLAGS"
    LIBS="$CUDA_LIBS $LIBS"
    AC_MSG_CHECKING([for the CUDA runtime and cuBLAS in $tsshim_cuda_root])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>
#include <cublas_v2.h>]], [[cublasHandle_t h; int n; cudaGetDeviceCount(&n); return cublasCreate(&h);]])],
      [tsshim_cuda_ok=yes], [tsshim_cuda_ok=no])
    AC_MSG_RESULT([$tsshim_cuda_ok])
    CPPFLAGS=$tsshim_save_CPPFLAGS
    LIBS=$tsshim_save_LIBS
    LDFLAGS=$tsshim_save_LDFLAGS
  ])
  AS_IF([test "x$with_cuda" != xauto && test "x$tsshim_cuda_ok" != xyes],
    [AC_MSG_ERROR([CUDA was requested (--with-cuda=$with_cuda) but nvcc, the CUDA runtime or cuBLAS is missing])])
])
tsshim_arch_num=`echo "$with_cuda_arch" | sed 's/^sm_//'`
NVCCFLAGS="-O3 -std=c++17 -gencode=arch=compute_$tsshim_arch_num,code=sm_$tsshim_arch_num -Xcompiler=-fvisibility=hidden"
# Objects nvcc compiled need the C++ runtime wherever a C linker links them.
AS_IF([test "x$tsshim_cuda_ok" = xyes],
  [CUDA_LIBS="$CUDA_LIBS -lstdc++"],
  [CUDA_CPPFLAGS=""; CUDA_LDFLAGS=""; CUDA_LIBS=""])
AC_DEFINE_UNQUOTED([TSSHIM_CUDA_ARCH], [$tsshim_arch_num], [GPU architecture the kernels are compiled for])
AC_SUBST([NVCC])
AC_SUBST([NVCCFLAGS])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LDFLAGS])
AC_SUBST([CUDA_LIBS])
AM_CONDITIONAL([HAVE_CUDA], [test "x$tsshim_cuda_ok" = xyes])
])
