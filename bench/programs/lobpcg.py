# A SciPy block eigensolver as a user runs it: scipy.sparse.linalg.lobpcg
# for the largest eigenpairs of a dense symmetric matrix held as a NumPy
# array (each iteration multiplies A by a block of vectors: a tall-and-skinny
# GEMM on A, read whole every time, and small products on the blocks).
# A = H diag(d) H with H = I - 2 u u^T (a Householder reflector, as in
# examples/subspace_iteration.F90): dense, built without BLAS in O(n^2), and
# its eigenvalues are exactly d.  Checks the Ritz values against d and each
# pair's residual ||A x - theta x|| / |theta|.
# Usage: python3 lobpcg.py [N [VECTORS [ITERATIONS]]]   (20000 16 40)
# Prints "time SECONDS" (lobpcg alone, its first BLAS call included) and
# "check ok ..." or "check FAIL ..." (exit status 1).
import sys
import time
import warnings

import numpy as np
from scipy.sparse.linalg import lobpcg

n, b, iters = (int(float(v)) for v in (sys.argv[1:] + ["20000", "16", "40"][len(sys.argv) - 1:])[:3])
i = np.arange(n, dtype=np.float64)
d = 10.0 * 0.99 ** i + 0.01 * (n - i) / n  # a slowly decaying top over a small bulk
rng = np.random.default_rng(20251121)
u = rng.standard_normal(n)
u /= np.sqrt(np.sum(u * u))
# H D H = D + u p^T + p u^T with p = -2 D u + 2 (u^T D u) u
p = -2.0 * d * u + 2.0 * np.sum(u * d * u) * u
a = np.multiply.outer(u, p)
a += np.multiply.outer(p, u)
a[np.diag_indices(n)] += d
x0 = rng.standard_normal((n, b))

t = time.perf_counter()
with warnings.catch_warnings():
    # The tolerance is out of reach on purpose: every run does all iterations
    # (lobpcg warns that it did not reach it).
    warnings.simplefilter("ignore")
    theta, x = lobpcg(a, x0, largest=True, tol=1e-30, maxiter=iters)
took = time.perf_counter() - t

# The check's products: matrix-vector (level 2, which the shim leaves alone).
order = np.argsort(theta)[::-1]
theta, x = theta[order], x[:, order]
res = max(np.linalg.norm(a.dot(x[:, j]) - theta[j] * x[:, j]) / abs(theta[j]) for j in range(b))
err = float(np.max(np.abs(theta - d[:b]) / d[:b]))
ok = bool(np.all(np.isfinite(theta))) and err <= 1e-6 and res <= 1e-4
print("time %.6f" % took)
print("check %s max_relative_error=%.3g max_residual=%.3g (n=%d vectors=%d iterations=%d)"
      % ("ok" if ok else "FAIL", err, res, n, b, iters))
sys.exit(0 if ok else 1)
