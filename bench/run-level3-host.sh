#!/bin/sh
# Level-3 calls on host data (bench/bench_level3_host.c, issue 43): the CPU
# BLAS alone, the shim forced to the GPU, and the shim in auto mode with the
# defaults, in one run; writes CSV "case,bytes,cpu_us,gpu_us,auto_us,bound_us"
# where bound_us is the bytes at the pinned link rate the forced run
# measured, and prints it as a table with the shim runs' checks against
# OpenBLAS (gpu/auto).  Exits 1 when a check failed.
#   TSSHIM_LIB=.libs/libtsshim.so run-level3-host.sh BENCH_LEVEL3_HOST OUT.csv [FILTER [LOG2_LONG [LOG2_SQUARE]]]
set -eu
bench=$1 csv=$2
shift 2
. "$(dirname "$0")/three-ways.sh"
three_ways "$bench" "$@"
awk -F, 'FILENAME == ARGV[1] && FNR > 1 { cpu[$1] = $3 }
         FILENAME == ARGV[2] && FNR > 1 { auto[$1] = $3 }
         FILENAME == ARGV[3] && FNR == 1 { print "case,bytes,cpu_us,gpu_us,auto_us,bound_us" }
         FILENAME == ARGV[3] && FNR > 1 { printf "%s,%s,%s,%s,%s,%s\n", $1, $2, cpu[$1], $3, auto[$1], $4 }' \
  "$tmp/cpu" "$tmp/auto" "$tmp/gpu" >"$csv"
sed -n '2p' "$tmp/gpu" | awk -F, '{ printf "pinned link: %s GB/s up, %s GB/s down\n", $5, $6 }'
awk -F, 'FILENAME == ARGV[1] && FNR > 1 { gpu[$1] = $7 }
         FILENAME == ARGV[2] && FNR > 1 { auto[$1] = $7 }
         FILENAME == ARGV[3] && FNR == 1 { printf "%-14s %9s %11s %11s %11s %11s %s\n", "case", "MB", "cpu_us", "gpu_us", "auto_us", "bound_us", "check"; next }
         FILENAME == ARGV[3] { printf "%-14s %9.1f %11.1f %11.1f %11.1f %11.1f %s/%s\n", $1, $2 / 1e6, $3, $4, $5, $6, gpu[$1], auto[$1] }' \
  "$tmp/gpu" "$tmp/auto" "$csv"
if grep -q ',FAIL$' "$tmp/cpu" "$tmp/gpu" "$tmp/auto"; then
  echo "run-level3-host.sh: a result differs from OpenBLAS's (bench_level3_host's messages name the case)" >&2
  exit 1
fi
