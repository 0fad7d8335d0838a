#!/bin/sh
# The end-to-end benchmark at small sizes (E2E_SHRINK): bench/run-e2e.sh
# runs cases of every kind plain, in auto mode and forced to the GPU (all
# forwarded without one), and every result passes bench_e2e's check; on a
# GPU host that checks the device copies the reuse cases keep.  Times are
# never looked at.
. "$abs_top_srcdir/tests/tap-functions.sh"

cases='tsm2_s_w16 ism2_z_w16 tsmttsm_d_w8 rankk_d_w16 small_z_32 reuse_tsm2_d_w16 rewrite_tsm2_d_w16
  reuse_gram_d_w16 chain_d_w16 program_rankk_d_w32'
# shellcheck disable=SC2086
E2E_SHRINK=16 E2E_ROUNDS=1 E2E_WARMUP_S=0 BENCH=$abs_top_builddir/bench/bench_e2e \
  sh "$abs_top_srcdir/bench/run-e2e.sh" "$tap_tmp/out" '' $cases >"$tap_tmp/table" 2>"$tap_tmp/err"
tap_check $? "run-e2e.sh: exit status 0"
sed 's/^/# /' "$tap_tmp/err"
[ ! -s "$tap_tmp/err" ]
tap_check $? "nothing on stderr (a wrong result, a failed run, a sanitizer's report)"
for c in $cases; do
  awk -F, -v c="$c" '$1 == c && $NF == "ok" { found = 1 } END { exit !found }' "$tap_tmp/out/e2e.csv"
  tap_check $? "$c: the results of the plain, auto and gpu runs pass the check"
done
tap_end
