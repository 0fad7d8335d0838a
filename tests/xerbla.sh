#!/bin/sh
# Invalid arguments reach the CPU BLAS's own xerbla: output and exit status are
# those of the program without the shim, in every mode.
. "$abs_top_srcdir/tests/tap-functions.sh"

for arg in 1 2 3 8 10 13; do
  tap_same_as_plain "$arg" "bad argument $arg (xerbla)" "$client" bad $arg
done
tap_end
