# Sourced by bench/run-midsize.sh and bench/run-level3-host.sh: three_ways
# BENCH ARGS... runs the benchmark without the shim, with the shim forced to
# the GPU and with the shim in auto mode with the defaults, into $tmp/cpu,
# $tmp/gpu and $tmp/auto ($tmp: a fresh folder, removed at exit).
three_ways() {
  lib=${TSSHIM_LIB:?TSSHIM_LIB names libtsshim.so}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$@" >"$tmp/cpu"
  LD_PRELOAD="$lib" TSSHIM_MODE=gpu "$@" >"$tmp/gpu"
  LD_PRELOAD="$lib" TSSHIM_MODE=auto "$@" >"$tmp/auto"
}
