# scipy.linalg.blas's GEMM, SYRK, HERK and TRSM in every precision they
# exist in, on small shapes, checked against results computed without BLAS
# (NumPy's einsum loops); prints "ok" and the versions, or what differs.
# tests/scipy.sh runs it under the shim and reads the exit report, where the
# calls show under SciPy's own names (scipy_dgemm_, ...).
import sys

import numpy as np
import scipy
from scipy.linalg import blas

rng = np.random.default_rng(43)


def operand(shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return np.asfortranarray(x.astype(dtype))


def product(spec, x, y):
    return np.einsum(spec, x, y, optimize=False)


bad = []
for p, dtype, tol in (("s", np.float32, 1e-4), ("d", np.float64, 1e-12), ("c", np.complex64, 1e-4),
                      ("z", np.complex128, 1e-12)):
    a = operand((60, 8), dtype)
    b = operand((8, 12), dtype)
    t = np.asfortranarray(np.triu(operand((60, 60), dtype)) + 60 * np.eye(60, dtype=dtype))
    rhs = operand((60, 5), dtype)
    got = {
        "gemm": (getattr(blas, p + "gemm")(1.0, a, b), product("ik,kj->ij", a, b)),
        "syrk": (np.triu(getattr(blas, p + "syrk")(1.0, a, trans=1)), np.triu(product("ki,kj->ij", a, a))),
        "trsm": (product("ik,kj->ij", t, getattr(blas, p + "trsm")(1.0, t, rhs)), rhs),
    }
    if p in "cz":
        got["herk"] = (np.triu(getattr(blas, p + "herk")(1.0, a, trans=2)), np.triu(product("ki,kj->ij", a.conj(), a)))
    for name, (x, want) in got.items():
        if not np.allclose(x, want, rtol=tol, atol=tol * 10):
            bad.append(p + name)
if bad:
    print("differs: " + ", ".join(bad))
    sys.exit(1)
print("ok scipy " + scipy.__version__ + " numpy " + np.__version__)
