# SPDX-License-Identifier: BSD-3-Clause
"""Builds the popsim Python module with the project's CMake build, for the Python running pip.

The module is linked with popsim's libraries statically (POPSIM_PYTHON_STANDALONE), so the wheel
holds the package alone; it needs the shared libraries of the build dependencies (oneTBB, {fmt},
ISA-L, OTF2, zlib), which ./dev installs. POPSIM_CMAKE_ARGS adds CMake options (e.g. a compiler
launcher); POPSIM_BUILD_JOBS sets the parallel jobs (default: every core).
"""
import os
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
# setuptools' build folders and CMake's tree, out of the sources and out of the CMake build/.
BUILD_BASE = "build-python"


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        # One CMake tree for every Python: another Python recompiles the module alone.
        build = HERE / BUILD_BASE / "cmake"
        configure = [
            "cmake", "-S", str(HERE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython_EXECUTABLE={sys.executable}", "-DPOPSIM_PYTHON=ON",
            "-DPOPSIM_PYTHON_STANDALONE=ON", "-DPOPSIM_TESTS=OFF", "-DPOPSIM_BENCH=OFF",
            f"-DPOPSIM_PYTHON_MODULE_DIR={target.parent}", f"-DPOPSIM_PYTHON_MODULE_SUFFIX={target.name[len('_popsim'):]}",
        ]
        if (Path("/usr/bin/ninja")).exists():
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("POPSIM_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("POPSIM_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "popsim_python", "-j", jobs],
                       check=True)


Path(HERE / BUILD_BASE).mkdir(exist_ok=True)

setup(
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    packages=["popsim"],
    package_dir={"popsim": "python/popsim"},
    ext_modules=[CMakeExtension("popsim._popsim")],
    cmdclass={"build_ext": CMakeBuild},
)
