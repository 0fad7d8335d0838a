#!/bin/sh
# The GPU's background start in auto mode (background_start.c), with the
# built-in rates, which send a square D GEMM of 512 to the GPU.  Every
# result is checked against OpenBLAS by the program.  Timings are not
# asserted.
# - Nothing starts in the background without a visible device
#   (CUDA_VISIBLE_DEVICES empty, or no device here), with
#   TSSHIM_BACKGROUND_START=0, or while the calls forwent less than the
#   start's cost (the built-in gpu_start_s): the start ledger keeps the call
#   on the CPU.
# - With a cheap start (a profile with gpu_start_s 0.001, an eighth of which
#   the call forgoes, less than the whole), the call begins the start in
#   the background ("gpu starting"): it loads the CUDA libraries
#   and a thread of the shim's starts the device.  A program that ends while
#   the start runs (returning from main, exit(), exit() from the calling
#   thread, exit() from a thread that made no BLAS call; RUNS runs each, 0 to
#   360 ms after the call) exits 0 with nothing on stderr; a child forked
#   meanwhile computes on the CPU and exits 0.  Without a GPU these run with
#   CUDA_VISIBLE_DEVICES=0 and the toolkit's stub driver as libcuda.so.1:
#   the start then loads the same libraries and finds no device.  Exiting
#   used to race the libraries' initialisers there (a crash in cublasLt).
# - TSSHIM_BACKGROUND_START=2 begins the start at load, before the first
#   call, in a program with a CPU BLAS only; exiting during it is clean.
# - TSSHIM_LEARN_SAVE=1: the program's line in the profile (its last run's
#   verdict on the start) begins the start at load (factor 0) or leaves it
#   to the ledger (factor 4); without a GPU nothing starts and the line
#   stays.
# - On a GPU host, after a second of CPU work the program's later calls are
#   offloaded (the exit report's offloaded > 0); a program whose one large
#   call follows a second of CPU work runs it on the GPU with the start at
#   load, and with the start on the call, which waits for it; with factor 0
#   remembered it runs on the GPU and the run's verdict is saved.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
prog=$abs_top_builddir/tests/background_start
runs=${TSSHIM_BACKGROUND_RUNS:-30}

# A start of 1 ms: the first call the model sends to the GPU, a 512 GEMM
# forgoing about 0.25 ms, earns a background start (an eighth of the price)
# but saves less than the whole start, so it stays on the CPU (with the
# built-in cost it forgoes too little).
echo 'gpu_start_s 0.001' >"$tap_tmp/quick.profile"

# shim VAR=VALUE... PROGRAM ARGS: runs under the shim in auto mode.
shim() {
  env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=auto TSSHIM_PROFILE="$tap_tmp/quick.profile" "$@"
}

# no_start LABEL VAR=VALUE...: the call stays on the CPU by the ledger and no
# background start is logged.
no_start() {
  label=$1
  shift
  shim "$@" TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/log" "$prog" main 0 >/dev/null 2>&1
  status=$?
  sed 's/^/# /' "$tap_tmp/log"
  [ $status -eq 0 ] && grep -q 'run=cpu (cost model: gpu faster, gpu start not repaid yet)' "$tap_tmp/log" &&
    ! grep -q 'background' "$tap_tmp/log"
  tap_check $? "$label: the ledger keeps the call on the CPU, nothing starts in the background"
  rm -f "$tap_tmp/log"
}

begun='GPU backend loaded in .* on the calling thread; the device context starts on a background thread'
no_start "no device visible (CUDA_VISIBLE_DEVICES empty)" CUDA_VISIBLE_DEVICES= TSSHIM_PROFILE="$tap_tmp/no.profile"
no_start "TSSHIM_BACKGROUND_START=0" TSSHIM_BACKGROUND_START=0 TSSHIM_PROFILE="$tap_tmp/no.profile"
no_start "a device visible, the call forgoing less than the start's built-in cost" CUDA_VISIBLE_DEVICES=0 \
  TSSHIM_PROFILE="$tap_tmp/no.profile"
if have_gpu; then
  gpu=1
  visible=
else
  gpu=
  no_start "no CUDA device here" TSSHIM_PROFILE="$tap_tmp/no.profile"
  # The stub driver sits in the toolkit beside the cudart the plugin loads.
  cudart=$(ldd "$abs_top_builddir/.libs/libtsshim-cuda.so" 2>/dev/null | sed -n 's/.*=> \(.*\)\/libcudart\.so.*/\1/p')
  visible=CUDA_VISIBLE_DEVICES=0
  if [ -n "$cudart" ] && [ -e "$cudart/stubs/libcuda.so" ]; then
    mkdir "$tap_tmp/driver"
    ln -s "$cudart/stubs/libcuda.so" "$tap_tmp/driver/libcuda.so.1"
    visible="$visible LD_LIBRARY_PATH=$tap_tmp/driver"
  else
    # Then the start finds no driver and loads nothing.
    begun='no usable GPU (libcuda.so.1'
  fi
  echo "# no CUDA device: the start runs with $visible and finds no device"
