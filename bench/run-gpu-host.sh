#!/bin/sh
# The whole validation on a GPU host without libtool or gfortran, from what
# .gpu/ carries: the release tarball (make dist), prebuilt netlib testers
# (tests/netlib/make-prebuilt.sh) and the demo programs built elsewhere.
#   run-gpu-host.sh check   three trees built at once (normal, fault injection,
#                           ASan+UBSan), then at once: make check in the normal
#                           and the sanitizer tree, the fault points in the
#                           fault tree, compute-sanitizer (one process per
#                           tool); then the demo.  Bounded to TSSHIM_GPU_SECONDS (570: racecheck
#                           ran out of time at 520 on an H200) plus packing.
#   run-gpu-host.sh bench   kernel benchmark (TSSHIM_BENCH_KERNELS=0 skips it),
#                           forwarding overhead, calibration, end-to-end
#                           benchmark; builds the normal tree first when the
#                           machine no longer has it
#   run-gpu-host.sh multigpu  a host with several GPUs: the normal tree, the
#                           split tests, one call split across every GPU
#                           (bench/run-split.sh)
#   run-gpu-host.sh split   that benchmark alone (the normal tree built
#                           first when the machine no longer has it)
#   run-gpu-host.sh measure device 0 alone (CUDA_VISIBLE_DEVICES), OpenBLAS
#                           on 16 threads (OPENBLAS_NUM_THREADS): level-3
#                           routines on device data (bench_level3_gpu), a
#                           calibration, the end-to-end benchmark's reuse,
#                           chain and program cases and the call cases
#                           named by TSSHIM_MEASURE_CASES, the reuse cases
#                           again with huge pages for malloc
#                           (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), the
#                           program cases with the GPU started at load
#                           (TSSHIM_BACKGROUND_START=2), six ScaLAPACK
#                           testers forced to the GPU (4 ranks, MPS) with
#                           the start on the first call and at load, and the
#                           demo at its realistic size in auto mode (D and S
#                           60 iterations, D again with huge pages, Z 20;
#                           demo-default, not by default: S, D and Z at the
#                           programs' own default size (n = 6000), 5 runs each side;
#                           demo-early, not by default: D with huge pages,
#                           the GPU started at load and TSSHIM_MIN_FLOPS=1e7);
#                           TSSHIM_MEASURE names the steps (level3
#                           calibrate e2e hugepages startload scalapack demo
#                           demo-hugepages demo-z), TSSHIM_MEASURE_REUSE the
#                           e2e step's cases, TSSHIM_MEASURE_DEMO_REPEATS
#                           the demo's runs (2); builds the normal tree
#                           first when the machine no longer has it
#   run-gpu-host.sh mpi     ScaLAPACK's testers with TSSHIM_SCALAPACK_NP (8)
#                           ranks spread over the GPUs under MPS
#                           (.gpu/scalapack/tests and lib: the testers and
#                           libscalapack-openmpi of a Debian machine), gpu
#                           mode without the ?syevr testers (millions of tiny
#                           calls), auto mode with all; then the CholeskyQR2
#                           benchmark (.gpu/scalapack/cholqr) at 4 and 8
#                           ranks (TSSHIM_GPU_CHOLQR=0 skips it); builds the
#                           normal tree first when the machine no longer has it
#                           (.gpu/scalapack/tests: cp -rL of the package's
#                           folder, whose .dat inputs are links)
# Several phases may be named; they run in order.  The multigpu phase's
# tests are TSSHIM_MULTIGPU_TESTS (default split.sh, gemm_differential_gpu.sh
# and residency_gpu.sh).  Work happens in /tmp/tsshim-gpu (kept between
# phases on a warm machine); logs go to $OUT/logs.tar.gz; a short summary
# comes last, one line per suite.
set -u
carry=$(cd "$(dirname "$0")/.." && pwd)/.gpu
out=${OUT:-/tmp/tsshim-out}
work=/tmp/tsshim-gpu
mkdir -p "$out" "$work"
log=$out/logs
mkdir -p "$log"
start=$(date +%s)
# Three trees build at once in the check phase; one alone takes more cores.
jobs=6
[ "${1:-check}" = check ] || jobs=$(nproc)
deadline=$((start + ${TSSHIM_GPU_SECONDS:-570}))

