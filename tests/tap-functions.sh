# TAP helpers for the POSIX sh tests (sourced).
tap_n=0
tap_fail=0
# ok COND-STATUS DESCRIPTION: reports the status of the last command.
tap_check() {
  status=$1
  shift
  tap_n=$((tap_n + 1))
  if [ "$status" -eq 0 ]; then
    echo "ok $tap_n - $*"
  else
    echo "not ok $tap_n - $*"
    tap_fail=$((tap_fail + 1))
  fi
}
tap_skip_all() {
  echo "1..0 # SKIP $*"
  exit 0
}
tap_end() {
  echo "1..$tap_n"
  [ "$tap_fail" -eq 0 ]
}
# A scratch directory removed at exit.
tap_tmp=$(mktemp -d "${TMPDIR:-/tmp}/tsshim-test.XXXXXX") || exit 1
trap 'rm -rf "$tap_tmp"' EXIT
client=$abs_top_builddir/tests/blas_client
[ -f "$TSSHIM_LIB" ] || tap_skip_all "shim not built at $TSSHIM_LIB"
