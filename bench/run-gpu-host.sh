#!/bin/sh
# The whole validation on a GPU host without libtool or gfortran, from what
# .gpu/ carries: the release tarball (make dist), prebuilt netlib testers
# (tests/netlib/make-prebuilt.sh) and the demo programs built elsewhere.
#   run-gpu-host.sh check   configure + build (normal and fault-injection trees),
#                           make check, faults, demo, compute-sanitizer
#   run-gpu-host.sh bench   kernel benchmark, calibration, end-to-end benchmark
# Work happens in /tmp/tsshim-gpu (kept between the two phases on a warm
# machine); logs go to $OUT; a short summary comes last.
set -u
carry=$(cd "$(dirname "$0")/.." && pwd)/.gpu
out=${OUT:-/tmp/tsshim-out}
work=/tmp/tsshim-gpu
mkdir -p "$out" "$work"
log=$out/logs
mkdir -p "$log"

build_tree() { # dir configure-args...
  d=$1
  shift
  mkdir -p "$work/$d" && cd "$work/$d" && "$work/src/configure" -q "$@" >"$log/configure-$d.txt" 2>&1 &&
    make -j8 >"$log/make-$d.txt" 2>&1
  echo "build $d: exit $?"
}

case ${1:-check} in
check)
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  rm -rf "$work/src" && mkdir -p "$work/src" && tar xzf "$carry"/tsshim-*.tar.gz -C "$work/src" --strip-components=1
  s=$(date +%s)
  build_tree build &
  build_tree fault --enable-fault-injection &
  wait
  echo "builds: $(( $(date +%s) - s )) s"
  cd "$work/build" || exit 1
  TSSHIM_NETLIB_BIN=$carry/netlib timeout 300 make -j16 check >"$log/check.txt" 2>&1
  echo "make check: exit $?"
  cp test-suite.log "$log/test-suite.log"
  for f in tests/*.log tests/netlib/*.log; do cp "$f" "$log/" 2>/dev/null; done
  (cd "$work/fault" && timeout 120 make check TESTS=tests/faults.sh >"$log/faults-check.txt" 2>&1;
   echo "fault-injection build, tests/faults.sh: exit $?"; cp tests/faults.log "$log/faults-injection.log")
  for mode in auto gpu; do
    TSSHIM_MODE=$mode TSSHIM_LIB=$work/build/.libs/libtsshim.so timeout 120 \
      sh "$work/src/examples/run-demo.sh" "$carry"/demo/subspace_s "$carry"/demo/subspace_d "$carry"/demo/subspace_z \
      >"$log/demo-$mode.txt" 2>&1
    echo "demo ($mode): exit $?"
  done
  timeout 150 sh "$work/src/tests/run-compute-sanitizer.sh" >"$log/compute-sanitizer.txt" 2>&1
  echo "compute-sanitizer: exit $?"
  echo "== make check"; sed -n '/^# TOTAL/,/^# ERROR/p' "$log/test-suite.log"
  grep -hE '^(FAIL|ERROR|XPASS)' "$log/check.txt" | head -20
  grep -E '^(not ok|ok)' "$log/faults-injection.log" | grep -c '^ok' | sed 's/^/faults (injection build) ok points: /'
  grep -E '^not ok' "$log/faults-injection.log" | head
  echo "== compute-sanitizer"; grep -E '^(ok|not ok)' "$log/compute-sanitizer.txt"
  echo "== demo"; for m in auto gpu; do tail -8 "$log/demo-$m.txt"; done
  ;;
bench)
  cd "$work/build" || exit 1
  timeout 150 ./bench/bench_kernels "$out/bench_kernels.csv" >"$log/bench_kernels.txt" 2>&1
  echo "bench_kernels: exit $?"
  OUT=$out/datapath timeout 270 sh "$work/src/bench/run-datapath-gpu.sh" >"$log/datapath.txt" 2>&1
  echo "datapath: exit $?"
  cp "$out"/datapath/e2e.csv "$out"/datapath/profile "$out/" 2>/dev/null
  tail -60 "$log/bench_kernels.txt"
  tail -60 "$log/datapath.txt"
  ;;
esac
cd "$out" && tar czf logs.tar.gz logs datapath 2>/dev/null && rm -rf logs datapath