# Seconds left before the deadline, less a reserve; at least 10.
left() {
  l=$((deadline - $(date +%s) - $1))
  [ $l -gt 10 ] && echo $l || echo 10
}

# build_tree DIR CONFIGURE-ARGS...: configure, build, and build the test
# programs (make check with no tests), so that anything may run next.
build_tree() {
  d=$1
  shift
  mkdir -p "$work/$d" && cd "$work/$d" && "$work/src/configure" -q "$@" >"$log/configure-$d.txt" 2>&1 &&
    make -j"$jobs" >"$log/make-$d.txt" 2>&1 && make -j"$jobs" check TESTS= >>"$log/make-$d.txt" 2>&1
  echo "build $d: exit $?" >"$log/status-build-$d.txt"
}

# run_check DIR NAME TIMEOUT [MAKE-ARGS...]: make check in a tree; its logs
# are copied to logs/NAME/.
run_check() {
  d=$1
  name=$2
  t=$3
  shift 3
  cd "$work/$d" || return
  TSSHIM_NETLIB_BIN=$carry/netlib timeout -k 10 "$t" make check "$@" >"$log/check-$name.txt" 2>&1
  echo "$?" >"$log/status-$name.txt"
  mkdir -p "$log/$name"
  cp test-suite.log tests/*.log tests/netlib/*.log "$log/$name/" 2>/dev/null
}

# cs_tool TOOL TIMEOUT: compute-sanitizer with one tool over every GPU test;
# racecheck's differential run alone takes most of its time, memcheck's
# kernel tests half of it (134 s of an H200 did not suffice).
cs_tool() {
  cd "$work/build" || return
  per=$(($2 / 3))
  [ "$1" != memcheck ] || per=$(($2 / 2))
  [ "$1" != racecheck ] || per=$(($2 * 2 / 3))
  CS_TIMEOUT=$per timeout -k 10 "$2" env abs_top_builddir="$work/build" abs_top_srcdir="$work/src" \
    sh "$work/src/tests/run-compute-sanitizer.sh" "$1" >"$log/cs-$1.txt" 2>&1
  echo "$?" >"$log/status-cs-$1.txt"
}

# Counts of a make check tree, from its test-suite.log.
suite_counts() {
  f=$log/$1/test-suite.log
  [ -f "$f" ] || { echo "no test-suite.log (exit $(cat "$log/status-$1.txt" 2>/dev/null))"; return; }
  c() { sed -n "s/^# $1: *//p" "$f"; }
  echo "pass=$(c PASS) fail=$(c FAIL) skip=$(c SKIP) error=$(c ERROR) (exit $(cat "$log/status-$1.txt"))"
}

# Counts of a TAP stream.
tap_counts() {
  p=$(grep -c '^ok [0-9]* - ' "$1")
  k=$(grep -c '^ok .*# SKIP' "$1")
  f=$(grep -c '^not ok' "$1")
  echo "pass=$p fail=$f skip=$k"
}

unpack() {
  rm -rf "$work/src" && mkdir -p "$work/src" && tar xzf "$carry"/tsshim-*.tar.gz -C "$work/src" --strip-components=1
}

