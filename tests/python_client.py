"""A NumPy and SciPy client of the Python package (tests/python_package.sh).

  python_client.py first   imports tsshim, then NumPy
  python_client.py after   imports NumPy, then tsshim (the warning)

Prints what tsshim.report() and tsshim.settings() say after a few products:
gemm_calls= (calls counted under any dgemm name), routines=, mode=,
counting=, warning= (tsshim's warning, if any), and ok or not ok for the
results against NumPy's own."""
import sys
import warnings

order = sys.argv[1]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    if order == "first":
        import tsshim
        import numpy as np
    else:
        import numpy as np
        import tsshim
import scipy.linalg.blas

rng = np.random.default_rng(0)
a = rng.random((400, 30))
b = rng.random((30, 20))
g = a.T @ a
c = a @ b
s = scipy.linalg.blas.dgemm(1.0, a, a, trans_a=1)
ref = np.einsum("ki,kj->ij", a, a)
good = np.allclose(g, ref) and np.allclose(s, ref) and np.allclose(c, np.einsum("ik,kj->ij", a, b))

routines = tsshim.report()["counters"]["routines"]
print("gemm_calls=%d" % sum(v["calls"] for k, v in routines.items() if "dgemm" in k or "dsyrk" in k))
print("routines=" + ",".join("%s:%d" % (k, v["calls"]) for k, v in sorted(routines.items())))
print("mode=" + tsshim.settings()["TSSHIM_MODE"])
print("counting=%s" % tsshim.report()["counting"])
print("library=" + tsshim.library_path())
print("warning=" + " | ".join(str(w.message) for w in caught if "tsshim" in str(w.message)))
print("ok" if good else "not ok: results differ from NumPy's")
