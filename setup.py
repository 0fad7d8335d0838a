"""Builds the C library with the project's own build for the Python package.

pyproject.toml holds the metadata; this file only adds the step that runs
the Autotools build and copies its products into the package:
libtsshim.so, libtsshim-cuda.so (when configure found CUDA) and
tsshim-doctor, under tsshim/lib and tsshim/bin.

Where it builds:
  TSSHIM_BUILD_DIR set   make in that configured build directory
  the tree configured    make in the tree (an in-tree ./configure)
  otherwise              autoreconf -fi (when configure is missing), then
                         configure $TSSHIM_CONFIGURE_ARGS (default
                         --with-cuda=auto) in build/c and make there
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

SRC = os.path.dirname(os.path.abspath(__file__))


def run(cmd, cwd):
    print("tsshim build: " + " ".join(cmd) + "  (in " + cwd + ")", flush=True)
    subprocess.check_call(cmd, cwd=cwd)


def build_dir():
    given = os.environ.get("TSSHIM_BUILD_DIR")
    if given:
        return os.path.abspath(given)
    if os.path.exists(os.path.join(SRC, "config.status")):
        return SRC
    out = os.path.join(SRC, "build", "c")
    if not os.path.exists(os.path.join(out, "config.status")):
        if not os.path.exists(os.path.join(SRC, "configure")):
            run(["autoreconf", "-fi"], SRC)
        os.makedirs(out, exist_ok=True)
        args = os.environ.get("TSSHIM_CONFIGURE_ARGS", "--with-cuda=auto").split()
        run([os.path.join(SRC, "configure")] + args, out)
    return out


def build_c_library():
    """Runs make for the library, its GPU backend and the doctor; returns the build directory."""
    out = build_dir()
    jobs = "-j%d" % (os.cpu_count() or 1)
    targets = ["libtsshim.la", "tools/tsshim-doctor"]
    with open(os.path.join(out, "Makefile")) as f:
        if "libtsshim-cuda.la:" in f.read():
            targets.append("libtsshim-cuda.la")
    run(["make", jobs] + targets, out)
    return out


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        out = build_c_library()
        pkg = os.path.join(self.build_lib, "tsshim")
        os.makedirs(os.path.join(pkg, "lib"), exist_ok=True)
        os.makedirs(os.path.join(pkg, "bin"), exist_ok=True)
        for name in ("libtsshim.so", "libtsshim-cuda.so"):
            path = os.path.join(out, ".libs", name)
            if os.path.exists(path):
                shutil.copy2(path, os.path.join(pkg, "lib", name))
        shutil.copy2(os.path.join(out, "tools", "tsshim-doctor"), os.path.join(pkg, "bin", "tsshim-doctor"))


class BinaryDistribution(Distribution):
    """The wheel holds shared libraries: a platform wheel, not a pure one."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
