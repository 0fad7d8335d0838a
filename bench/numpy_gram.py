# a.T @ a of a tall float64 array as a NumPy program runs it (NumPy sends it
# to its BLAS's SYRK): the first call, the best and median of the later
# ones and all calls together, each checked (e^T G e = |a e|^2, computed
# without BLAS).
# Usage: python3 numpy_gram.py ROWS COLS CALLS; prints one line
# "first_ms=F best_ms=B median_ms=M total_ms=T check=ok|FAIL numpy=VERSION".
import sys
import time

import numpy as np

rows, cols, calls = int(float(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
a = np.random.default_rng(7).standard_normal((rows, cols))
row_sums = a.sum(axis=1)
want = float(np.sum(row_sums * row_sums))
times, ok = [], True
for _ in range(calls):
    t = time.perf_counter()
    g = a.T @ a
    times.append(1e3 * (time.perf_counter() - t))
    ok = ok and abs(float(g.sum()) - want) <= 1e-9 * abs(want)
later = sorted(times[1:]) or times
print("first_ms=%.3f best_ms=%.3f median_ms=%.3f total_ms=%.3f check=%s numpy=%s"
      % (times[0], later[0], later[len(later) // 2], sum(times), "ok" if ok else "FAIL", np.__version__))
sys.exit(0 if ok else 1)
