#!/bin/sh
# The level-3 routines other than GEMM on device, managed and pinned
# operands through the shim (tests/level3_device.c), in cpu mode (device
# operands must run on the GPU in every mode) and in gpu mode; the exit
# report must show every call on the GPU, none fallen back.  Skipped
# without a CUDA device.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
have_gpu || tap_skip_all "no CUDA device"
for mode in cpu gpu; do
  tap_relay "mode $mode" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=$mode TSSHIM_MIN_LONG=512 TSSHIM_VERBOSE=1 \
    TSSHIM_LOG="$tap_tmp/shim.$mode" "$abs_top_builddir/tests/level3_device"
  # Lines "tsshim: dtrsm_ calls=N offloaded=M fallbacks=F ...", one per
  # routine (26 Fortran names): none fell back and calls ran on the GPU: in
  # gpu mode all but the alpha = 0 ones whose C (B) the CPU can read, which
  # are scaled on the host as GEMM's are; in cpu mode those with a device
  # operand (managed ones may be forwarded).
  awk '$1 == "tsshim:" && $2 ~ /^[sdcz](syrk|herk|trsm|symm|hemm|trmm|syr2k|her2k)_$/ {
         for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         seen++
         if (v["fallbacks"] != 0 || v["offloaded"] == 0) {
           print "# " $0
           bad = 1
         }
       }
       END { exit bad || seen != 26 }' "$tap_tmp/shim.$mode"
  tap_check $? "mode $mode: the exit report shows the calls of each routine on the GPU, none fallen back"
done
tap_end
