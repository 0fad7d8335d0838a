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
# tap_same_as_plain PATTERN WHAT COMMAND...: a point per mode (cpu, auto,
# gpu) saying that COMMAND under the shim prints what it prints without it
# and exits with the same status, its output matching PATTERN (grep -i):
# bad arguments reported by the CPU BLAS's own error handler.
tap_same_as_plain() {
  pattern=$1
  what=$2
  shift 2
  "$@" >"$tap_tmp/plain" 2>&1
  plain_status=$?
  for mode in cpu auto gpu; do
    LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_MODE=$mode "$@" >"$tap_tmp/shim" 2>&1
    shim_status=$?
    [ $plain_status -eq $shim_status ] && cmp -s "$tap_tmp/plain" "$tap_tmp/shim" && grep -qi "$pattern" "$tap_tmp/plain"
    tap_check $? "$what, mode $mode: same report and status ($plain_status) as without the shim"
  done
}
# tap_huge_pages LAUNCHER...: a point per case of the GLIBC_TUNABLES that a
# program run by LAUNCHER sees (tools/tsshim and the Python launcher must
# agree): glibc.malloc.hugetlb=1 added unless TSSHIM_HUGE_PAGES=0 or the
# user named that tunable, and a TSSHIM_HUGE_PAGES other than 0 or 1 refused.
tap_huge_pages() {
  while IFS='|' read -r want given; do
    # shellcheck disable=SC2086
    env -u GLIBC_TUNABLES -u TSSHIM_HUGE_PAGES $given "$@" sh -c 'echo "${GLIBC_TUNABLES-unset}"' \
      </dev/null >"$tap_tmp/tunables" 2>"$tap_tmp/tunables.err"
    [ "$(cat "$tap_tmp/tunables")" = "$want" ]
    tap_check $? "${given:-nothing set}: the program sees GLIBC_TUNABLES $want (got: $(cat "$tap_tmp/tunables"))"
  done <<CASES
glibc.malloc.hugetlb=1|
a=b:glibc.malloc.hugetlb=1|GLIBC_TUNABLES=a=b
glibc.malloc.hugetlb=0|GLIBC_TUNABLES=glibc.malloc.hugetlb=0
unset|TSSHIM_HUGE_PAGES=0
glibc.malloc.hugetlb=1|TSSHIM_HUGE_PAGES= GLIBC_TUNABLES=
CASES
  env TSSHIM_HUGE_PAGES=x "$@" sh -c 'echo ran' </dev/null >"$tap_tmp/tunables" 2>"$tap_tmp/tunables.err"
  status=$?
  [ $status -eq 2 ] && [ ! -s "$tap_tmp/tunables" ] && grep -q "TSSHIM_HUGE_PAGES must be 0 or 1 (got 'x')" "$tap_tmp/tunables.err"
  tap_check $? "TSSHIM_HUGE_PAGES=x: refused, status 2 (got $status: $(head -1 "$tap_tmp/tunables.err"))"
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
