#!/bin/sh
# Decides whether one run of a level-3 BLAS tester passed, a netlib one
# (?blat3) or a CBLAS one (c_?blat3), from the summary it wrote and the
# input file that drove it.
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
# statements of ?blat3.f and c_?blat3.f and the printf calls of c_?3chke.c
# and c_xerbla.c: FATAL ERROR, XERBLA WAS CALLED, ILLEGAL VALUE ... NOT
# DETECTED and FAILED lines all have asterisks; the rest are spelled out).
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

# The routines to test are the input's records "NAME  T" (Fortran A6, L2;
# CBLAS: A12, L2).
routines=$(awk '/^(cblas_[sdcz]|[SDCZ])[A-Za-z0-9]+ +\.?T/ { print $1 }' "$input")
if [ -z "$routines" ]; then
    echo "# $input enables no routine"
    status=1
fi
# The CBLAS testers test each data layout the input asks for apart.
case $(awk '/TO TEST ROW-MAJOR/ { print $1 }' "$input") in
'') computational='PASSED THE COMPUTATIONAL TESTS' ;;
0) computational='PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS' ;;
1) computational='PASSED THE ROW-MAJOR COMPUTATIONAL TESTS' ;;
*) computational='PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS
PASSED THE ROW-MAJOR COMPUTATIONAL TESTS' ;;
esac
# Runs of blanks count as one (the testers align their columns).
squeezed=$(tr -s ' ' <"$summary")
missing=$(for r in $routines; do
    printf '%s\n' 'PASSED THE TESTS OF ERROR-EXITS' "$computational" |
        while IFS= read -r what; do
            printf '%s\n' "$squeezed" | grep -q "^ *$r $what" ||
                echo "# missing: $r $what"
        done
done)
if [ -n "$missing" ]; then
    printf '%s\n' "$missing"
    status=1
fi
exit $status
