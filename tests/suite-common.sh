# What the scripts running other projects' test suites under the shim
# (tests/lapack/check-lapack.sh, tests/scalapack/check-scalapack.sh) share
# (sourced).

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
