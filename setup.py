"""Builds the compiled core.  Without a working C compiler the package still installs,
with the pure-Python twin only and a loud warning (as yarl / multidict do), unless
SASHITE_EPIN_REQUIRE_EXTENSION=1 asks for the build to fail instead.

A build is a release build (what a wheel ships) unless it asks for debug information,
by ``build_ext --debug`` or a ``-g`` in ``$CFLAGS`` (the AddressSanitizer build of
reliability/memcheck.sh): on Linux and macOS it is then compiled with ``-g0`` and linked
stripped.  Every build drops the run paths the interpreter's own link line carries (a
pyenv or self-built CPython's ``-Wl,-rpath,<its prefix>/lib``): the extension needs no
library there, and a wheel must not name a directory of the machine that built it.  A
user's ``$CFLAGS`` replaces the interpreter's flags (``-O3 -DNDEBUG -fwrapv`` among
them) in setuptools: the ones the core is tested with are applied whatever it says."""

import os
import shlex
import sys
import sysconfig

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


UNIX = sys.platform != "win32"
# After $CFLAGS on the command line, so they hold whatever it says (a user's -O0 too:
# the core is tested at -O3).  NDEBUG as a macro: MSVC and every compiler take it.
COMPILE_ARGS = ["-O3", "-fwrapv"] if UNIX else ["/O2"]
MACROS = [("NDEBUG", None)]


def wants_debug_info(debug: bool) -> bool:
    """Whether this build keeps debug information: build_ext --debug, or a -g (other
    than -g0) in $CFLAGS."""
    flags = shlex.split(os.environ.get("CFLAGS", ""))
    return debug or any(flag.startswith("-g") and flag != "-g0" for flag in flags)


def without_build_rpaths(command: list[str]) -> list[str]:
    """A link command without the run paths the interpreter's sysconfig put there (its
    LDSHARED and LDFLAGS); run paths a user's $LDFLAGS asks for are kept."""
    ours = set(shlex.split(os.environ.get("LDFLAGS", "")))
    theirs = set()
    for name in ("LDSHARED", "LDFLAGS", "CONFIGURE_LDFLAGS", "PY_LDFLAGS"):
        theirs.update(shlex.split(str(sysconfig.get_config_var(name) or "")))
    rpaths = {
        flag for flag in theirs - ours
        if flag.startswith(("-Wl,-rpath", "-Wl,-R", "-Wl,--enable-new-dtags"))
    }  # fmt: skip
    return [part for part in command if part not in rpaths]


class OptionalBuildExt(build_ext):
    def build_extensions(self) -> None:
        compiler = self.compiler
        if compiler.compiler_type == "unix":  # gcc / clang, Linux and macOS
            for name in ("linker_so", "linker_so_cxx"):
                if getattr(compiler, name, None):
                    setattr(compiler, name, without_build_rpaths(getattr(compiler, name)))
            if not wants_debug_info(bool(self.debug)):
                # macOS's ld64 has no -s: -S drops the debug map, -x the local symbols.
                strip = ["-Wl,-S", "-Wl,-x"] if sys.platform == "darwin" else ["-Wl,-s"]
                for ext in self.extensions:
                    ext.extra_compile_args = [*ext.extra_compile_args, "-g0"]
                    ext.extra_link_args = [*ext.extra_link_args, *strip]
        super().build_extensions()

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any build failure means "twin only"
            self.fall_back(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
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
        extra_compile_args=COMPILE_ARGS,
        define_macros=MACROS,
    )  # fmt: skip
    # freethreading_compatible: the module is safe with the GIL off (docs/reliability.md
    # says how), so a free-threaded interpreter imports it without turning the GIL back on.
    directives = {"language_level": 3, "freethreading_compatible": True}
    return cythonize([core], compiler_directives=directives)


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
