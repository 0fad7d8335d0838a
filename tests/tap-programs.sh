# Helpers for sh tests that run TAP test programs under the shim (sourced
# after tap-functions.sh).

# tap_skip_point REASON: one skipped point.
tap_skip_point() {
  tap_n=$((tap_n + 1))
  echo "ok $tap_n # SKIP $*"
}

# have_gpu: status 0 when a CUDA device is usable.  tests/has_gpu asks the
# driver (CUDA_VISIBLE_DEVICES applies); nvidia-smi answers where it is not built.
have_gpu() {
  [ "$(gpu_count)" -gt 0 ]
}

# gpu_count: prints the number of usable CUDA devices (0 without one), asked
# the same way.
gpu_count() {
  if [ -x "$abs_top_builddir/tests/has_gpu" ]; then
    "$abs_top_builddir/tests/has_gpu" --count
  elif command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>/dev/null | grep -c '^GPU '
  else
    echo 0
  fi
}

# python_venv: prints the interpreter of the tests' virtual environment
# ($abs_top_builddir/tests/venv, made once, shared by the Python tests) with
# NumPy and SciPy from PyPI; status 1, and the reason printed, when it
# cannot be made (no python3 venv module, pip cannot reach PyPI).
python_venv() {
  venv=$abs_top_builddir/tests/venv
  (
    command -v flock >/dev/null && flock 9
    if [ ! -f "$venv/ready" ]; then
      rm -rf "$venv"
      python3 -m venv "$venv" >"$venv.log" 2>&1 || { echo "python3 -m venv failed: $(tail -1 "$venv.log")"; exit 1; }
      "$venv/bin/pip" install -q --disable-pip-version-check numpy scipy >>"$venv.log" 2>&1 ||
        { echo "pip cannot install numpy and scipy from PyPI: $(tail -1 "$venv.log")"; exit 1; }
      touch "$venv/ready"
    fi
    echo "$venv/bin/python"
  ) 9>"$venv.lock"
}

# report_counts FILE MODE: each routine named in $names counted once by the
# exit report in FILE, and offloaded too in gpu mode where $gpu is yes;
# prints the first line that is not so.
report_counts() {
  for name in $names; do
    line=$(grep "tsshim: $name calls=" "$1") || { echo "no report line for $name"; return 1; }
    case $line in *" calls=1 "*) ;; *) echo "$line"; return 1 ;; esac
    if [ "$2" = gpu ] && [ "$gpu" = yes ]; then
      case $line in *" offloaded=1 "*) ;; *) echo "$line"; return 1 ;; esac
    fi
  done
}

# tap_relay LABEL COMMAND...: runs a program that prints TAP and relays its
# points into this script's numbering, each description prefixed by LABEL.
# A Bail out!, a plan that does not match its points, a non-zero exit
# status (a crash, an ASan report) or anything on stderr (the shim is silent
# unless asked; a UBSan report) adds one failed point.
tap_relay() {
  relay_label=$1
  shift
  "$@" >"$tap_tmp/relay.out" 2>"$tap_tmp/relay.err"
  relay_status=$?
  relay_points=0
  relay_plan=none
  relay_bail=
  while IFS= read -r line; do
    case $line in
      "ok "* | "not ok "*)
        relay_points=$((relay_points + 1))
        tap_n=$((tap_n + 1))
        relay_result=${line%%ok *}ok
        relay_rest=${line#"$relay_result" }
        relay_rest=${relay_rest#* }
        case $relay_rest in
          "# SKIP"*) echo "$relay_result $tap_n # SKIP $relay_label: ${relay_rest#"# SKIP "}" ;;
          *) echo "$relay_result $tap_n - $relay_label: ${relay_rest#"- "}" ;;
        esac
        [ "$relay_result" = ok ] || tap_fail=$((tap_fail + 1))
        ;;
      1..*) relay_plan=${line#1..} ;;
      "Bail out!"*) relay_bail=$line; echo "# $line" ;;
      *) echo "# $line" ;;
    esac
  done <"$tap_tmp/relay.out"
  sed 's/^/# stderr: /' "$tap_tmp/relay.err"
  [ $relay_status -eq 0 ] && [ -z "$relay_bail" ] && [ "$relay_plan" = "$relay_points" ] &&
    [ ! -s "$tap_tmp/relay.err" ]
  tap_check $? "$relay_label: the program ran to completion, nothing on stderr" \
    "(status $relay_status, plan $relay_plan, $relay_points points)${relay_bail:+, $relay_bail}"
}

# check_level3_report LOG MODE ROUTINES...: one point per routine, its line
# of the exit report in LOG: in gpu mode some calls offloaded and none fell
# back, else calls counted and none offloaded.
check_level3_report() {
  log=$1 mode=$2
  shift 2
  for r in "$@"; do
    line=$(grep "^tsshim: $r calls=" "$log")
    calls=$(echo "$line" | sed -n 's/.* calls=\([0-9]*\).*/\1/p')
    offloaded=$(echo "$line" | sed -n 's/.* offloaded=\([0-9]*\).*/\1/p')
    fallbacks=$(echo "$line" | sed -n 's/.* fallbacks=\([0-9]*\).*/\1/p')
    if [ "$mode" = gpu ]; then
      [ "${offloaded:-0}" -gt 0 ] && [ "${fallbacks:-1}" -eq 0 ]
    else
      [ "${calls:-0}" -gt 0 ] && [ "${offloaded:-1}" -eq 0 ]
    fi
    tap_check $? "mode $mode: the exit report's $r line fits (${line:-no line})"
  done
}
