#!/bin/sh
# Decides whether one run of a netlib level-3 BLAS tester (?blat3) passed,
# from the summary file it wrote and the input file that drove it.
# Usage: check-blat3-summary.sh SUMMARY INPUT
# Exit 0 when the run reached its end and every routine the input enables
# passed both its error-exit and its computational tests; otherwise print the
# reasons as TAP diagnostics ("# ...") and exit 1.

summary=$1
input=$2

if [ ! -f "$summary" ]; then
    echo "# no summary file $summary"
    exit 1
fi
status=0

# Every failure message of the testers carries one of these (see the FORMAT
# statements of ?blat3.f: FATAL ERROR, XERBLA WAS CALLED, ILLEGAL VALUE ...
# NOT DETECTED and FAILED lines all have asterisks; the rest are spelled out).
bad=$(grep -E '\*\*\*|SUSPECT|FAIL|NOT (BE )?TESTED|NOT RECOGNIZED|ERROR IN|AMEND' "$summary")
if [ -n "$bad" ]; then
    printf '%s\n' "$bad" | sed 's/^/# /'
    status=1
fi

# A tester that died half-way leaves no failure line: demand its last words.
if ! grep -q 'END OF TESTS' "$summary"; then
    echo "# the run did not reach END OF TESTS"
    status=1
fi

# The routines to test are the input's records "NAME  T" (Fortran A6, L2).
routines=$(awk '/^[SDCZ][A-Z0-9]+ +\.?T/ { print $1 }' "$input")
if [ -z "$routines" ]; then
    echo "# $input enables no routine"
    status=1
fi
for r in $routines; do
    for what in 'PASSED THE TESTS OF ERROR-EXITS' 'PASSED THE COMPUTATIONAL TESTS'; do
        if ! grep -q "^ *$r  *$what" "$summary"; then
            echo "# missing: $r $what"
            status=1
        fi
    done
done
exit $status