fi

shim $visible TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/log" "$prog" main 0 >/dev/null 2>&1
status=$?
sed 's/^/# /' "$tap_tmp/log"
[ $status -eq 0 ] && grep -q 'run=cpu (gpu starting)' "$tap_tmp/log" &&
  grep -q "$begun" "$tap_tmp/log"
tap_check $? "the call begins the start and stays on the CPU (status $status, log: $begun)"

# exit_runs LABEL HOW VAR=VALUE...: RUNS runs of the program ending (HOW)
# 0 to 360 ms after its call, while the start may run; each must exit 0
# with nothing on stderr.
exit_runs() {
  label=$1
  how=$2
  shift 2
  bad=0
  i=0
  while [ $i -lt "$runs" ]; do
    shim $visible "$@" TSSHIM_VERBOSE=0 "$prog" "$how" $((i * 37 % 361)) >"$tap_tmp/out" 2>"$tap_tmp/err"
    status=$?
    if [ $status -ne 0 ] || [ -s "$tap_tmp/err" ]; then
      bad=$((bad + 1))
      echo "# run $i: status $status"
      sed 's/^/# /' "$tap_tmp/out" "$tap_tmp/err"
    fi
    i=$((i + 1))
  done
  [ $bad -eq 0 ]
  tap_check $? "$label: $runs runs exit 0 with nothing on stderr ($bad did not)"
}

for how in main exit thread other; do
  exit_runs "exit during the start: $how" $how
done

shim $visible TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/fork.%p" "$prog" fork >"$tap_tmp/out" 2>"$tap_tmp/err"
status=$?
read -r _ parent _ child <"$tap_tmp/out"
sed 's/^/# /' "$tap_tmp/out" "$tap_tmp/err"
[ $status -eq 0 ] && [ ! -s "$tap_tmp/err" ] && grep -q 'run=cpu (gpu starting)' "$tap_tmp/fork.$parent" &&
  grep -q 'dgemm_ NN .* run=cpu' "$tap_tmp/fork.$child" && ! grep -q ' run=gpu ' "$tap_tmp/fork.$child"
tap_check $? "fork during the start: the child computes on the CPU and exits 0 (status $status)"

# TSSHIM_BACKGROUND_START=2: the start begins as the shim is loaded, before
# the program's first call (whose CPU BLAS is then named, at level 2); a
# program without a CPU BLAS starts nothing; exiting at once is clean.
shim $visible TSSHIM_BACKGROUND_START=2 TSSHIM_VERBOSE=2 TSSHIM_LOG="$tap_tmp/load" "$prog" main 0 >/dev/null \
  2>"$tap_tmp/err"
status=$?
sed 's/^/# /' "$tap_tmp/load" "$tap_tmp/err"
begun_at=$(grep -n -m 1 -e "$begun" "$tap_tmp/load" | cut -d: -f1)
call_at=$(grep -n -m 1 'dgemm_ served by ' "$tap_tmp/load" | cut -d: -f1)
[ $status -eq 0 ] && [ ! -s "$tap_tmp/err" ] && [ -n "$begun_at" ] && [ -n "$call_at" ] && [ "$begun_at" -lt "$call_at" ]
tap_check $? "TSSHIM_BACKGROUND_START=2: the start begins at load, before the first call (log lines ${begun_at:-none}" \
  "and ${call_at:-none}, status $status)"
shim $visible TSSHIM_BACKGROUND_START=2 TSSHIM_VERBOSE=2 TSSHIM_LOG="$tap_tmp/noblas" sh -c : 2>"$tap_tmp/err"
status=$?
[ $status -eq 0 ] && [ ! -s "$tap_tmp/err" ] && ! grep -q 'GPU backend loaded\|no usable GPU' "$tap_tmp/noblas" 2>/dev/null
tap_check $? "TSSHIM_BACKGROUND_START=2, a program without a CPU BLAS (sh -c :): nothing starts (status $status)"
exit_runs "TSSHIM_BACKGROUND_START=2, exit during the start" exit TSSHIM_BACKGROUND_START=2

