#!/bin/sh
# Mid-size host-data calls (bench/bench_midsize.c): the CPU BLAS alone, the
# shim forced to the GPU, and the shim in auto mode with the defaults, in
# one run; writes CSV "case,bytes,gpu_us,bound_us,cpu_us,auto_us,target_us"
# where target_us = 2 bound_us + 30 (issue 42), and prints it as a table.
#   TSSHIM_LIB=.libs/libtsshim.so run-midsize.sh BENCH_MIDSIZE OUT.csv [FILTER]
set -eu
bench=$1 csv=$2 filter=${3:-}
. "$(dirname "$0")/three-ways.sh"
three_ways "$bench" "$filter"
awk -F, 'FILENAME == ARGV[1] && FNR > 1 { cpu[$1] = $3 }
         FILENAME == ARGV[2] && FNR > 1 { auto[$1] = $3 }
         FILENAME == ARGV[3] && FNR == 1 { print "case,bytes,gpu_us,bound_us,cpu_us,auto_us,target_us" }
         FILENAME == ARGV[3] && FNR > 1 { printf "%s,%s,%s,%s,%s,%s,%.1f\n", $1, $2, $3, $4, cpu[$1], auto[$1], 2 * $4 + 30 }' \
  "$tmp/cpu" "$tmp/auto" "$tmp/gpu" >"$csv"
sed -n '2p' "$tmp/gpu" | awk -F, '{ printf "pinned link: %s GB/s up, %s GB/s down\n", $5, $6 }'
awk -F, 'NR == 1 { printf "%-16s %9s %9s %9s %9s %9s %s\n", "case", "gpu_us", "bound_us", "target", "cpu_us", "auto_us", "gpu<=target"; next }
         { printf "%-16s %9.1f %9.1f %9.1f %9.1f %9.1f %s\n", $1, $3, $4, $7, $5, $6, ($3 <= $7 ? "yes" : "no") }' "$csv"
