# A NumPy script of tall-and-skinny products, each called a few times as an
# iterative method calls them, on blocks of ROWS x COLS float64:
#   Gram        a.T @ b            (TSMTTSM: m, n skinny, k long)
#   projection  a @ s, s COLS^2    (TSMM: m long, k, n skinny)
#   CholeskyQR  g = a.T @ a (NumPy calls SYRK), r = cholesky(g)^T,
#               q = a @ inv(r)     (a Gram, a tiny factorization, a TSMM)
# Each result is checked with matrix-vector products against a random probe
# vector (level 2, which the shim leaves alone): G z = a^T (b z),
# (a s) z = a (s z), q (r z) = a z and |q z|^2 = |z|^2 (q orthonormal).
# Usage: python3 tall_skinny.py [ROWS [COLS [REPEATS]]]   (4000000 16 5)
# Prints "time SECONDS" (all products, the first BLAS call included) and
# "check ok ..." or "check FAIL ..." (exit status 1).
import sys
import time

import numpy as np

rows, cols, reps = (int(float(v)) for v in (sys.argv[1:] + ["4000000", "16", "5"][len(sys.argv) - 1:])[:3])
rng = np.random.default_rng(7)
a = rng.standard_normal((rows, cols))
b = rng.standard_normal((rows, cols))
s = rng.standard_normal((cols, cols))

t = time.perf_counter()
for _ in range(reps):
    g = a.T @ b
for _ in range(reps):
    p = a @ s
for _ in range(reps):
    r = np.linalg.cholesky(a.T @ a).T
    q = a @ np.linalg.inv(r)
took = time.perf_counter() - t

z = rng.standard_normal(cols)
norm_a = np.sqrt(np.sum(a * a))
worst = 0.0


def rel(x, y, scale):
    global worst
    e = float(np.max(np.abs(x - y))) / scale
    worst = max(worst, e) if np.isfinite(e) else np.inf


rel(g.dot(z), a.T.dot(b.dot(z)), norm_a * np.sqrt(np.sum(b * b)) * np.sqrt(np.sum(z * z)))
rel(p.dot(z), a.dot(s.dot(z)), norm_a * np.sqrt(np.sum(s * s)) * np.sqrt(np.sum(z * z)))
rel(q.dot(r.dot(z)), a.dot(z), norm_a * np.sqrt(np.sum(z * z)))
qz = q.dot(z)
rel(np.array([np.sum(qz * qz)]), np.array([np.sum(z * z)]), np.sum(z * z))
ok = worst <= 1e-10
print("time %.6f" % took)
print("check %s max_relative_error=%.3g (%dx%d, %d calls of each)" % ("ok" if ok else "FAIL", worst, rows, cols, reps))
sys.exit(0 if ok else 1)