# TSSHIM_LEARN_SAVE=1: the program's last run's verdict on the start, a
# line of the profile (src/learn/program_memory.h), with the built-in price.
# The constructor names the program's key; factor 0 begins the start at
# load; factor 4 leaves it to the ledger (which a 512 GEMM does not pay).
mem=$tap_tmp/memory.profile
: >"$mem"
remember() { # LOG: runs the program once with the memory profile
  shim $visible TSSHIM_LEARN_SAVE=1 TSSHIM_PROFILE="$mem" TSSHIM_VERBOSE=2 TSSHIM_LOG="$1" "$prog" main 0 \
    >/dev/null 2>"$tap_tmp/err"
}
remember "$tap_tmp/mem1"
status=$?
key=$(sed -n 's/^tsshim: GPU start of .*: earned by the ledger (\(program\.[0-9a-f]*\) in .*/\1/p' "$tap_tmp/mem1")
sed 's/^/# /' "$tap_tmp/mem1" "$tap_tmp/err"
[ $status -eq 0 ] && [ ! -s "$tap_tmp/err" ] && [ -n "$key" ] && ! grep -q -e "$begun" "$tap_tmp/mem1"
tap_check $? "TSSHIM_LEARN_SAVE=1, nothing remembered: the key is named (${key:-none}), nothing starts at load"
echo "$key 0" >>"$mem"
remember "$tap_tmp/mem0"
status=$?
sed 's/^/# /' "$tap_tmp/mem0" "$tap_tmp/err"
begun_at=$(grep -n -m 1 -e "$begun" "$tap_tmp/mem0" | cut -d: -f1)
call_at=$(grep -n -m 1 'dgemm_ served by ' "$tap_tmp/mem0" | cut -d: -f1)
[ $status -eq 0 ] && [ ! -s "$tap_tmp/err" ] && [ -n "$begun_at" ] && [ -n "$call_at" ] && [ "$begun_at" -lt "$call_at" ] &&
  { [ -n "$gpu" ] || grep -q "^$key 0\$" "$mem"; }
tap_check $? "factor 0 remembered: the start begins at load, before the first call (log lines ${begun_at:-none}" \
  "and ${call_at:-none}); without a GPU no verdict replaces it"
sed -i "s/^$key .*/$key 4/" "$mem"
remember "$tap_tmp/mem4"
status=$?
[ $status -eq 0 ] && [ ! -s "$tap_tmp/err" ] && grep -q "GPU start of .*: earned by the ledger ($key " "$tap_tmp/mem4" &&
  ! grep -q -e "$begun" "$tap_tmp/mem4" && grep -q "^$key 4\$" "$mem"
tap_check $? "factor 4 remembered: the ledger decides (nothing starts for a 512 GEMM), the line stays"

if [ -z "$gpu" ]; then
  tap_skip_point "no CUDA device: the start is hidden"
  tap_skip_point "no CUDA device: a short program's one large call runs on the GPU with the start at load"
  tap_skip_point "no CUDA device: a remembered start at load, and the run's verdict saved"
  tap_end
  exit
fi
shim TSSHIM_VERBOSE=1 TSSHIM_LOG="$tap_tmp/hidden" "$prog" hidden >"$tap_tmp/out" 2>"$tap_tmp/err"
status=$?
sed 's/^/# /' "$tap_tmp/hidden" "$tap_tmp/err"
offloaded=$(sed -n 's/^tsshim: dgemm_ calls=[0-9]* offloaded=\([0-9]*\) .*/\1/p' "$tap_tmp/hidden")
[ $status -eq 0 ] && [ "${offloaded:-0}" -gt 0 ]
tap_check $? "the start is hidden: after a second of CPU work the calls are offloaded (offloaded=${offloaded:-none})"

# A short program whose one large call follows a second of CPU work (an R
# session's one product): with the start at load that call runs on the GPU;
# started by the call itself (the default), it runs there too, waiting for
# the start, since it saves more than the whole start.
for start in 2 1; do
  shim TSSHIM_BACKGROUND_START=$start TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/prelude.$start" "$prog" prelude \
    >"$tap_tmp/out" 2>"$tap_tmp/err"
  eval "status_$start=\$?"
  sed 's/^/# /' "$tap_tmp/err"
  grep 'dgemm_ NN m=4096 ' "$tap_tmp/prelude.$start" | sed 's/^/# start '"$start"': /'
done
[ "$status_2" -eq 0 ] && [ "$status_1" -eq 0 ] && grep -q 'dgemm_ NN m=4096 .* run=gpu' "$tap_tmp/prelude.2" &&
  grep -q 'dgemm_ NN m=4096 .* run=gpu (cost model: gpu faster, start repaid)' "$tap_tmp/prelude.1"
tap_check $? "a short program's one large call after a second of CPU work: on the GPU with the start at load," \
  "and with the start on that call, which waits for it"

# The same program with factor 0 remembered: its call runs on the GPU, and
# at exit the run's verdict (0, or 2 where the one call saved less than the
# start's price) replaces the line.
sed -i "s/^$key .*/$key 0/" "$mem"
shim TSSHIM_LEARN_SAVE=1 TSSHIM_PROFILE="$mem" TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/prelude.mem" "$prog" prelude \
  >"$tap_tmp/out" 2>"$tap_tmp/err"
status=$?
sed 's/^/# /' "$tap_tmp/err"
grep "dgemm_ NN m=4096 \|GPU start verdict" "$tap_tmp/prelude.mem" | sed 's/^/# /'
[ $status -eq 0 ] && grep -q 'dgemm_ NN m=4096 .* run=gpu' "$tap_tmp/prelude.mem" &&
  grep -q "GPU start verdict $key [02] " "$tap_tmp/prelude.mem" && grep -q "^$key [02]\$" "$mem"
tap_check $? "factor 0 remembered: a short program's one large call runs on the GPU, and its verdict is saved" \
  "($(grep "^$key " "$mem"))"
tap_end
