#!/bin/sh
# The pinned staging ring starts small and grows (cuda/staging.c): under
# the shim, every call on the GPU, the operand cache off, tests/staging_ring
# checks each result against OpenBLAS, and the trace's pipeline lines
# (ring=UP+DOWNxSIZE) must show the buffers each call used: 4 MB ones (the
# 32 MB ring the start makes) until calls have streamed 1 GiB through it,
# 16 MB ones (the whole 256 MB ring) from then on, and the whole ring at
# once for a call that streams more than it or one column of whose C the
# small ring cannot hold; and each call's trace line whether its time may
# teach the cost model (ring_cold=0: the grown ring, made by an earlier
# call).  Skipped where no CUDA device is usable.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
have_gpu || tap_skip_all "no CUDA device"

# check CASE SIZES COLD [VAR=VALUE...]: runs the case, then compares the
# buffer size of each pipeline line of its trace, in order, with SIZES, and
# each call's ring_cold (the ring as it starts, or made by the call: the
# call's time teaches the cost model nothing) with COLD.
check() {
  case=$1
  want=$2
  want_cold=$3
  shift 3
  log=$tap_tmp/$case.log
  rm -f "$log"
  tap_relay "$case" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_CACHE=0 TSSHIM_STAGING_MB=256 "$@" \
    TSSHIM_VERBOSE=3 TSSHIM_LOG="$log" "$abs_top_builddir/tests/staging_ring" "$case"
  sizes=$(sed -n 's/.*pipeline dgemm_ .* ring=[0-9]*+[0-9]*x\([0-9]*\)MB .*/\1/p' "$log" | tr '\n' ' ')
  cold=$(sed -n 's/^tsshim: dgemm_ NN .* run=gpu .* ring_cold=\([01]\) .*$/\1/p' "$log" | tr '\n' ' ')
  [ "$sizes" = "$want " ] && [ "$cold" = "$want_cold " ]
  tap_check $? "$case: the calls used buffers of ${sizes:-no} MB, expected $want; ring_cold ${cold:-none}," \
    "expected $want_cold"
}

check grow "4 4 4 4 4 4 16 16" "1 1 1 1 1 1 1 0"
check large "16" "1"
check column "16" "1" TSSHIM_MAX_SKINNY=4
tap_end
