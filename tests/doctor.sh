#!/bin/sh
# tsshim doctor (tools/tsshim_doctor.c): one line per fact it checked, the
# same through the launcher, and its exit status: 0 when GPU offload is
# possible, 1 where no GPU is (what this test expects without one).
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
tsshim=$abs_top_builddir/tools/tsshim
[ -x "$tsshim" ] || tap_skip_all "tools/tsshim not built"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"; export ASAN_OPTIONS

"$tsshim" doctor >"$tap_tmp/out" 2>"$tap_tmp/err"
doctor_status=$?
sed 's/^/# /' "$tap_tmp/out"
sed 's/^/# stderr: /' "$tap_tmp/err"
for topic in library mode cpu-blas gpu cache hugepages profile mps verdict; do
  grep -q "^$topic " "$tap_tmp/out"
  tap_check $? "a '$topic' line"
done
# The families: each forwarded somewhere or said to be missing.
for name in dgemm_ dgemm_64_ cblas_dgemm scipy_dgemm_64_; do
  grep -q "^cpu-blas *$name .*\\(forwarded to /\\|not found\\)" "$tap_tmp/out"
  tap_check $? "$name: the CPU BLAS it would be forwarded to, or not found"
done
if [ -n "$OPENBLAS_LIB" ]; then
  TSSHIM_CPU_BLAS=$OPENBLAS_LIB "$tsshim" doctor >"$tap_tmp/named" 2>&1
  grep -q "^cpu-blas *dgemm_ .*forwarded to .*openblas" "$tap_tmp/named"
  tap_check $? "TSSHIM_CPU_BLAS=$OPENBLAS_LIB: dgemm_ forwarded to it"
else
  tap_skip_point "TSSHIM_CPU_BLAS: no OpenBLAS found by configure"
fi
grep -q "^hugepages .*/sys/kernel/mm/transparent_hugepage/enabled" "$tap_tmp/out"
tap_check $? "huge pages: says what it read"
grep -q "^cache *write tracking \\(works\\|unavailable: .\\)" "$tap_tmp/out"
tap_check $? "write tracking: works, or why not"

if have_gpu && [ -f "$(dirname "$TSSHIM_LIB")/libtsshim-cuda.so" ]; then
  [ $doctor_status -eq 0 ] && grep -q '^gpu .*device(s) visible' "$tap_tmp/out" && grep -q '^gpu .*GiB free' "$tap_tmp/out"
  tap_check $? "a GPU: its devices and free memory, exit status 0 (got $doctor_status)"
else
  [ $doctor_status -eq 1 ] && grep -q '^gpu .*\(not found\|no usable GPU\)' "$tap_tmp/out" &&
    grep -q '^verdict *no GPU offload' "$tap_tmp/out"
  tap_check $? "no GPU: it says so, exit status 1 (got $doctor_status)"
fi

TSSHIM_MODE=cpu "$tsshim" doctor >"$tap_tmp/cpu" 2>&1
status=$?
[ $status -eq 1 ] && grep -q '^verdict *TSSHIM_MODE=cpu' "$tap_tmp/cpu"
tap_check $? "TSSHIM_MODE=cpu: no offload, exit status 1 (got $status)"

OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=4 "$tsshim" doctor >"$tap_tmp/mpi" 2>&1
grep -q '^mps *MPI local rank 1 of 4.*MPS daemon \(running\|not running\)' "$tap_tmp/mpi"
tap_check $? "under an MPI launcher: the MPS daemon's state ($(grep '^mps' "$tap_tmp/mpi"))"

# A program named doctor runs as a program after --.
mkdir "$tap_tmp/bin"
printf '#!/bin/sh\necho "the program doctor: $LD_PRELOAD"\n' >"$tap_tmp/bin/doctor"
chmod +x "$tap_tmp/bin/doctor"
PATH=$tap_tmp/bin:$PATH "$tsshim" -- doctor >"$tap_tmp/prog" 2>&1
grep -q '^the program doctor: .*libtsshim.so' "$tap_tmp/prog"
tap_check $? "tsshim -- doctor runs a program named doctor under the shim"

"$abs_top_builddir/tools/tsshim-doctor" --bogus >/dev/null 2>&1
[ $? -eq 2 ]
tap_check $? "an unknown argument: status 2"
tap_end
