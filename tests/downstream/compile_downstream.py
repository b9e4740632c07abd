"""Compiles Cython modules that cimport the installed sashite_epin, as a third party
would: in a folder of their own, against the installed package only (its .pxd found on
sys.path, never in this source tree).  tests/test_capi.py and the benchmarks use it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

SETUP = """
import sys
from setuptools import Extension, setup
from Cython.Build import cythonize
modules = [Extension(name, [name + ".pyx"]) for name in sys.argv[1:]]
setup(ext_modules=cythonize(modules, quiet=True),
      script_args=["build_ext", "--inplace", "--quiet"])
"""


def build(folder: Path, names: list[str]) -> None:
    """Compiles folder/NAME.pyx for each name, in place; AssertionError with the
    compiler's output if that fails."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", SETUP, *names],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def load(folder: Path, name: str) -> ModuleType:
    """The compiled module folder/NAME, imported from its file."""
    built = next(folder.glob(f"{name}*.so"), None) or next(folder.glob(f"{name}*.pyd"))
    spec = importlib.util.spec_from_file_location(name, built)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
