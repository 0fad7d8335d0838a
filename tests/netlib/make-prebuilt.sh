#!/bin/sh
# Builds the level-3 BLAS testers of LAPACK into OUTDIR, each next to its
# standard input file NAME.in, linked against the shared system BLAS so that
# an LD_PRELOADed libtsshim.so intercepts their calls. SET blas3: the netlib
# testers sblat3 dblat3 cblat3 zblat3 (Fortran, calling ?gemm_ ...); SET
# cblas3: the CBLAS testers c_sblat3 c_dblat3 c_cblat3 c_zblat3 (Fortran
# drivers with C parts calling cblas_?gemm ...). OUTDIR can be carried to a
# host without compilers and used there as TSSHIM_NETLIB_BIN.
# Usage: make-prebuilt.sh OUTDIR [SET...]   (default: blas3 cblas3)
# Environment:
#   TSSHIM_NETLIB_SRC  an unpacked lapack source tree, or a folder with the
#                      ?blat3.f and ?blat3.in files (and in its cblas/ the
#                      CBLAS testers' files), or a folder to fetch them into
#                      (default: $TMPDIR/tsshim-netlib-src)
#   FC                 Fortran compiler (default gfortran; set but empty
#                      means there is none), FCFLAGS (default -O2),
#   CC                 C compiler (default cc), CFLAGS (default -O2),
#   BLAS_LIBS          how to link the BLAS (default -lblas); the CBLAS
#                      testers take the first of BLAS_LIBS, -lcblas BLAS_LIBS
#                      and -lopenblas that provides the cblas_ routines
# Exit 0 on success; 77 with a one-line reason on stdout when the sources,
# a compiler or a CBLAS library are missing; 1 when a build fails (compiler
# output on stderr).

out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)

skip() {
    echo "$*"
    exit 77
}

# have_compiler LANGUAGE VARIABLE COMMAND...: the compiler exists.
have_compiler() {
    [ $# -gt 2 ] || skip "no $1 compiler ($2 is empty)"
    command -v "$3" >/dev/null 2>&1 || skip "no $1 compiler ($3 not found)"
}

# Word splitting of the compilers and flags is intended: they are lists of
# options.
fc=${FC-gfortran}
have_compiler Fortran FC $fc
blas_libs=${BLAS_LIBS--lblas}
src=${TSSHIM_NETLIB_SRC:-${TMPDIR:-/tmp}/tsshim-netlib-src}
mkdir -p "$out" || exit 1

# fetch FOLDER SET: SET's files into FOLDER, which becomes $dir.
fetch() {
    dir=$1
    reason=$(sh "$here/fetch-lapack-source.sh" "$1" "$2") ||
        skip "${reason:-fetching the lapack sources failed}"
}

build_blas3() {
    if [ -d "$src/BLAS/TESTING" ]; then
        dir=$src/BLAS/TESTING
    else
        fetch "$src" blas3
    fi
    for t in sblat3 dblat3 cblat3 zblat3; do
        $fc ${FCFLAGS--O2} -o "$out/$t" "$dir/$t.f" $blas_libs || exit 1
        cp "$dir/$t.in" "$out/" || exit 1
    done
}

build_cblas3() {
    cc=${CC-cc}
    have_compiler C CC $cc
    if [ -d "$src/CBLAS/testing" ]; then
        dir=$src/CBLAS/testing
        inc=$src/CBLAS/include
    else
        fetch "$src/cblas" cblas3
        inc=$dir
    fi
    obj=$out/.obj-cblas3
    rm -rf "$obj" && mkdir "$obj" || exit 1
    # As LAPACK's build does (Fortran names in lower case with an
    # underscore).
    cp "$inc/cblas_mangling_with_flags.h.in" "$obj/cblas_mangling.h" || exit 1
    # The testers set and read RowMajorStrg, a variable of the reference
    # CBLAS library that OpenBLAS lacks; defined in the program, it serves
    # with either (the reference library's references bind to it).
    echo 'int RowMajorStrg;' >"$obj/globals.c" || exit 1
    for c in auxiliary c_xerbla c_sblas3 c_s3chke c_dblas3 c_d3chke \
        c_cblas3 c_c3chke c_zblas3 c_z3chke; do
        $cc ${CFLAGS--O2} -I"$obj" -I"$inc" -c -o "$obj/$c.o" "$dir/$c.c" ||
            exit 1
    done
    $cc ${CFLAGS--O2} -c -o "$obj/globals.o" "$obj/globals.c" || exit 1
    libs=
    for p in s d c z; do
        t=c_${p}blat3
        set -- "$obj/c_${p}blas3.o" "$obj/c_${p}3chke.o" "$obj/auxiliary.o" \
            "$obj/c_xerbla.o" "$obj/globals.o"
        $fc ${FCFLAGS--O2} -c -o "$obj/$t.o" "$dir/$t.f" || exit 1
        if [ -z "$libs" ]; then
            # The first tester finds the library: failed tries go to stderr.
            for try in "$blas_libs" "-lcblas $blas_libs" -lopenblas; do
                if $fc ${FCFLAGS--O2} -o "$out/$t" "$obj/$t.o" "$@" $try; then
                    libs=$try
                    break
                fi
            done
            [ -n "$libs" ] || skip "no CBLAS library: none of '$blas_libs'," \
                "'-lcblas $blas_libs', -lopenblas links the CBLAS testers"
        else
            $fc ${FCFLAGS--O2} -o "$out/$t" "$obj/$t.o" "$@" $libs || exit 1
        fi
        cp "$dir/${p}in3" "$out/$t.in" || exit 1
    done
    rm -rf "$obj"
}

[ $# -gt 0 ] || set -- blas3 cblas3
for testset in "$@"; do
    case $testset in
    blas3) build_blas3 ;;
    cblas3) build_cblas3 ;;
    *)
        echo "usage: $0 OUTDIR [blas3|cblas3]..." >&2
        exit 1
        ;;
    esac
done
rm -f "$out/VERSION"
if [ -r "$dir/VERSION" ]; then
    cp "$dir/VERSION" "$out/" || exit 1
fi
