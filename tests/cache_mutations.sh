#!/bin/sh
# The operand cache under every mutation of tests/cache_mutations.c, with
# the shim forcing every call onto the GPU, plus points of its own on the
# exit report: the cache was used (hits), refreshed written bytes, dropped
# copies of memory that went away, and stepped aside for the program's own
# userfaultfd; so a run where caching silently never happened cannot pass.
# Skipped where no CUDA device is usable.  TAP on stdout.

: "${abs_top_builddir:=.}"
bin=$abs_top_builddir/tests
if ! "$bin/has_gpu"; then
    echo "1..0 # SKIP no CUDA device"
    exit 0
fi
if [ ! -f "${TSSHIM_LIB:-}" ]; then
    echo "Bail out! TSSHIM_LIB does not name the built libtsshim.so"
    exit 1
fi
shimlog=$bin/cache_mutations.shimlog
out=$bin/cache_mutations.out
rm -f "$shimlog" "$out"

env LD_PRELOAD="${TSSHIM_PRELOAD:-$TSSHIM_LIB}" TSSHIM_MODE=gpu TSSHIM_VERBOSE=1 \
    TSSHIM_LOG="$shimlog" "$bin/cache_mutations" >"$out"
status=$?
grep -v '^1\.\.[0-9]*$' "$out"
n=$(grep -c -E '^(not )?ok' "$out")

# cache_field NAME: the number after NAME= on the report's cache line.
cache_field() {
    sed -n "s/^tsshim: cache .*$1=\([0-9][0-9]*\).*/\1/p" "$shimlog" 2>/dev/null | tail -n 1
}
for field in hits refreshed invalidated untracked; do
    n=$((n + 1))
    v=$(cache_field "$field")
    if [ "${v:-0}" -gt 0 ]; then
        echo "ok $n - exit report: cache $field=$v"
    else
        echo "not ok $n - exit report: cache $field is ${v:-missing}, expected > 0"
        [ -f "$shimlog" ] && sed 's/^/# /' "$shimlog"
    fi
done
echo "1..$n"
exit $status
