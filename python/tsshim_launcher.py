"""The launcher of the Python package, a module of its own so that running it
never imports the tsshim package, whose import loads libtsshim.so and asks
the library to count calls (TSSHIM_COUNT): a program run by the `tsshim`
console script keeps the environment the user gave it.

  python -m tsshim [OPTIONS] script.py [ARGS...]   runs the script in a new
      interpreter with libtsshim.so preloaded (also -m MODULE, -c CODE)
  tsshim [OPTIONS] [--] PROGRAM [ARGS...]          the console script: any program
  tsshim doctor                                    what the shim would do here

OPTIONS as the tsshim command's: --mode auto|gpu|cpu, --report, --trace,
--log FILE, --version, --help.  The program replaces this process (exec),
so its exit status and signals are the command's own.
"""
import os
import sys

VERSION = "0.1.0"  # pyproject.toml's, without loading the library into the launcher

USAGE = """usage: tsshim [--mode auto|gpu|cpu] [--report] [--log FILE] [--trace] [--] PROGRAM [ARGS...]
       python -m tsshim [OPTIONS] script.py [ARGS...]
       tsshim doctor       what the shim would do here (CPU BLAS, GPU, cache, profile, MPS)
       tsshim --version
Runs PROGRAM with libtsshim.so preloaded (before any LD_PRELOAD already set).
  --mode MODE   TSSHIM_MODE: auto (the cost model decides), gpu (every eligible call), cpu (forward all)
  --report      TSSHIM_VERBOSE=1: warnings and the exit report when the program ends
  --trace       TSSHIM_VERBOSE=3: also one trace line per call
  --log FILE    TSSHIM_LOG: log file instead of stderr (%p: process id, %r: MPI rank)
  --            ends the options (a program named doctor: tsshim -- doctor)
Adds glibc.malloc.hugetlb=1 (huge pages for malloc) to GLIBC_TUNABLES unless set there; TSSHIM_HUGE_PAGES=0: not."""


def _paths():
    # The package's files (python/tsshim beside this module).
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tsshim")
    return os.path.join(here, "lib"), os.path.join(here, "bin", "tsshim-doctor")


def cuda_wheel_lib_dirs():
    """The lib folder of NVIDIA's CUDA 13 runtime and cuBLAS wheels (tsshim[cuda]:
    nvidia-cuda-runtime, nvidia-cublas; both install to nvidia/cu13/lib), where installed."""
    dirs = []
    for base in sys.path:
        lib = os.path.join(base or ".", "nvidia", "cu13", "lib")
        if os.path.isdir(lib) and lib not in dirs:
            dirs.append(lib)
    return dirs


def _die(message):
    sys.stderr.write("tsshim: %s\nTry 'tsshim --help'.\n" % message)
    sys.exit(2)


def _parse(argv, python=False):
    opts = {"mode": None, "verbose": None, "log": None, "dashdash": False}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--mode", "--log"):
            if i + 1 >= len(argv):
                _die("%s needs a value" % a)
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        if a.startswith("--mode=") or a.startswith("--log="):
            key, value = a[2:].split("=", 1)
            opts[key] = value
        elif a == "--report":
            opts["verbose"] = opts["verbose"] or "1"
        elif a == "--trace":
            opts["verbose"] = "3"
        elif a == "--version":
            print("tsshim %s" % VERSION)
            sys.exit(0)
        elif a in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        elif a == "--":
            opts["dashdash"] = True
            i += 1
            break
        elif a.startswith("-") and a != "-":
            if not python:  # python -m tsshim passes -m MODULE, -c CODE to the interpreter
                _die("unknown option '%s'" % a)
            break
        else:
            break
        i += 1
    if opts["mode"] not in (None, "auto", "gpu", "cpu"):
        _die("--mode must be auto, gpu or cpu (got '%s')" % opts["mode"])
    return opts, argv[i:]


def _environment(opts, count):
    libdir, _ = _paths()
    lib = os.path.join(libdir, "libtsshim.so")
    env = dict(os.environ)
    if opts["mode"]:
        env["TSSHIM_MODE"] = opts["mode"]
    if opts["verbose"]:
        env["TSSHIM_VERBOSE"] = opts["verbose"]
    if opts["log"]:
        env["TSSHIM_LOG"] = opts["log"]
    if count:
        env.setdefault("TSSHIM_COUNT", "1")
    # As tools/tsshim: huge pages for malloc make the operand cache's write check
    # about 25 times cheaper; a hugetlb tunable the user set is kept.
    huge = env.get("TSSHIM_HUGE_PAGES") or "1"
    if huge not in ("0", "1"):
        _die("TSSHIM_HUGE_PAGES must be 0 or 1 (got '%s')" % huge)
    tunables = env.get("GLIBC_TUNABLES", "")
    if huge == "1" and "glibc.malloc.hugetlb" not in tunables:
        env["GLIBC_TUNABLES"] = tunables + (":" if tunables else "") + "glibc.malloc.hugetlb=1"
    preload = env.get("LD_PRELOAD", "")
    if lib not in preload.replace(":", " ").split():
        env["LD_PRELOAD"] = lib + (" " + preload if preload else "")
    # NVIDIA's wheels (tsshim[cuda]): the backend finds their libraries by name.
    if os.path.exists(os.path.join(libdir, "libtsshim-cuda.so")):
        dirs = [d for d in cuda_wheel_lib_dirs() if d not in env.get("LD_LIBRARY_PATH", "").split(":")]
        if dirs:
            env["LD_LIBRARY_PATH"] = ":".join(dirs + [p for p in [env.get("LD_LIBRARY_PATH")] if p])
    return env


def _exec(argv, env):
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as e:
        sys.stderr.write("tsshim: cannot run %s: %s\n" % (argv[0], e.strerror))
        sys.exit(127)


def main(argv=None):
    """The console script `tsshim`: runs any program under the shim."""
    opts, rest = _parse(sys.argv[1:] if argv is None else argv)
    if not rest:
        sys.stderr.write(USAGE + "\n")
        sys.exit(2)
    if rest[0] == "doctor" and not opts["dashdash"]:
        libdir, doctor = _paths()
        _exec([doctor, "--libdir", libdir] + rest[1:], dict(os.environ))
    _exec(rest, _environment(opts, count=False))


def python_main(argv=None):
    """`python -m tsshim script.py ARGS`: the script in a new interpreter under the shim,
    its calls counted for tsshim.report()."""
    opts, rest = _parse(sys.argv[1:] if argv is None else argv, python=True)
    if not rest:
        sys.stderr.write(USAGE + "\n")
        sys.exit(2)
    _exec([sys.executable] + rest, _environment(opts, count=True))


if __name__ == "__main__":
    python_main()
