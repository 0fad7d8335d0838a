"""tsshim: tall-and-skinny GEMM offload for NumPy, SciPy and any BLAS program.

``import tsshim`` as the first import of a script or notebook loads
libtsshim.so into the running interpreter (ctypes, RTLD_GLOBAL), so that
every BLAS loaded after it (NumPy's, SciPy's) calls through the shim.
Imported after NumPy it warns: NumPy's calls will not be seen; run the
script as ``python -m tsshim script.py`` or ``tsshim python script.py``.

``report()`` returns the exit report's counters (per routine, per device,
the operand cache) as a dict at any time; ``settings()`` the settings in
force.  The package sets TSSHIM_COUNT=1 (unless set) before it loads the
library, so that calls are counted without anything being printed.
"""
import ctypes
import json
import os
import sys
import warnings

from tsshim_launcher import cuda_wheel_lib_dirs

__all__ = ["report", "settings", "library_path", "LIBRARY", "__version__"]
__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.abspath(__file__))
LIB_DIR = os.path.join(_HERE, "lib")
LIBRARY = os.path.join(LIB_DIR, "libtsshim.so")
DOCTOR = os.path.join(_HERE, "bin", "tsshim-doctor")
# Modules whose BLAS is bound once they are imported.
_BLAS_MODULES = ("numpy", "scipy")


def _load_cuda_wheels():
    """Loads the wheels' CUDA runtime and cuBLAS (RTLD_GLOBAL) before the GPU backend
    needs them: libtsshim-cuda.so then finds them by name.  Only where the backend
    was built and the wheels are installed; the system's toolkit is found as usual."""
    if not os.path.exists(os.path.join(LIB_DIR, "libtsshim-cuda.so")):
        return
    for lib in cuda_wheel_lib_dirs():
        for prefix in ("libcudart.so", "libcublasLt.so", "libcublas.so"):
            for name in sorted(os.listdir(lib)):
                if name.startswith(prefix):
                    try:
                        ctypes.CDLL(os.path.join(lib, name), mode=ctypes.RTLD_GLOBAL)
                    except OSError:
                        pass
                    break


def _mapped_shim():
    """The path of a libtsshim.so already in this process (LD_PRELOAD), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split(None, 5)[-1].strip()
                if path.endswith("/libtsshim.so"):
                    return path
    except OSError:
        pass
    return None


def library_path():
    """The libtsshim.so this process uses."""
    return _path


_preloaded = _mapped_shim()
_late = [m for m in _BLAS_MODULES if m in sys.modules]
if not _preloaded:
    os.environ.setdefault("TSSHIM_COUNT", "1")
    _load_cuda_wheels()
_path = _preloaded or LIBRARY
_lib = ctypes.CDLL(_path, mode=ctypes.RTLD_GLOBAL)
for _fn in (_lib.tsshim_report_json, _lib.tsshim_settings_json):
    _fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    _fn.restype = ctypes.c_int
if _late and not _preloaded:
    warnings.warn(
        "tsshim was imported after NumPy: NumPy's calls will not be seen; import tsshim before numpy, "
        "or run `python -m tsshim script.py` or `tsshim python script.py`",
        RuntimeWarning,
        stacklevel=2,
    )


def _query(fn):
    size = 1 << 16
    while True:
        buf = ctypes.create_string_buffer(size)
        n = fn(buf, size)
        if n < size:
            return json.loads(buf.value.decode())
        size = n + 1


def report():
    """The exit report's counters now: {"counting", "gpu_started", "counters": {"routines":
    {NAME: {"calls", "offloaded", "fallbacks", "gpu_s", "h2d_bytes", "d2h_bytes", "split"}},
    "devices": {D: {...}}}, "cache": {...}}."""
    return _query(_lib.tsshim_report_json)


def settings():
    """The settings in force, by their environment names (TSSHIM_MODE, ...)."""
    return _query(_lib.tsshim_settings_json)
