# What the scripts running other projects' test suites and programs under
# the shim (tests/lapack/check-lapack.sh, tests/scalapack/check-scalapack.sh,
# bench/scalapack/run-cholqr.sh) share (sourced).

bail() {
    echo "Bail out! $*"
    exit 1
}

skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}

# elapsed SECONDS: as "1234 s (20m34s)".
elapsed() {
    printf '%d s (%dm%02ds)' "$1" $(($1 / 60)) $(($1 % 60))
}

# require_shim VARIABLE MODES: TSSHIM_LIB names a file and every word of
# MODES (the value of the variable named) is a mode of the shim.
require_shim() {
    if [ -z "${TSSHIM_LIB:-}" ] || [ ! -f "$TSSHIM_LIB" ]; then
        bail "TSSHIM_LIB='${TSSHIM_LIB:-}' is not a file"
    fi
    for m in $2; do
        case $m in
        cpu | auto | gpu) ;;
        *) bail "$1: '$m' is not cpu, auto or gpu" ;;
        esac
    done
}

# find_testers VARIABLE MARKER HINT DIR...: $src, the testers' folder: the
# one the variable named names (it must exist), else the first DIR holding
# MARKER (a file the package installs there); with neither, SKIP with HINT.
find_testers() {
    eval "named=\${$1:-}"
    if [ -n "$named" ]; then
        src=$(cd "$named" 2>/dev/null && pwd) || bail "$1='$named' is not a folder"
        return
    fi
    marker=$2
    hint=$3
    shift 3
    src=
    for d in "$@"; do
        if [ -r "$d/$marker" ]; then
            src=$d
            return
        fi
    done
    skip_all "$hint"
}

# plain_point: the TAP point of the run without the shim (the next $n),
# from the caller's `finished plain` (its report of testers that did not
# end, printed after), and that run's wall time ($seconds).
plain_point() {
    n=$((n + 1))
    if out=$(finished plain); then
        echo "ok $n - plain run (system BLAS, no shim): every tester ran to its end"
    else
        echo "not ok $n - plain run (system BLAS, no shim): testers failed"
    fi
    echo "# plain run: $(elapsed "$seconds") wall"
    [ -z "$out" ] || echo "$out"
}

# suite_start: the shared start of a run once the inputs are checked:
# $timeout_cmd (GNU timeout of $limit seconds, which signals the whole
# process group, so a hung tester ends its run; empty without timeout),
# $gpu_skip (why modes that need a GPU cannot run here, else empty),
# $base made anew.
suite_start() {
    timeout_cmd=
    if command -v timeout >/dev/null 2>&1; then
        timeout_cmd="timeout -k 10 $limit"
    fi
    . "$abs_top_srcdir/tests/tap-programs.sh" # have_gpu
    gpu_skip=
    have_gpu || gpu_skip="no usable CUDA device (tests/has_gpu)"
    rm -rf "$base"
    mkdir -p "$base" || bail "cannot create $base"
}

# open_mpi_setup: $mpirun, Open MPI's launcher (TSSHIM_SCALAPACK_MPIRUN, else
# mpirun.openmpi, else mpirun: Debian's "mpirun" may be MPICH's, and the
# ScaLAPACK programs are built for Open MPI), or empty when there is none;
# and Open MPI's settings for a container, the caller's values first: as
# root only when allowed; shared memory between the ranks of this one host
# (no network), through ob1 so that the BTL choice holds (UCX would probe
# for networks), and no single-copy mechanism (CMA needs ptrace rights that
# containers often lack).
open_mpi_setup() {
    mpirun=
    if [ -n "${TSSHIM_SCALAPACK_MPIRUN:-}" ]; then
        command -v "$TSSHIM_SCALAPACK_MPIRUN" >/dev/null 2>&1 ||
            bail "TSSHIM_SCALAPACK_MPIRUN='$TSSHIM_SCALAPACK_MPIRUN' is not a command"
        mpirun=$TSSHIM_SCALAPACK_MPIRUN
    elif command -v mpirun.openmpi >/dev/null 2>&1; then
        mpirun=mpirun.openmpi
    elif command -v mpirun >/dev/null 2>&1; then
        mpirun=mpirun
    fi
    if [ "$(id -u)" -eq 0 ]; then
        OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
        export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    fi
    OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
    OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
    OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
    export OMPI_MCA_pml OMPI_MCA_btl OMPI_MCA_btl_vader_single_copy_mechanism
}
