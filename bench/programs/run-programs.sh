#!/bin/sh
# The program benchmark (issue 42): whole programs the project owns, each run
#   plain  without the shim;
#   auto   under the shim with the defaults, the way the README runs a
#          program: through the tsshim command (BUILD/tools/tsshim, or
#          TSSHIM_COMMAND; LD_PRELOAD of TSSHIM_LIB where there is none),
#          so with its defaults (huge pages for malloc); and with a fresh
#          profile: TSSHIM_PROFILE names a file in an empty directory, so
#          nothing calibrated, learned (learned.* lines) or remembered of the
#          program (program.* lines) is read: a first run;
#   gpu    under the shim with TSSHIM_MODE=gpu (a fresh profile too);
#   best   under the shim with each of the program's candidate settings below
#          (a fresh profile each), keeping the fastest.
# Every TSSHIM_ variable of the caller's environment is dropped first (what
# the script reads of them is read before), so "defaults" are the built-in
# ones; other variables (OPENBLAS_NUM_THREADS, CUDA_VISIBLE_DEVICES) pass on.
# Each program prints "time SECONDS", the wall time of its work (setup such
# as making random operands left out, its first BLAS call and so the GPU's
# start included), and checks its own result ("check ok ..."); a run that
# fails, times out or fails its check makes the exit status 1.
#
# The programs (names for TSSHIM_PROGRAMS):
#   subspace_s, subspace_d, subspace_z  the demo, examples/subspace_iteration.F90
#       (block subspace iteration with CholeskyQR2, GEMMs on n x b blocks), at
#       the realistic size of bench/run-gpu-host.sh's measure step; its check
#       (done here, on its table): Ritz value 1 and its residual within
#       1e-4 (S) or 1e-10 (D, Z) relative, every Ritz value within 1e-3
#   lobpcg        SciPy's lobpcg on a dense symmetric n = 20000 matrix, 16
#                 vectors, 40 iterations (lobpcg.py)
#   tall_skinny   NumPy Gram a.T@b, projection a@s and CholeskyQR of a
#                 4e6 x 16 block, 5 calls each (tall_skinny.py)
#   late_product  NumPy: ~1 s of interpreter work, then ONE 8192^2 GEMM, as
#                 an R or Octave session (late_product.py)
#   cholqr2       C: W = V M (dgemm_), CholeskyQR twice (dsyrk_, dpotrf_,
#                 dtrsm_) of a 2^22 x 16 block, 30 iterations (cholqr2.c)
#   e2e_CASE      bench_e2e's program cases (bench_e2e --list, kind
#                 "program": program_square_d_4096, program_rankk_d_w32):
#                 the same child process run-e2e.sh times, ~0.9 s of CPU work
#                 then one GEMM; its time is the child's whole life, fork to
#                 exit (bench/e2e_program.c), its check bench_e2e's
# A Python program is skipped, with a message, when TSSHIM_PYTHON cannot
# import NumPy (and SciPy for lobpcg); a program not built is skipped too.
#
# Usage: TSSHIM_LIB=/path/to/.libs/libtsshim.so sh bench/programs/run-programs.sh
#   TSSHIM_LIB             the shim (required); the build tree is the folder
#                          above its .libs/
#   TSSHIM_COMMAND         the tsshim command the shim's runs go through
#                          (default BUILD/tools/tsshim; '' or none: LD_PRELOAD)
#   TSSHIM_PYTHON          Python with NumPy and SciPy (default python3)
#   TSSHIM_DEMO_DIR        the demo programs (default BUILD/examples)
#   TSSHIM_E2E_BENCH       bench_e2e (default BUILD/bench/bench_e2e)
#   TSSHIM_CHOLQR2         cholqr2 (default BUILD/bench/programs/cholqr2,
#                          else compiled into the work folder with cc and
#                          TSSHIM_PROGRAMS_LDLIBS, default -llapack -lblas)
#   TSSHIM_PROGRAMS        names or shell patterns of the programs to run
#                          (default all)
#   TSSHIM_PROGRAMS_CSV    the CSV written (default ./programs.csv), columns
#                          program,plain_s,auto_s,gpu_s,best_s,best_settings,
#                          one row as each program finishes
#   TSSHIM_PROGRAMS_SMALL  1: tiny sizes, a smoke run of a few seconds
#   TSSHIM_PROGRAMS_BEST   candidates for every program instead of the lists
#                          below: settings separated by ';', each a list of
#                          VAR=value; 'none' runs no candidate
#   TSSHIM_PROGRAMS_ENV    VAR=value settings added last to EVERY run under
#                          the shim (e.g. TSSHIM_MODE=cpu: a smoke run of the
#                          shim's forwarding where there is no GPU)
#   TSSHIM_PROGRAMS_REPEATS  runs of each variant, the fastest kept (default 1)
#   TSSHIM_PROGRAMS_TIMEOUT  seconds one run may take (default 900)
#   TSSHIM_PROGRAMS_LOGS   keep every run's output in this folder
#   Sizes (defaults; TSSHIM_PROGRAMS_SMALL=1 has its own):
#   TSSHIM_PROGRAMS_DEMO_ARGS    n b iterations report_every  (32768 16 60 10)
#   TSSHIM_PROGRAMS_DEMO_Z_ARGS  the same for subspace_z      (32768 16 20 10)
#   TSSHIM_PROGRAMS_LOBPCG_ARGS  n vectors iterations         (20000 16 40)
#   TSSHIM_PROGRAMS_TALL_ARGS    rows cols calls              (4000000 16 5)
#   TSSHIM_PROGRAMS_LATE_ARGS    n interpreter_steps          (8192 6000000)
#   TSSHIM_PROGRAMS_CHOLQR2_ARGS m n iterations               (4194304 16 30)
#   TSSHIM_PROGRAMS_E2E_SHRINK   bench_e2e's E2E_SHRINK       (1)
# On the GPU host the defaults should take about 10 minutes (an estimate) with 16 OpenBLAS
# threads (OPENBLAS_NUM_THREADS=16), most of it the demo: run the demo and
# the rest as two calls (TSSHIM_PROGRAMS='subspace_*', then
# TSSHIM_PROGRAMS='lobpcg tall_skinny late_product cholqr2 e2e_*').
# Output: one line per run, then a table: the times, auto's ratio to plain
# and to the fastest of plain, gpu and best (below 1: auto is faster), and
# the best candidate.  Exit status: 0, 1 when a run failed or a check failed,
# 2 when the shim is missing or a variable is wrong.

