#!/bin/sh
# The core's layers (docs/architecture.md): each folder of src/ is a layer
# and includes only its own headers and those of the layers below it; peers
# (cache, backend, cpu) include none of each other, and route and learn none
# of them.  cuda/ and kernels/
# include of the core only src/common/ (the call descriptor, the routine
# list, the plugin ABI and the pure helpers both libraries compile in); shim/
# only src/entry/ and what entry may include.  One TAP point per file, and
# a last point that the rule knows every folder of src/.
#   layers.sh [ROOT]   ROOT: the source tree (default $srcdir, else .)
root=${1:-${srcdir:-.}}
cd "$root" || exit 1

# A layer's rank: it may include a layer of a lower rank, and its own.
# Folders of one rank are peers and include none of each other.
rank() {
  case $1 in
  common) echo 0 ;;
  util) echo 1 ;;
  cpu | cache | backend) echo 2 ;;
  learn) echo 3 ;;
  route) echo 4 ;;
  multigpu) echo 5 ;;
  dispatch) echo 6 ;;
  entry) echo 7 ;;
  shim) echo 8 ;;
  *) echo - ;;
  esac
}

# Lower layers a layer must not use all the same: the decision (route) and
# what it reads (learn) load nothing, probe nothing and run nothing, so they
# include none of the layers that do (backend, cache, cpu).
forbidden() {  # LAYER INCLUDED
  case $1:$2 in
  route:backend | route:cache | route:cpu | learn:backend | learn:cache | learn:cpu) return 0 ;;
  *) return 1 ;;
  esac
}

n=0 fail=0
point() {  # STATUS DESCRIPTION [DETAIL]
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2"
    printf '%s\n' "$3" | sed 's/^/# /'
    fail=$((fail + 1))
  fi
}

# The quoted includes of FILE that name a folder of src/ ("layer/x.h").
core_includes() {
  sed -n 's/^[[:blank:]]*#[[:blank:]]*include[[:blank:]]*"\([a-z0-9_]*\)\/[^"]*".*/\1/p' "$1" | sort -u
}
# The quoted includes of FILE without a folder that resolve in src/ only.
bare_core_includes() {
  sed -n 's/^[[:blank:]]*#[[:blank:]]*include[[:blank:]]*"\([^"/]*\)".*/\1/p' "$1" |
  while read -r h; do
    [ -f "${1%/*}/$h" ] && continue
    [ -f "src/$h" ] && echo "$h"
  done
}

# FILE in layer OWN: every included layer ranks below OWN, or is OWN.
check_layer_file() {
  own=$1 file=$2 mine=$(rank "$1") bad=
  for inc in $(core_includes "$file"); do
    [ "$inc" = "$own" ] && continue
    r=$(rank "$inc")
    if [ "$r" = - ]; then
      [ -d "src/$inc" ] && bad="$bad $inc(unknown layer)"
      continue
    fi
    [ "$r" -lt "$mine" ] || bad="$bad $inc"
    ! forbidden "$own" "$inc" || bad="$bad $inc(route and learn decide, they run nothing)"
  done
  for h in $(bare_core_includes "$file"); do bad="$bad $h(no folder)"; done
  point "$([ -z "$bad" ] && echo 0 || echo 1)" "$file (layer $own) includes only layers below it" \
    "includes a layer above or beside it:$bad"
}

# FILE of the GPU plugin or the kernels: of the core, only src/common/.
check_plugin_file() {
  file=$1 bad=
  for inc in $(core_includes "$file"); do
    [ -d "src/$inc" ] && [ "$inc" != common ] && bad="$bad $inc"
  done
  for h in $(bare_core_includes "$file"); do bad="$bad $h"; done
  point "$([ -z "$bad" ] && echo 0 || echo 1)" "$file includes of the core only src/common/" \
    "includes the core beyond the plugin ABI:$bad"
}

unknown=
for dir in src/*/; do
  layer=$(basename "$dir")
  if [ "$(rank "$layer")" = - ]; then
    unknown="$unknown $layer"
    continue
  fi
  for f in "$dir"*.c "$dir"*.h; do
    [ -f "$f" ] && check_layer_file "$layer" "$f"
  done
done
for f in shim/*.c shim/*.h; do
  [ -f "$f" ] && check_layer_file shim "$f"
done
for f in cuda/*.c cuda/*.h kernels/*.c kernels/*.h kernels/*.cu kernels/*.cuh; do
  [ -f "$f" ] && check_plugin_file "$f"
done
loose=$(ls src/*.c src/*.h 2>/dev/null)
point "$([ -z "$unknown$loose" ] && echo 0 || echo 1)" "every file of src/ is in a folder the rule ranks" \
  "unranked:$unknown $loose"
echo "1..$n"
[ "$fail" -eq 0 ]
