#!/bin/sh
# Header dependencies of the .cu objects (nvcc -MD, Makefile.am): were a
# header modified, make must rebuild exactly the .cu objects whose source
# includes it, directly or through another header, and no other.  make is
# asked as a dry run (-n) with the header pretended modified (-W), so no file
# or timestamp changes.  The expected objects come from the sources' #include
# "..." lines, resolved as the compiler does: beside the including file, then
# in the -I directories.
cd "${abs_top_builddir:?}" || exit 1
if [ ! -f kernels/libtskernels.la ]; then
  echo "1..0 # SKIP CUDA kernels not configured or not built"
  exit 0
fi
# A standalone make: not the parent's jobserver, goals or variables.
unset MAKEFLAGS MFLAGS MAKELEVEL GNUMAKEFLAGS
# -o config.h: config.h's rule always runs (its stamp is newer), which a dry
# run takes for an update of config.h and of every object including it.
make="${MAKE-make} -o config.h"
# Header paths as the depfiles spell them: under top_srcdir as make has it.
srcdir=$(sed -n 's/^top_srcdir = //p' Makefile)
n=0 fail=0
report() {  # STATUS DESCRIPTION
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi
}
# The project headers FILE includes, as paths under $srcdir (make drops a
# leading ./, as in an in-tree build).
includes() {
  sed -n 's/^[[:blank:]]*#[[:blank:]]*include[[:blank:]]*"\([^"]*\)".*/\1/p' "$1" |
  while read -r name; do
    for dir in "${1%/*}" "$srcdir" "$srcdir/src" "$srcdir/kernels"; do
      if [ -f "$dir/$name" ]; then echo "$dir/$name" | sed 's|^\./||'; break; fi
    done
  done
}
# FILE and every project header it reaches.
closure() {
  todo=$1 seen=
  while set -- $todo && [ $# -gt 0 ]; do
    f=$1
    shift
    todo=$*
    case " $seen " in *" $f "*) continue ;; esac
    seen="$seen $f"
    todo="$todo $(includes "$f")"
  done
  echo $seen
}

# The .cu sources and the objects the build made of them (.lo in a library,
# .o in a program).
objects= headers=
for src in "$srcdir"/*/*.cu; do
  stem=${src#"$srcdir"/}
  stem=${stem%.cu}
  if [ -f "$stem.lo" ]; then obj=$stem.lo; elif [ -f "$stem.o" ]; then obj=$stem.o; else continue; fi
  objects="$objects $obj"
  reach=$(closure "${src#./}")
  eval "reach_$(echo "$stem" | tr / _)=\$reach"
  headers="$headers $reach"
done
for h in "$srcdir"/kernels/*.h "$srcdir"/kernels/*.cuh; do headers="$headers ${h#./}"; done
headers=$(printf '%s\n' $headers | grep -v '\.cu$' | sort -u)

$make -q $objects >/dev/null 2>&1
report $? "the .cu objects are up to date, so a dry run shows only what a header change rebuilds"
for h in $headers; do
  plan=$($make -n -W "$h" $objects 2>&1)
  status=0 rebuilt= kept=
  for obj in $objects; do
    base=${obj%.*}
    eval "reach=\$reach_$(echo "$base" | tr / _)"
    case " $reach " in *" $h "*) want=yes ;; *) want=no ;; esac
    case $plan in *"-o $obj "*) got=yes ;; *) got=no ;; esac
    [ $got = yes ] && rebuilt="$rebuilt ${base#kernels/}" || kept="$kept ${base#kernels/}"
    if [ $want != $got ]; then
      status=1
      echo "# $h: $obj: expected rebuild=$want, make would rebuild=$got"
    fi
  done
  report $status "${h#"$srcdir"/}: rebuilds${rebuilt:- nothing}; keeps${kept:- nothing}"
done
echo "1..$n"
[ $fail -eq 0 ]