# split_bench: the host's copy rate (what packing pageable memory for every
# link at once draws on), then bench/run-split.sh into $out (the cases of
# TSSHIM_SPLIT_CASES, default all).
split_bench() {
  python3 -c 'import os, time, torch
torch.set_num_threads(os.cpu_count())
a = torch.ones(1 << 30, dtype=torch.float64); b = torch.empty_like(a); b.copy_(a)
t = time.time()
for _ in range(5): b.copy_(a)
print("host memory copy, %d threads: %.1f GB/s copied (read and written once each)" % (os.cpu_count(), 5 * 8 * 2**30 / (time.time() - t) / 1e9))' \
    >"$log/split-bench.txt" 2>&1
  (cd "$work/build" && BENCH=./bench/bench_e2e RUN_LIMIT=$(left 20) sh "$work/src/bench/run-split.sh" "$out" \
    ${TSSHIM_SPLIT_CASES:-} >>"$log/split-bench.txt" 2>&1)
  echo "split bench: exit $? ($(($(date +%s) - start)) s)"
}

for phase in "${@:-check}"; do
case $phase in
check)
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  unpack
  build_tree build &
  build_tree fault --enable-fault-injection &
  build_tree asan --enable-sanitizers &
  wait
  cat "$log"/status-build-*.txt
  echo "builds: $(($(date +%s) - start)) s"
  t=$(left 40)
  run_check build check "$t" -j8 &
  run_check asan asan "$t" -j8 &
  run_check fault fault "$t" TESTS="tests/faults.sh tests/residency_gpu.sh" &
  for tool in memcheck racecheck synccheck; do cs_tool $tool "$t" & done
  wait
  echo "tests: $(($(date +%s) - start)) s"
  for mode in auto gpu; do
    TSDEMO_REPEATS=3 TSSHIM_MODE=$mode TSSHIM_LIB=$work/build/.libs/libtsshim.so timeout $(($(left 0) / 2)) \
      sh "$work/src/examples/run-demo.sh" "$carry"/demo/subspace_s "$carry"/demo/subspace_d "$carry"/demo/subspace_z \
      >"$log/demo-$mode.txt" 2>&1
    echo "$?" >"$log/status-demo-$mode.txt"
  done
  echo "== demo"; for m in auto gpu; do tail -8 "$log/demo-$m.txt"; done
  echo "== failures (details in logs.tar.gz: check/, asan/, fault/, cs-*.txt)"
  for name in check asan fault; do
    grep -hE '^(FAIL|ERROR|XPASS)' "$log/check-$name.txt" 2>/dev/null | head -n 8 | sed "s/^/$name: /"
  done
  grep -h '^not ok' "$log"/cs-*.txt 2>/dev/null | head -n 8
  echo "== summary ($(($(date +%s) - start)) s)"
  echo "make check:                   $(suite_counts check)"
  echo "make check (ASan+UBSan):      $(suite_counts asan)"
  echo "fault injection (faults.sh, residency_gpu.sh): $(suite_counts fault)"
  for tool in memcheck racecheck synccheck; do
    printf 'compute-sanitizer %-10s  %s (exit %s)\n' "$tool:" "$(tap_counts "$log/cs-$tool.txt")" \
      "$(cat "$log/status-cs-$tool.txt")"
  done
  echo "demo: auto exit $(cat "$log/status-demo-auto.txt"), gpu exit $(cat "$log/status-demo-gpu.txt")"
  ;;
bench)
  # A machine that was given back in between starts bare: build again.
  if [ ! -f "$work/build/.libs/libtsshim.so" ]; then
    unpack
    build_tree build
    cat "$log/status-build-build.txt"
  fi
  cd "$work/build" || exit 1
  if [ "${TSSHIM_BENCH_KERNELS:-1}" != 0 ]; then
    timeout 150 ./bench/bench_kernels "$out/bench_kernels.csv" >"$log/bench_kernels.txt" 2>&1
    echo "bench_kernels: exit $?"
  fi
  ./bench/bench_forward .libs/libtsshim.so 11 >"$log/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?"
  # How the shim looks for the CUDA driver on this host (the forwarding cost depends on it).
  TSSHIM_VERBOSE=2 LD_PRELOAD=$work/build/.libs/libtsshim.so ./bench/bench_forward --measure 2>&1 |
    grep 'loader watch' >>"$log/bench_forward.txt"
  OUT=$out/datapath timeout $(left 10) sh "$work/src/bench/run-datapath-gpu.sh" >"$log/datapath.txt" 2>&1
  echo "datapath: exit $?"
  cp "$out"/datapath/e2e.csv "$out"/datapath/profile "$out/" 2>/dev/null
  tail -60 "$log/bench_kernels.txt" 2>/dev/null
  cat "$log/bench_forward.txt"
  # The calibration, the end-to-end tables and their verdict; the
  # pipeline phase lines (long, one per case) stay in logs.tar.gz.
  sed -n '/^== calibration/,/^== pipeline phases/p; /^(total /,$p' "$log/datapath.txt"
  ;;