set -u
me=run-programs.sh
here=$(cd "$(dirname "$0")" && pwd)

# The candidate settings of each program's "best" column, ';' between them.
# The start at load (TSSHIM_BACKGROUND_START=2) hides the GPU's start behind
# the setup before the first call; TSSHIM_MIN_FLOPS=1e7 or 1e6 lets the cost
# model judge the demo's 16.8 MFLOP block products and lobpcg's 10 MFLOP
# ones; TSSHIM_HUGE_PAGES=0 and TSSHIM_CACHE_MIN_MB=1 measure what two
# defaults bring (docs/performance.md).
candidates() {
    case $1 in
        subspace_*) echo 'TSSHIM_BACKGROUND_START=2;TSSHIM_HUGE_PAGES=0;TSSHIM_MODE=gpu TSSHIM_CACHE_MIN_MB=1' ;;
        lobpcg) echo 'TSSHIM_BACKGROUND_START=2;TSSHIM_MIN_FLOPS=1e6;TSSHIM_MODE=gpu;TSSHIM_MIN_FLOPS=1e6 OPENBLAS_THREAD_TIMEOUT=4' ;;
        tall_skinny) echo 'TSSHIM_BACKGROUND_START=2' ;;
        late_product) echo 'TSSHIM_BACKGROUND_START=2;TSSHIM_BACKGROUND_START=0' ;;
        cholqr2) echo 'TSSHIM_BACKGROUND_START=2' ;;
        e2e_*) echo 'TSSHIM_BACKGROUND_START=2;TSSHIM_BACKGROUND_START=0' ;;
    esac
}

lib=${TSSHIM_LIB:-}
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
    echo "$me: TSSHIM_LIB must name the built libtsshim.so (it is '${lib}')" >&2
    exit 2
