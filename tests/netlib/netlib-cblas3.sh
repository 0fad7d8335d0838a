#!/bin/sh
# TAP test: the CBLAS level-3 testers of LAPACK (c_sblat3 ... c_zblat3,
# calling cblas_?gemm, cblas_?syrk, cblas_?herk, cblas_?trsm ...) without
# the shim, under it in cpu mode and forced to the GPU; netlib-blas3.sh
# runs them as it runs the netlib testers (see there).
exec sh "$(dirname "$0")/netlib-blas3.sh" cblas3
