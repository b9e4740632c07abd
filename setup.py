"""Builds the compiled core.  Without a working C compiler the package still installs,
with the pure-Python twin only and a loud warning (as yarl / multidict do), unless
SASHITE_EPIN_REQUIRE_EXTENSION=1 asks for the build to fail instead."""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

try:
    from Cython.Build import cythonize
except ImportError:  # only outside an isolated build: Cython is a build requirement
    cythonize = None

REQUIRED = os.environ.get("SASHITE_EPIN_REQUIRE_EXTENSION", "") not in ("", "0")
PURE = os.environ.get("SASHITE_EPIN_PURE_PYTHON", "") not in ("", "0")

WARNING = """
********************************************************************************
WARNING: sashite-epin's compiled core could not be built ({why}).
The package is installed with its pure-Python twin only: the same results, slower.
Install a C compiler and reinstall to get the compiled core.
********************************************************************************
"""


class OptionalBuildExt(build_ext):
    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure means "twin only"
            self.fall_back(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self.fall_back(exc)

    def fall_back(self, exc: Exception) -> None:
        if REQUIRED:
            raise exc
        sys.stderr.write(WARNING.format(why=f"{type(exc).__name__}: {exc}"))


def extensions() -> list[Extension]:
    if PURE or cythonize is None:
        if REQUIRED:
            raise RuntimeError("the compiled core is required but Cython is missing")
        sys.stderr.write(WARNING.format(why="Cython missing or pure Python asked for"))
        return []
    unix = sys.platform != "win32"
    core = Extension(
        "sashite_epin._core_c",
        ["src/sashite_epin/_core_c.pyx"],
        depends=[f"src/sashite_epin/{part}" for part in (
            "_core_c.pxd", "_scan_c.pxi", "_objects_c.pxi", "_array_c.pxi", "_bulk_c.pxi",
            "_text_c.pxi", "_texts_c.pxi", "_arrow_c.pxi", "_export_c.pxi", "_split.h",
            "_kernels.h", "_strs.h", "_strict.h",
            "_records.h", "_memory.h", "_arrow.h", "_arrow_export.h", "_columns.h",
            "_formats.h", "_fixed.h", "_pyarray.h", "_placement.h", "_placement_c.pxi",
            "_boards_c.pxi",
            *(f"kernels/{kernel}.h" for kernel in ("portable", "sse2", "avx2", "avx512", "neon")),
            *(f"kernels/generic/{loop}.h" for loop in (
                "count", "decode", "scan", "rows", "lanes", "columns", "strs", "fixed",
                "x86_readers", "undef", "marks")))],
        extra_compile_args=["-O3"] if unix else ["/O2"],
    )
    # freethreading_compatible: the module is safe with the GIL off (docs/reliability.md
    # says how), so a free-threaded interpreter imports it without turning the GIL back on.
    directives = {"language_level": 3, "freethreading_compatible": True}
    return cythonize([core], compiler_directives=directives)


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
