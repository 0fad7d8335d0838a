# TSSHIM_CHECK_OPENBLAS
# --with-openblas=PATH (a library file or a directory holding libopenblas.so*).
# The tests dlopen this library as their reference, so what matters is the
# absolute path of a loadable shared object.  Sets OPENBLAS_LIB, the
# OPENBLAS_LIBRARY define and the HAVE_OPENBLAS conditional.
AC_DEFUN([TSSHIM_CHECK_OPENBLAS], [
AC_ARG_WITH([openblas],
  [AS_HELP_STRING([--with-openblas=PATH],
    [OpenBLAS shared library (file or directory) used as the tests' reference (default: the system's)])],
  [], [with_openblas=auto])
OPENBLAS_LIB=""
AS_CASE([$with_openblas],
  [no], [],
  [auto], [tsshim_ob_candidates="/usr/lib/x86_64-linux-gnu/openblas-pthread /usr/lib/x86_64-linux-gnu/openblas-openmp /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib /usr/lib/aarch64-linux-gnu/openblas-pthread /usr/lib/aarch64-linux-gnu"],
  [tsshim_ob_candidates=$with_openblas])
AC_MSG_CHECKING([for the OpenBLAS shared library])
for tsshim_ob in $tsshim_ob_candidates; do
  AS_IF([test -f "$tsshim_ob"], [OPENBLAS_LIB=$tsshim_ob; break])
  for tsshim_ob_name in libopenblas.so.0 libopenblas.so; do
    AS_IF([test -f "$tsshim_ob/$tsshim_ob_name"], [OPENBLAS_LIB="$tsshim_ob/$tsshim_ob_name"; break 2])
  done
done
AS_IF([test -n "$OPENBLAS_LIB"], [AC_MSG_RESULT([$OPENBLAS_LIB])], [AC_MSG_RESULT([no])])
AS_IF([test -z "$OPENBLAS_LIB" && test "x$with_openblas" != xauto && test "x$with_openblas" != xno],
  [AC_MSG_ERROR([no OpenBLAS shared library at $with_openblas])])
AC_DEFINE_UNQUOTED([OPENBLAS_LIBRARY], ["$OPENBLAS_LIB"], [OpenBLAS library the tests dlopen as reference])
AC_SUBST([OPENBLAS_LIB])
AM_CONDITIONAL([HAVE_OPENBLAS], [test -n "$OPENBLAS_LIB"])
])
