# NumPy's matmul, a.T @ a and solve, checked against results computed
# without BLAS (einsum's own loops); prints "ok" and NumPy's version, or what
# differs.  tests/numpy.sh runs it under the shim and reads the exit report.
import sys

import numpy as np

rng = np.random.default_rng(23)
a = rng.standard_normal((3000, 16))
b = rng.standard_normal((16, 24))
m = rng.standard_normal((200, 200)) + 200 * np.eye(200)
rhs = rng.standard_normal((200, 3))

checks = [
    ("matmul", a @ b, np.einsum("ik,kj->ij", a, b, optimize=False)),
    ("a.T @ a", a.T @ a, np.einsum("ki,kj->ij", a, a, optimize=False)),
]
x = np.linalg.solve(m, rhs)
checks.append(("solve", np.einsum("ik,kj->ij", m, x, optimize=False), rhs))

bad = [name for name, got, want in checks if not np.allclose(got, want, rtol=1e-10, atol=1e-10)]
if bad:
    print("differs: " + ", ".join(bad))
    sys.exit(1)
print("ok numpy " + np.__version__)