fi
libdir=$(cd "$(dirname "$lib")" && pwd)
lib=$libdir/${lib##*/}
case $libdir in */.libs) build=${libdir%/.libs} ;; *) build=$libdir ;; esac
py=${TSSHIM_PYTHON:-python3}
command=${TSSHIM_COMMAND-$build/tools/tsshim}
[ -x "$command" ] || command=
demo_dir=${TSSHIM_DEMO_DIR:-$build/examples}
e2e=${TSSHIM_E2E_BENCH:-$build/bench/bench_e2e}
cholqr2=${TSSHIM_CHOLQR2:-$build/bench/programs/cholqr2}
ldlibs=${TSSHIM_PROGRAMS_LDLIBS:--llapack -lblas}
wanted=${TSSHIM_PROGRAMS:-*}
csv=${TSSHIM_PROGRAMS_CSV:-./programs.csv}
best_all=${TSSHIM_PROGRAMS_BEST:-}
extra=${TSSHIM_PROGRAMS_ENV:-}
repeats=${TSSHIM_PROGRAMS_REPEATS:-1}
limit=${TSSHIM_PROGRAMS_TIMEOUT:-900}
logs=${TSSHIM_PROGRAMS_LOGS:-}
if [ "${TSSHIM_PROGRAMS_SMALL:-0}" = 1 ]; then
    set -- '1024 16 20 10' '1024 16 20 10' '1000 16 40' '100000 16 3' '1024 200000' '65536 16 5' 16
else
    set -- '32768 16 60 10' '32768 16 20 10' '20000 16 40' '4000000 16 5' '8192 6000000' '4194304 16 30' 1
fi
demo_args=${TSSHIM_PROGRAMS_DEMO_ARGS:-$1}
demo_z_args=${TSSHIM_PROGRAMS_DEMO_Z_ARGS:-$2}
lobpcg_args=${TSSHIM_PROGRAMS_LOBPCG_ARGS:-$3}
tall_args=${TSSHIM_PROGRAMS_TALL_ARGS:-$4}
late_args=${TSSHIM_PROGRAMS_LATE_ARGS:-$5}
cholqr2_args=${TSSHIM_PROGRAMS_CHOLQR2_ARGS:-$6}
shrink=${TSSHIM_PROGRAMS_E2E_SHRINK:-$7}
for v in "$repeats" "$limit" "$shrink"; do
    case $v in
        '' | *[!0-9]* | 0*)
            echo "$me: TSSHIM_PROGRAMS_REPEATS, _TIMEOUT and _E2E_SHRINK must be positive integers" >&2
            exit 2 ;;
    esac
done
# Each candidate and TSSHIM_PROGRAMS_ENV: VAR=value words.
set -f
for list in "$best_all" "$extra" "$(for p in subspace_s lobpcg tall_skinny late_product cholqr2 e2e_; do candidates $p; done)"; do
    for setting in $(echo "$list" | tr ';' ' '); do
        case $setting in
            none | [A-Za-z_]*=*) ;;
            *) echo "$me: a setting must be VAR=value, not '$setting'" >&2; exit 2 ;;
        esac
    done
done
set +f
# Defaults only from here on: no TSSHIM_ setting of the caller reaches a run.
for v in $(env | sed -n 's/^\(TSSHIM_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done

if [ -n "$logs" ]; then
    work=$logs
    mkdir -p "$work" || exit 2
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/tsshim-programs.XXXXXX") || exit 2
    trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM
echo program,plain_s,auto_s,gpu_s,best_s,best_settings >"$csv" || exit 2
: >"$work/table"
status=0

# The programs: the demo's three, the Python ones, cholqr2, bench_e2e's.
programs='subspace_s subspace_d subspace_z lobpcg tall_skinny late_product cholqr2'
if [ -x "$e2e" ]; then
    programs="$programs $("$e2e" --list | awk '$3 == "program" { printf " e2e_%s", $1 }')"
else
    programs="$programs e2e_program_square_d_4096 e2e_program_rankk_d_w32"
fi

# Sets why to the reason NAME cannot run here (empty when it can); compiles
# cholqr2 into the work folder when it is not built.
missing() {
    why=
    case $1 in
        subspace_*) [ -x "$demo_dir/$1" ] || why="$demo_dir/$1 is not built (TSSHIM_DEMO_DIR)" ;;
        lobpcg) "$py" -c 'import numpy, scipy' 2>/dev/null || why="$py cannot import numpy and scipy (TSSHIM_PYTHON)" ;;
        tall_skinny | late_product) "$py" -c 'import numpy' 2>/dev/null || why="$py cannot import numpy (TSSHIM_PYTHON)" ;;
        cholqr2)
            [ -x "$cholqr2" ] && return
            # shellcheck disable=SC2086 # the libraries are words on purpose
            if ${CC:-cc} -O2 -o "$work/cholqr2" "$here/cholqr2.c" $ldlibs -lm >"$work/cholqr2.cc.txt" 2>&1; then
                echo "-- $cholqr2 is not built: compiled $here/cholqr2.c with ${CC:-cc} and $ldlibs"
                cholqr2=$work/cholqr2
            else
                why="$cholqr2 is not built and ${CC:-cc} with $ldlibs failed: $(head -n 2 "$work/cholqr2.cc.txt" | tr '\n' ' ')"
            fi ;;
        e2e_*) [ -x "$e2e" ] || why="$e2e is not built (TSSHIM_E2E_BENCH)" ;;
    esac
}

