#!/bin/sh
# The shim exports exactly the four GEMM symbols; the GPU plugin only its ops table.
. "$abs_top_srcdir/tests/tap-functions.sh"
command -v nm >/dev/null || tap_skip_all "nm not installed"

defined() { nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort | tr '\n' ' '; }

got=$(defined "$TSSHIM_LIB")
[ "$got" = "cgemm_ dgemm_ sgemm_ zgemm_ " ]
tap_check $? "libtsshim.so exports exactly the ?gemm_ symbols (got: $got)"

plugin=$(dirname "$TSSHIM_LIB")/libtsshim-cuda.so
if [ -f "$plugin" ]; then
  got=$(defined "$plugin")
  [ "$got" = "tsshim_gpu_ops " ]
  tap_check $? "libtsshim-cuda.so exports only tsshim_gpu_ops (got: $got)"
else
  tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP GPU plugin not built"
fi
tap_end