multigpu)
  nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv,noheader
  unpack
  build_tree build
  cat "$log/status-build-build.txt"
  echo "build: $(($(date +%s) - start)) s"
  run_check build split 240 TESTS="${TSSHIM_MULTIGPU_TESTS:-tests/split.sh tests/gemm_differential_gpu.sh tests/residency_gpu.sh}"
  echo "split tests: $(($(date +%s) - start)) s"
  split_bench
  echo "== split tests"
  grep -hE '^(not ok|ok .*devices [0-9],[1-9])' "$log/split/"*.log 2>/dev/null | head -n 12
  echo "== split benchmark"
  cat "$log/split-bench.txt"
  echo "== summary ($(($(date +%s) - start)) s)"
  echo "split tests: $(suite_counts split)"
  ;;
split)
  [ -f "$work/build/.libs/libtsshim.so" ] || { unpack && build_tree build; }
  split_bench
  cat "$log/split-bench.txt"
  ;;
measure)
  [ -f "$work/build/.libs/libtsshim.so" ] || { unpack && build_tree build; }
  export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
  # The issues' baseline: OpenBLAS on 16 threads, whatever the host's cores.
  export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-16}
  steps=${TSSHIM_MEASURE:-level3 calibrate e2e hugepages startload scalapack demo demo-hugepages demo-z}
  want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
  cd "$work/build" || exit 1
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader -i "$CUDA_VISIBLE_DEVICES"
  if want level3; then
    LD_PRELOAD=$work/build/.libs/libtsshim.so timeout 120 ./bench/bench_level3_gpu 24 >"$out/level3.txt" 2>&1
    echo "level3: exit $? ($(($(date +%s) - start)) s)"
  fi
  # Without the calibrate step the shim takes its built-in figures.
  if want calibrate; then
    timeout 120 ./tools/tsshim-calibrate -o "$out/profile" --plugin "$work/build/.libs/libtsshim-cuda.so" \
      >"$log/calibrate.txt" 2>&1
    echo "calibrate: exit $? ($(($(date +%s) - start)) s)"
  fi
  e2e() {
    BENCH=./bench/bench_e2e TSSHIM_LIB=$work/build/.libs/libtsshim.so E2E_ROUNDS=1 timeout "$(left 240)" \
      sh "$work/src/bench/run-e2e.sh" "$@"
  }
  reuse=${TSSHIM_MEASURE_REUSE:-reuse_tsm2_d_w16 rewrite_tsm2_d_w16 reuse_gram_d_w16 chain_d_w16 program_square_d_4096 program_rankk_d_w32}
  if want e2e; then
    e2e "$out/e2e" "$out/profile" $reuse ${TSSHIM_MEASURE_CASES:-} >"$log/e2e.txt" 2>&1
    echo "e2e: exit $? ($(($(date +%s) - start)) s)"
  fi
  if want hugepages; then
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 e2e "$out/e2e-hugepages" "$out/profile" reuse_tsm2_d_w16 chain_d_w16 \
      >"$log/e2e-hugepages.txt" 2>&1
    echo "e2e, huge pages: exit $? ($(($(date +%s) - start)) s)"
  fi
  if want startload; then
    TSSHIM_BACKGROUND_START=2 e2e "$out/e2e-start-at-load" "$out/profile" program_square_d_4096 \
      program_rankk_d_w32 >"$log/e2e-start-at-load.txt" 2>&1
    echo "e2e, start at load: exit $? ($(($(date +%s) - start)) s)"
  fi
  # Short ScaLAPACK testers forced to the GPU, 4 ranks sharing it under MPS:
  # the start on each rank's first call (the default), then at load.
  if want scalapack && [ -d "$carry/scalapack/tests" ]; then
    nvidia-cuda-mps-control -d 2>"$log/mps.txt"
    for bs in 1 2; do
      (cd "$work/build" && LD_LIBRARY_PATH="$carry/scalapack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        OPENBLAS_NUM_THREADS=1 TSSHIM_BACKGROUND_START=$bs TSSHIM_SCALAPACK_TESTERS=$carry/scalapack/tests \
        TSSHIM_SCALAPACK_MODES=gpu \
        TSSHIM_SCALAPACK_PROGRAMS='xdllt xzlu xdqr xdinv PBLAS/dpb3tst PBLAS/zpb3tst' TSSHIM_SCALAPACK_NP=4 \
        TSSHIM_SCALAPACK_TIMEOUT=60 timeout -k 10 120 make check-scalapack >"$log/scalapack-start-$bs.txt" 2>&1)
      echo "scalapack, gpu mode, TSSHIM_BACKGROUND_START=$bs: exit $? ($(($(date +%s) - start)) s)"
      cp "$work/build/tests/scalapack/check-scalapack.log" "$log/scalapack-start-$bs.log" 2>/dev/null
    done
    echo quit | nvidia-cuda-mps-control
  fi
  # demo NAME ARGS REPEATS PROGRAM...: the demo in auto mode at the given size.
  demo() {
    name=$1 args=$2 repeats=$3
    shift 3
    TSDEMO_ARGS=$args TSDEMO_REPEATS=$repeats TSDEMO_CSV=$out/demo-$name.csv TSSHIM_MODE=auto \
      TSSHIM_PROFILE=$out/profile TSSHIM_LIB=$work/build/.libs/libtsshim.so timeout "$(left 30)" \
      sh "$work/src/examples/run-demo.sh" "$@" >"$log/demo-$name.txt" 2>&1
    echo "demo $name: exit $? ($(($(date +%s) - start)) s)"
  }
  repeats=${TSSHIM_MEASURE_DEMO_REPEATS:-2}
  # The programs' own default size: auto must not be slower than plain.
  ! want demo-default || demo default '' 5 "$carry"/demo/subspace_s "$carry"/demo/subspace_d "$carry"/demo/subspace_z
  ! want demo || demo ds '32768 16 60 10' "$repeats" "$carry"/demo/subspace_d "$carry"/demo/subspace_s
  ! want demo-hugepages ||
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 demo d-hugepages '32768 16 60 10' "$repeats" "$carry"/demo/subspace_d
  ! want demo-z || demo z '32768 16 20 10' 1 "$carry"/demo/subspace_z
  # The GPU started at load and the 16.8 MFLOP calls judged by the model.
  ! want demo-early || GLIBC_TUNABLES=glibc.malloc.hugetlb=1 TSSHIM_BACKGROUND_START=2 TSSHIM_MIN_FLOPS=1e7 \
    demo d-early '32768 16 60 10' "$repeats" "$carry"/demo/subspace_d
  echo "== SYRK and TRSM on device data"
  cat "$out/level3.txt" 2>/dev/null
  for f in e2e e2e-hugepages e2e-start-at-load; do
    [ -f "$log/$f.txt" ] || continue
    echo "== $f"
    sed -n '/^case /,/^== pipeline phases/p; /^(total /,$p' "$log/$f.txt" | grep -v '^== pipeline phases'
  done
  for bs in 1 2; do
    [ -f "$log/scalapack-start-$bs.log" ] || continue
    echo "== scalapack testers, gpu mode, TSSHIM_BACKGROUND_START=$bs"
    grep -E '^not ok|TSSHIM_MODE=gpu' "$log/scalapack-start-$bs.log" | grep -v 'ranks went' | head -n 12
  done
  for f in default ds d-hugepages z d-early; do
    [ -f "$log/demo-$f.txt" ] || continue
    echo "== demo $f"
    tail -n 6 "$log/demo-$f.txt"
  done
  ;;
mpi)
  if [ ! -f "$work/build/.libs/libtsshim.so" ]; then
    unpack
    build_tree build
    cat "$log/status-build-build.txt"
  fi
  # Ranks share each GPU: MPS, as README.md advises.
  nvidia-cuda-mps-control -d 2>"$log/mps.txt"
  syevr='xssyevr xdsyevr xcheevr xzheevr'
  short='PBLAS/spb3tst PBLAS/dpb3tst PBLAS/cpb3tst PBLAS/zpb3tst xslu xdlu xclu xzlu xsllt xdllt xcllt xzllt
    xsqr xdqr xcqr xzqr xsinv xdinv xcinv xzinv xsls xdls xcls xzls'
  export LD_LIBRARY_PATH="$carry/scalapack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  for run in gpu auto; do
    programs=$short
    [ $run = auto ] && programs="$short $syevr"
    (cd "$work/build" && TSSHIM_SCALAPACK_TESTERS=$carry/scalapack/tests TSSHIM_SCALAPACK_PROGRAMS="$programs" \
      TSSHIM_SCALAPACK_MODES=$run TSSHIM_SCALAPACK_NP=${TSSHIM_SCALAPACK_NP:-8} TSSHIM_SCALAPACK_TIMEOUT=120 \
      timeout -k 10 "$(left 200)" make check-scalapack >"$log/check-scalapack-$run.txt" 2>&1)
    echo "$?" >"$log/status-scalapack-$run.txt"
    mkdir -p "$log/scalapack-$run"
    cp "$work/build/tests/scalapack/check-scalapack.log" "$log/scalapack-$run/" 2>/dev/null
    echo "scalapack $run: $(($(date +%s) - start)) s"
  done
  [ "${TSSHIM_GPU_CHOLQR:-1}" = 0 ] || (cd "$work/build" && TSSHIM_SCALAPACK_BENCH_BIN=$carry/scalapack/cholqr TSSHIM_SCALAPACK_LIBDIR=$carry/scalapack/lib \
    TSSHIM_SCALAPACK_BENCH_SIZES=16777216x64 TSSHIM_SCALAPACK_BENCH_RANKS='4 8' TSSHIM_SCALAPACK_BENCH_REPEATS=2 \
    timeout -k 10 "$(left 10)" sh "$work/src/bench/scalapack/run-cholqr.sh" "$out/cholqr" >"$log/cholqr.txt" 2>&1)
  echo "cholqr: exit $? ($(($(date +%s) - start)) s)"
  cp "$out"/cholqr/*.csv "$out"/cholqr/*.txt "$out/" 2>/dev/null
  echo quit | nvidia-cuda-mps-control
  for run in gpu auto; do
    echo "== scalapack $run"
    grep -E '^(not ok|# shim: device|# TSSHIM_MODE)|ranks went' "$log/scalapack-$run/check-scalapack.log" | head -n 20
  done
  echo "== cholqr"
  tail -n 12 "$log/cholqr.txt"
  echo "== summary ($(($(date +%s) - start)) s)"
  for run in gpu auto; do
    f=$log/scalapack-$run/check-scalapack.log
    echo "scalapack $run: pass=$(grep -c '^ok' "$f" 2>/dev/null) fail=$(grep -c '^not ok' "$f" 2>/dev/null)" \
      "(exit $(cat "$log/status-scalapack-$run.txt"))"
  done
  ;;
esac
done
cd "$out" && tar czf logs.tar.gz logs $(ls -d datapath cholqr split-logs e2e*/e2e-logs 2>/dev/null) &&
  rm -rf logs datapath cholqr split-logs e2e*/e2e-logs