# Runs NAME once with the settings already exported, LD_PRELOAD=$2, through
# the command $4 (words; empty: none); its stdout to $3, stderr to $3.err.
# Replaces the calling subshell.
launch() {
    set -f # the arguments are words, not file patterns
    # shellcheck disable=SC2086 # split into words on purpose
    case $1 in
        subspace_z) set -- "$1" "$2" "$3" "$4" "$demo_dir/$1" $demo_z_args ;;
        subspace_*) set -- "$1" "$2" "$3" "$4" "$demo_dir/$1" $demo_args ;;
        lobpcg) set -- "$1" "$2" "$3" "$4" "$py" "$here/lobpcg.py" $lobpcg_args ;;
        tall_skinny) set -- "$1" "$2" "$3" "$4" "$py" "$here/tall_skinny.py" $tall_args ;;
        late_product) set -- "$1" "$2" "$3" "$4" "$py" "$here/late_product.py" $late_args ;;
        cholqr2) set -- "$1" "$2" "$3" "$4" "$cholqr2" $cholqr2_args ;;
        e2e_*) set -- "$1" "$2" "$3" "$4" "$e2e" "${1#e2e_}"; E2E_SHRINK=$shrink; export E2E_SHRINK ;;
    esac
    set +f
    out=$3
    preload=$2
    via=$4
    shift 4
    # shellcheck disable=SC2086 # the command, or nothing
    exec timeout -k 10 "$limit" env LD_PRELOAD="$preload" $via "$@" >"$out" 2>"$out.err"
}

# The demo's own check, on the table it prints last ("i theta(i) exact
# |error| residual"): a line "check ok ..." or "check FAIL ...".
demo_check() {
    awk -v tol="$2" '
        function num(s) { return s ~ /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ }
        /^ *i +theta\(i\)/ { table = 1; next }
        /^time/ { table = 0 }
        table && NF == 5 {
            rows++
            if (!num($2) || !num($3) || !num($4) || !num($5)) { bad = "not a number: " $0; next }
            rel = $4 / $3
            if (rel > worst) worst = rel
            if ($1 == 1 && (rel > tol || $5 > tol)) bad = "Ritz pair 1: relative error " rel ", residual " $5
            if (rel > 1e-3) bad = "Ritz value " $1 ": relative error " rel
        }
        END {
            if (!rows) bad = "no table of Ritz values"
            if (bad == "") printf "check ok max_relative_error=%.3g (%d Ritz values; pair 1 within %s)\n", worst, rows, tol
            else print "check FAIL " bad
        }' "$1"
}

# run NAME VARIANT SETTINGS: one run; sets t to its seconds and note to its
# check line, or t empty and note to why it failed.
run() {
    out=$work/$1.$2.$((runs += 1))
    (
        preload=${LD_PRELOAD:-} via=
        if [ "$2" != plain ]; then
            fresh=$(mktemp -d "$work/profile.XXXXXX") || exit 2
            TSSHIM_PROFILE=$fresh/profile
            export TSSHIM_PROFILE
            [ "$2" != gpu ] || { TSSHIM_MODE=gpu; export TSSHIM_MODE; }
            set -f
            for setting in $3 $extra; do
                export "${setting?}" # VAR=value
            done
            set +f
            [ -n "$command" ] || preload=$lib${preload:+ $preload}
            via=${command:+$command --}
        fi
        launch "$1" "$preload" "$out" "${via:-}"
    )
    rc=$?
    case $1 in
        subspace_s) demo_check "$out" 1e-4 >"$out.check" ;;
        subspace_*) demo_check "$out" 1e-10 >"$out.check" ;;
        e2e_*) awk -F, 'NF >= 14 { print "time " $9; print "check " $14 }' "$out" >"$out.check" ;;
    esac
    [ ! -f "$out.check" ] || cat "$out.check" >>"$out"
    t=$(sed -n 's/^time *\([0-9.eE+-]*\).*/\1/p' "$out" | head -n 1)
    note=$(grep '^check ' "$out" | head -n 1)
    if [ $rc -ne 0 ] || [ -z "$t" ] || [ "${note#check ok}" = "$note" ]; then
        [ $rc -eq 124 ] || [ $rc -eq 137 ] && note="timed out after $limit s"
        err=$(tail -n 3 "$out.err" | tr '\n' ' ')
        note="FAILED (exit status $rc; ${note:-no check line}${err:+; stderr: $err})"
        t=
    fi
    printf '%s %-28s %-5s %9s s  %s%s\n' -- "$1" "$2" "$([ -z "$t" ] && echo - || printf '%.3f' "$t")" "$note" \
        "${3:+  [$3]}"
}

