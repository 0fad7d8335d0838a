# A short session that does about a second of CPU work of its own (an
# interpreter's loop, as an R or Octave script does before its algebra) and
# then ONE large product, a square float64 GEMM: the process's first BLAS
# call is its only one, so whatever the shim spends starting the GPU is paid
# (or hidden by the CPU work before it) within this single call.
# The check: (a b) z = a (b z) with a random probe z (matrix-vector products,
# which the shim leaves alone).
# Usage: python3 late_product.py [N [STEPS]]   (8192 6000000)
#   STEPS: the interpreter loop's steps (6 * 10^6: about 1 s in CPython on
#   a server core; 1.7 s on the 2-core development machine).
# Prints "time SECONDS" (the loop and the product; the operands are made
# before) and "check ok ..." or "check FAIL ..." (exit status 1).
import sys
import time

import numpy as np

n, steps = (int(float(v)) for v in (sys.argv[1:] + ["8192", "6e6"][len(sys.argv) - 1:])[:2])
rng = np.random.default_rng(11)
a = rng.standard_normal((n, n))
b = rng.standard_normal((n, n))

t = time.perf_counter()
x = 1
for _ in range(steps):
    x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
work = time.perf_counter() - t
c = a @ b
took = time.perf_counter() - t

z = rng.standard_normal(n)
scale = np.sqrt(np.sum(a * a)) * np.sqrt(np.sum(b * b)) * np.sqrt(np.sum(z * z))
err = float(np.max(np.abs(c.dot(z) - a.dot(b.dot(z))))) / scale
ok = bool(np.isfinite(err)) and err <= 1e-12
print("time %.6f" % took)
print("check %s relative_error=%.3g (n=%d; the CPU work took %.3f s, the product %.3f s; %d)"
      % ("ok" if ok else "FAIL", err, n, work, took - work, x & 1))
sys.exit(0 if ok else 1)
