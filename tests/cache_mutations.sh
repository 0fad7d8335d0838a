#!/bin/sh
# The operand cache under every mutation of tests/cache_mutations.c, with
# the shim forcing every call onto the GPU, plus points of its own on the
# exit report: the cache was used (hits), refreshed written bytes, ran
# calls again whose copies proved written while the GPU computed (rerun),
# dropped copies of memory that went away and of work arrays rewritten
# between uses (the chain's V and W), found the objects beside an operand
# written but not the operand, and stepped aside for the program's
# own userfaultfd; so a run where caching silently never happened cannot
# pass.
# Skipped where no CUDA device is usable.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
have_gpu || tap_skip_all "no CUDA device"
log=$tap_tmp/shim.log
tap_relay "mode gpu" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_CACHE_MIN_MB=1 TSSHIM_VERBOSE=1 \
  TSSHIM_LOG="$log" "$abs_top_builddir/tests/cache_mutations"

# The number after NAME= on the report's cache line.
cache_field() {
  sed -n "s/^tsshim: cache .*$1=\([0-9][0-9]*\).*/\1/p" "$log" 2>/dev/null | tail -n 1
}
for field in hits refreshed rerun invalidated churned neighbour_writes untracked; do
  v=$(cache_field "$field")
  [ "${v:-0}" -gt 0 ]
  tap_check $? "exit report: cache $field=${v:-missing}, expected > 0"
done
[ "$tap_fail" -eq 0 ] || sed 's/^/# /' "$log" 2>/dev/null

# Under an MPI launcher the cache is off unless asked for (TSSHIM_CACHE=-1):
# network cards and other ranks may write the memory unseen.
# With the default TSSHIM_CACHE_MIN_MB (16) its 1-2 MiB operands are sent
# every call: the only copies made are of its 128 MiB arrays (the concurrent
# calls' case).
min_log=$tap_tmp/shim.min.log
env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_VERBOSE=3 TSSHIM_LOG="$min_log" \
  "$abs_top_builddir/tests/cache_mutations" >"$tap_tmp/min.out" 2>&1
status=$?
sizes=$(sed -n 's/^tsshim: cache: new copy of .* (\([0-9][0-9]*\) bytes)$/\1/p' "$min_log" 2>/dev/null | sort -n | uniq -c |
  awk '{ printf "%s%d x %d", (NR > 1 ? ", " : ""), $1, $2 }')
small=$(sed -n 's/^tsshim: cache: new copy of .* (\([0-9][0-9]*\) bytes)$/\1/p' "$min_log" 2>/dev/null |
  awk '$1 < 16777216' | wc -l)
[ $status -eq 0 ] && [ "$small" -eq 0 ] && [ -n "$sizes" ] && ! grep -q '^not ok' "$tap_tmp/min.out"
tap_check $? "with the default TSSHIM_CACHE_MIN_MB (16) every result is right and only operands of 16 MiB or more are" \
  "cached (exit status $status; copies made: ${sizes:-none}; below 16 MiB: $small)"

mpi_log=$tap_tmp/shim.mpi.log
tap_relay "mode gpu, Open MPI rank" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_VERBOSE=1 \
  TSSHIM_CACHE_MIN_MB=1 TSSHIM_LOG="$mpi_log" OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=1 "$abs_top_builddir/tests/cache_mutations"
! grep -q '^tsshim: cache ' "$mpi_log"
tap_check $? "under an MPI launcher the exit report has no cache line (the cache stayed off)"
tap_end
