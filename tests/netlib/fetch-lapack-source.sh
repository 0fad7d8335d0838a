#!/bin/sh
# Fetches testers of the level-3 BLAS from the distribution's lapack source
# package (Debian or Ubuntu) into DEST, with VERSION (the package version).
# SET blas3 (the default): the netlib testers {s,d,c,z}blat3.f and their
# standard input files {s,d,c,z}blat3.in (BLAS/TESTING). SET cblas3: the
# CBLAS testers' files of CBLAS/testing (c_?blat3.f, c_?blas3.c, c_?3chke.c,
# auxiliary.c, c_xerbla.c, the input files ?in3) and the headers they
# include (CBLAS/include: cblas.h, cblas_test.h, and
# cblas_mangling_with_flags.h.in, which LAPACK's build copies to
# cblas_mangling.h).
# Usage: fetch-lapack-source.sh DEST [SET]
# Exit 0 when DEST holds the files (already, or now); exit 77 with a one-line
# reason on stdout when they cannot be had here. apt's own output goes to
# stderr.
#
# apt runs on a private configuration: the system's "deb" entries for this
# release, turned into "deb-src", with its own index directory. So this needs
# neither root nor a change to /etc/apt, and the system's package lists stay
# as they were.

dest=$1
# The files, by their paths in the source tree; DEST holds them by base name.
files=
case ${2:-blas3} in
blas3)
    for p in s d c z; do
        files="$files BLAS/TESTING/${p}blat3.f BLAS/TESTING/${p}blat3.in"
    done
    ;;
cblas3)
    for p in s d c z; do
        for f in c_${p}blat3.f c_${p}blas3.c c_${p}3chke.c ${p}in3; do
            files="$files CBLAS/testing/$f"
        done
    done
    files="$files CBLAS/testing/auxiliary.c CBLAS/testing/c_xerbla.c
        CBLAS/include/cblas.h CBLAS/include/cblas_test.h
        CBLAS/include/cblas_mangling_with_flags.h.in"
    ;;
*)
    echo "usage: $0 DEST [blas3|cblas3]" >&2
    exit 2
    ;;
esac

skip() {
    echo "$*"
    exit 77
}

# lacking DIR [TREE]: the first file DIR lacks (by base name; by its path
# when TREE is set), or nothing.
lacking() {
    for f in $files; do
        [ -n "${2:-}" ] || f=${f##*/}
        if [ ! -r "$1/$f" ]; then
            echo "$f"
            return
        fi
    done
}

[ -z "$(lacking "$dest")" ] && exit 0

command -v apt-get >/dev/null 2>&1 && command -v apt-config >/dev/null 2>&1 ||
    skip "no apt-get to fetch the lapack sources"
codename=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null)
[ -n "$codename" ] || skip "no VERSION_CODENAME in /etc/os-release"

work=$(mktemp -d "${TMPDIR:-/tmp}/tsshim-lapack.XXXXXX") ||
    skip "cannot create a temporary directory"
trap 'rm -rf "$work"' EXIT
# As root, apt downloads as the user _apt, which must reach these folders.
chmod 755 "$work"
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache" "$work/pkg" &&
    : >"$work/sources.list" || skip "cannot write to $work"
chmod 777 "$work/pkg"

eval "$(apt-config shell sys_list Dir::Etc::SourceList/f sys_parts Dir::Etc::SourceParts/d)"

# One-line format (sources.list, *.list): "deb [options] URI SUITE COMP...".
for f in "$sys_list" "$sys_parts"*.list; do
    [ -r "$f" ] && cat "$f"
done | awk -v code="$codename" '
    $1 == "deb" {
        i = 2
        if ($2 ~ /^\[/) {
            while (i < NF && $i !~ /\]$/)
                i++
            i++
        }
        suite = $(i + 1)
        if (suite == code || index(suite, code "-") == 1) {
            $1 = "deb-src"
            print
        }
    }' >"$work/parts/system.list"

# deb822 format (*.sources): stanzas separated by blank lines; keep each one
# of type deb, with its options and keys, limited to this release's suites.
for f in "$sys_parts"*.sources; do
    [ -r "$f" ] && { cat "$f"; echo; }
done | awk -v code="$codename" '
    function flush(    n, i, w, kept) {
        n = split(suites, w, " ")
        kept = ""
        for (i = 1; i <= n; i++)
            if (w[i] == code || index(w[i], code "-") == 1)
                kept = kept " " w[i]
        if (is_deb && enabled && kept != "")
            printf "Types: deb-src\nSuites:%s\n%s\n\n", kept, body
        is_deb = 0; enabled = 1; suites = ""; body = ""
    }
    BEGIN { enabled = 1 }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    {
        key = tolower($1)
        val = $0
        sub(/^[^:]*:[ \t]*/, "", val)
        if (key == "types:")
            is_deb = (" " val " " ~ /[ \t]deb[ \t]/)
        else if (key == "suites:")
            suites = val
        else if (key == "enabled:")
            enabled = (tolower(val) !~ /^no/)
        else
            body = body (body == "" ? "" : "\n") $0
    }
    END { flush() }' >"$work/parts/system.sources"

[ -s "$work/parts/system.list" ] || [ -s "$work/parts/system.sources" ] ||
    skip "no apt source for release $codename to derive a deb-src entry from"

private_apt() {
    apt-get -q -o Dir::Etc::SourceList="$work/sources.list" \
        -o Dir::Etc::SourceParts="$work/parts" \
        -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" "$@"
}

# A failed mirror makes update fail while another may still serve the
# package: only the outcome of "source" decides.
private_apt update >&2
(cd "$work/pkg" && private_apt source --download-only lapack) >&2 ||
    skip "apt-get source lapack failed (no network or no deb-src for $codename?)"

set -- "$work"/pkg/lapack_*.dsc
dsc=$1
[ -r "$dsc" ] || skip "apt-get source lapack left no .dsc"
# dpkg-source also applies Debian's patches; without it the upstream tarball
# serves (in 3.11.0-2 Debian's patches do not touch BLAS/TESTING, and in
# CBLAS/testing turn int into CBLAS_INT, the same type in an LP64 build).
if command -v dpkg-source >/dev/null 2>&1; then
    (cd "$work/pkg" && dpkg-source -x "$dsc" tree) >&2 ||
        skip "dpkg-source -x $dsc failed"
else
    set -- "$work"/pkg/lapack_*.orig.tar.*
    mkdir "$work/pkg/tree" &&
        tar -xf "$1" -C "$work/pkg/tree" --strip-components=1 >&2 ||
        skip "cannot unpack $1"
fi
tree=$work/pkg/tree

missing=$(lacking "$tree" tree)
[ -z "$missing" ] || skip "$dsc has no $missing"
mkdir -p "$dest" || skip "cannot create $dest"
for f in $files; do
    cp "$tree/$f" "$dest/" || skip "cannot write to $dest"
done
basename "$dsc" .dsc >"$dest/VERSION"
