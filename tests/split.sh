#!/bin/sh
# One call split across devices (src/multigpu/split_*.c), on a host with one GPU too:
# device 0 is listed twice, then three times (TSSHIM_SPLIT_DEVICES), so that
# every GPU call runs as two or three parts at once from as many threads,
# each with its own stream and cuBLAS handle (a column split's parts share
# A: each sends its columns, then copies the others' from the other parts'
# devices); where several GPUs are
# visible, split_gemm runs once more split across all of them (the
# default list), and the parts must name every device.
# TSSHIM_SPLIT_MIN_MS=0 splits every call.  tests/split_gemm (shapes that take several pipeline
# slices per part, A^T A, beta = 0 over NaN, beta = 1) and
# tests/gemm_differential (every scalar rule, size and view) are compared
# with OpenBLAS; the exit report must count split calls for every GEMM and
# no fallback, and the trace must show split=N and each part.  On a failure
# the report lines and the first failed parts are printed.  Skipped without
# a CUDA device.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
have_gpu || tap_skip_all "no CUDA device"

# check_report LABEL LOG: every sgemm_ .. zgemm_ line of the exit report has
# split= above 0 and fallbacks=0.
check_report() {
  awk '$1 == "tsshim:" && $2 ~ /^[sdcz]gemm_$/ && $3 ~ /^calls=/ {
         delete v
         for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         seen++
         if (v["fallbacks"] != 0 || v["split"] + 0 == 0) { print "# " $0; bad = 1 }
       }
       END { exit bad || seen != 4 }' "$2"
  tap_check $? "$1: the exit report counts split calls for sgemm_ .. zgemm_, no fallback"
}

run_env="TSSHIM_MODE=gpu TSSHIM_SPLIT=1 TSSHIM_SPLIT_MIN_MS=0 TSSHIM_MIN_LONG=512"
gpus=$(gpu_count)
all=
[ "$gpus" -ge 2 ] && all=$(seq -s, 0 $((gpus - 1)))
for devices in 0,0 0,0,0 $all; do
  parts=$(echo "$devices" | tr ',' '\n' | wc -l)
  log=$tap_tmp/split.$parts.$devices
  failed_before=$tap_fail
  # The list of every device is left to the default (empty).
  named=$devices
  [ "$devices" = "$all" ] && named=
  # A small staging ring: each part's pipeline takes several slices.
  tap_relay "split_gemm, devices $devices" env LD_PRELOAD="$TSSHIM_PRELOAD" $run_env TSSHIM_SPLIT_DEVICES=$named \
    TSSHIM_STAGING_MB=32 TSSHIM_VERBOSE=3 TSSHIM_LOG="$log" "$abs_top_builddir/tests/split_gemm"
  check_report "split_gemm, devices $devices" "$log"
  traced=$(grep -c "^tsshim: [sdcz]gemm_ .* run=gpu .* split=$parts " "$log")
  # Part i runs on the list's device i.
  part_lines=0
  i=0
  for d in $(echo "$devices" | tr ',' ' '); do
    part_lines=$((part_lines + $(grep -c "^tsshim: [sdcz]gemm_ split part $i/$parts device=$d " "$log")))
    i=$((i + 1))
  done
  failed=$(grep -c "^tsshim: [sdcz]gemm_ split part .* failed: " "$log")
  # Column splits (the regular shape) share A: every part reads the copy
  # made from its own share and the others' (peer to peer); no other split
  # does.
  col_parts=$(grep -c "^tsshim: [sdcz]gemm_ split part .* n=.* " "$log")
  col_shared=$(grep -c "^tsshim: [sdcz]gemm_ split part .* n=.* a=shared " "$log")
  other_shared=$(grep "^tsshim: [sdcz]gemm_ split part .* a=shared " "$log" | grep -vc " n=")
  [ "$col_parts" -gt 0 ] && [ "$col_shared" -eq "$col_parts" ] && [ "$other_shared" -eq 0 ]
  tap_check $? "split_gemm, devices $devices: $col_shared of $col_parts column-split parts read a shared A," \
    "$other_shared other parts"
  # The exit report's device lines: each listed device ran work.
  used=$(grep -cE "^tsshim: device ($(echo "$devices" | tr ',' '|')) runs=[1-9]" "$log")
  distinct=$(echo "$devices" | tr ',' '\n' | sort -u | wc -l)
  [ "$traced" -gt 0 ] && [ "$part_lines" -ge $((traced * parts)) ] && [ "$failed" -eq 0 ] && [ "$used" -eq "$distinct" ]
  tap_check $? "split_gemm, devices $devices: $traced calls traced with split=$parts, $part_lines part lines on" \
    "their devices, $failed failed parts, $used of $distinct devices in the exit report"
  if [ "$tap_fail" -gt "$failed_before" ]; then
    grep "^tsshim: [sdcz]gemm_ calls=" "$log" | sed 's/^/# /'
    grep "^tsshim: [sdcz]gemm_ split part .* failed: " "$log" | head -n 10 | sed 's/^/# /'
  fi
done

log=$tap_tmp/differential
tap_relay "gemm_differential, devices 0,0" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_EXPECT_GEMM_FROM="$TSSHIM_LIB" \
  $run_env TSSHIM_SPLIT_DEVICES=0,0 TSSHIM_VERBOSE=1 TSSHIM_LOG="$log" "$abs_top_builddir/tests/gemm_differential"
check_report "gemm_differential, devices 0,0" "$log"
tap_end
