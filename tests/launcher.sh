#!/bin/sh
# The tsshim command (tools/tsshim): exit status and signals pass through,
# the environment it sets (LD_PRELOAD prepended once, the user's kept,
# TSSHIM_MODE, TSSHIM_VERBOSE, TSSHIM_LOG, glibc.malloc.hugetlb=1 in
# GLIBC_TUNABLES unless TSSHIM_HUGE_PAGES=0), programs started by the program
# get the shim, --version, usage errors, and each rank of mpirun.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
tsshim=$abs_top_builddir/tools/tsshim
[ -x "$tsshim" ] || tap_skip_all "tools/tsshim not built"
# Sanitizer builds: the launcher puts the shim before the ASan runtime.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"; export ASAN_OPTIONS
lib=$(cd "$(dirname "$TSSHIM_LIB")" && pwd)/libtsshim.so
# calls NAME FILE: the calls the exit report counts for NAME.
calls() { awk -v n="$1" '$1 == "tsshim:" && $2 == n && $3 ~ /^calls=/ { sub("calls=", "", $3); s += $3 } END { print s + 0 }' "$2"; }

"$tsshim" --version >"$tap_tmp/out" 2>&1
[ $? -eq 0 ] && grep -q '^tsshim [0-9]' "$tap_tmp/out"
tap_check $? "--version: $(cat "$tap_tmp/out")"

"$tsshim" --help >"$tap_tmp/out" 2>&1 && grep -q '^usage: tsshim' "$tap_tmp/out"
tap_check $? "--help prints the usage, status 0"

"$tsshim" --mode fast true >"$tap_tmp/out" 2>&1
status=$?
[ $status -eq 2 ] && grep -q 'auto, gpu or cpu' "$tap_tmp/out"
tap_check $? "--mode fast: a usage error, status 2 (got $status)"

"$tsshim" --bogus true >/dev/null 2>&1
status=$?
"$tsshim" >/dev/null 2>&1
status2=$?
[ $status -eq 2 ] && [ $status2 -eq 2 ]
tap_check $? "an unknown option or no program: status 2"

"$tsshim" sh -c 'exit 3'
status=$?
[ $status -eq 3 ]
tap_check $? "the program's exit status passes through (exit 3: got $status)"

"$tsshim" sh -c 'kill -TERM $$' 2>/dev/null
status=$?
[ $status -eq 143 ]
tap_check $? "a signal passes through (kill -TERM of itself: status $status, want 143)"

# exec: the program is the launcher's process, so its parent sees its pid.
"$tsshim" sh -c 'echo $$' >"$tap_tmp/out" &
pid=$!
wait $pid
[ "$(cat "$tap_tmp/out")" = "$pid" ]
tap_check $? "the program replaces the launcher (same process id: $pid, program $(cat "$tap_tmp/out"))"

env -u LD_PRELOAD "$tsshim" sh -c 'printf "%s\n" "$LD_PRELOAD"' >"$tap_tmp/out" 2>&1
[ "$(cat "$tap_tmp/out")" = "$lib" ]
tap_check $? "LD_PRELOAD set to the shim (got: $(cat "$tap_tmp/out"))"

LD_PRELOAD=libm.so.6 "$tsshim" sh -c 'printf "%s\n" "$LD_PRELOAD"' >"$tap_tmp/out" 2>/dev/null
[ "$(cat "$tap_tmp/out")" = "$lib libm.so.6" ]
tap_check $? "an existing LD_PRELOAD is kept, the shim prepended (got: $(cat "$tap_tmp/out"))"

"$tsshim" "$tsshim" sh -c 'printf "%s\n" "$LD_PRELOAD"' >"$tap_tmp/out" 2>&1
[ "$(cat "$tap_tmp/out")" = "$lib" ]
tap_check $? "tsshim under tsshim preloads the shim once (got: $(cat "$tap_tmp/out"))"

"$tsshim" --mode gpu --trace --log /tmp/x.%p sh -c 'echo "$TSSHIM_MODE $TSSHIM_VERBOSE $TSSHIM_LOG"' >"$tap_tmp/out" 2>&1
[ "$(cat "$tap_tmp/out")" = "gpu 3 /tmp/x.%p" ]
tap_check $? "--mode gpu --trace --log: TSSHIM_MODE, TSSHIM_VERBOSE=3, TSSHIM_LOG (got: $(cat "$tap_tmp/out"))"

"$tsshim" --mode cpu --report sh -c 'echo "$TSSHIM_MODE $TSSHIM_VERBOSE"' >"$tap_tmp/out" 2>&1
[ "$(cat "$tap_tmp/out")" = "cpu 1" ]
tap_check $? "--mode cpu --report: TSSHIM_MODE=cpu, TSSHIM_VERBOSE=1 (got: $(cat "$tap_tmp/out"))"

tap_huge_pages "$tsshim"

"$client" call >"$tap_tmp/plain" 2>&1
"$tsshim" --report "$client" call >"$tap_tmp/out" 2>"$tap_tmp/err"
status=$?
[ $status -eq 0 ] && cmp -s "$tap_tmp/plain" "$tap_tmp/out" && [ "$(calls dgemm_ "$tap_tmp/err")" -eq 1 ]
tap_check $? "--report: the client's result, and its exit report counts its dgemm_ call"

# A shell script that starts the client (a solver behind a wrapper script)
# and a second one in a subshell: each process reports its own call.
cat >"$tap_tmp/wrapper.sh" <<SCRIPT
#!/bin/sh
"$client" call
( "$client" call )
SCRIPT
chmod +x "$tap_tmp/wrapper.sh"
"$tsshim" --mode cpu --report --log "$tap_tmp/nested.%p" "$tap_tmp/wrapper.sh" >"$tap_tmp/out" 2>&1
status=$?
cat "$tap_tmp"/nested.* >"$tap_tmp/nested" 2>/dev/null
n=$(calls dgemm_ "$tap_tmp/nested")
[ $status -eq 0 ] && [ "$n" -eq 2 ]
tap_check $? "nested programs: a script's two clients get the shim (dgemm_ calls in their reports: $n, want 2)"

# mpirun: each rank runs the launcher, which preloads the shim into it;
# the rank names its log (%r).
mpirun=$(command -v mpirun)
if [ -z "$mpirun" ]; then
  tap_skip_point "mpirun: not installed"
else
  opts=
  "$mpirun" --version 2>&1 | grep -qi 'open mpi\|openrte' && opts="--oversubscribe --allow-run-as-root"
  # shellcheck disable=SC2086
  timeout 120 "$mpirun" $opts -np 2 "$tsshim" --mode cpu --report --log "$tap_tmp/rank.%r" "$client" call \
    >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  r0=$(calls dgemm_ "$tap_tmp/rank.0" 2>/dev/null)
  r1=$(calls dgemm_ "$tap_tmp/rank.1" 2>/dev/null)
  if [ $status -ne 0 ] && [ -z "$r0$r1" ] && grep -qi 'not enough slots\|orted\|prte\|launch' "$tap_tmp/err"; then
    tap_skip_point "mpirun cannot start ranks here: $(head -1 "$tap_tmp/err")"
  else
    [ $status -eq 0 ] && [ "${r0:-0}" -eq 1 ] && [ "${r1:-0}" -eq 1 ]
    tap_check $? "mpirun -np 2 tsshim: each rank gets the shim and its own log (rank 0: ${r0:-none}, rank 1: ${r1:-none} dgemm_ calls; status $status)"
  fi
fi
tap_end