# best VARIANT SETTINGS...: runs NAME's variant `repeats` times; sets
# result to the fastest time, empty when a run failed (and status to 1).
best() {
    result='' failed=''
    i=0
    while [ $i -lt "$repeats" ]; do
        i=$((i + 1))
        run "$name" "$1" "$2"
        if [ -z "$t" ]; then
            failed=1
        elif [ -z "$result" ] || awk -v a="$t" -v b="$result" 'BEGIN { exit !(a < b) }'; then
            result=$t
        fi
    done
    if [ -n "$failed" ]; then
        result=
        status=1
        echo "$name $1${2:+ [$2]}" >>"$work/failures"
    fi
}

runs=0
: >"$work/failures"
for name in $programs; do
    set -f
    chosen=
    for pattern in $wanted; do
        # shellcheck disable=SC2254 # patterns on purpose
        case $name in $pattern) chosen=1 ;; esac
    done
    set +f
    [ -n "$chosen" ] || continue
    missing "$name"
    if [ -n "$why" ]; then
        echo "-- $name skipped: $why"
        printf '%-28s skipped: %s\n' "$name" "$why" >>"$work/table"
        continue
    fi
    best plain ''
    plain=$result
    best auto ''
    auto=$result
    best gpu ''
    gpu=$result
    best_t='' best_set='' tried=''
    list=${best_all:-$(candidates "$name")}
    [ "$list" != none ] || list=
    old_ifs=$IFS
    IFS=';'
    set -f
    for cand in $list; do
        IFS=$old_ifs
        cand=$(echo "$cand" | sed 's/^ *//; s/ *$//')
        [ -n "$cand" ] || continue
        set +f
        tried=1
        best best "$cand"
        set -f
        if [ -n "$result" ] && { [ -z "$best_t" ] ||
            awk -v a="$result" -v b="$best_t" 'BEGIN { exit !(a < b) }'; }; then
            best_t=$result best_set=$cand
        fi
        IFS=';'
    done
    IFS=$old_ifs
    set +f
    case $best_set in *,*) best_set="\"$best_set\"" ;; esac
    awk -v n="$name" -v p="$plain" -v a="$auto" -v g="$gpu" -v b="$best_t" -v s="$best_set" '
        function f(x) { return x == "" ? "" : sprintf("%.3f", x) }
        BEGIN { printf "%s,%s,%s,%s,%s,%s\n", n, f(p), f(a), f(g), f(b), s }' >>"$csv"
    awk -v n="$name" -v p="$plain" -v a="$auto" -v g="$gpu" -v b="$best_t" -v s="$best_set" -v tried="$tried" '
        function f(x) { return x == "" ? "FAIL" : sprintf("%.3f", x) }
        function r(x, y) { return x == "" || y == "" || y <= 0 ? "-" : sprintf("%.2f", x / y) }
        BEGIN {
            fast = p
            if (g != "" && (fast == "" || g + 0 < fast + 0)) fast = g
            if (b != "" && (fast == "" || b + 0 < fast + 0)) fast = b
            printf "%-28s %9s %9s %9s %9s %10s %12s  %s\n", n, f(p), f(a), f(g), tried ? f(b) : "-",
                r(a, p), r(a, fast), s == "" ? "-" : s
        }' >>"$work/table"
done

if [ -s "$work/failures" ]; then
    echo "== FAILED runs (program variant [settings]); their output is above:"
    cat "$work/failures"
fi
echo "== programs: seconds of each program's work (the fastest of $repeats run(s) a variant); auto: defaults and"
echo "   a fresh profile; best: the fastest candidate setting; ratios below 1: auto faster; CSV: $csv"
printf '%-28s %9s %9s %9s %9s %10s %12s  %s\n' program plain auto gpu best auto/plain auto/fastest 'best settings'
cat "$work/table"
exit $status
