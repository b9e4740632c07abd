"""Fixtures: both cores (compiled and twin), the regex oracle, the tricky alphabet.

The public facade runs on the core that ``SASHITE_EPIN_IMPLEMENTATION`` picks (the
README's test command runs the suite once per implementation); core-level tests run
on every core that is expected here (in the compiled run, the compiled core: the twin's
run tests the twin), and the compiled core is checked against the twin in the same
process.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from downstream.compile_downstream import build
from hypothesis import HealthCheck, settings

import sashite_epin
from sashite_epin import _core_py
from sashite_epin._epin import _EPINS
from sashite_epin._pin import _PINS


class Unavailable:
    """Stands in for a data library this interpreter has no wheel for (free-threaded
    CPython has none of polars or DuckDB yet): a test that touches it is skipped, the
    rest of its module still runs."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attribute: str) -> object:
        if attribute.startswith("_"):  # pytest's own probes while it collects
            raise AttributeError(attribute)
        pytest.skip(f"{self.name} is not installed for this interpreter")


def optional(name: str) -> object:
    """The module, or an Unavailable stand-in where it cannot be imported."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return Unavailable(name)


# Every character a sloppy parser gets wrong: markers, both cases, a digit, whitespace
# and line breaks, NUL, a non-ASCII letter, a combining mark, a zero-width space.
TRICKY = (
    "+",
    "-",
    "^",
    "'",
    "K",
    "k",
    "Z",
    "a",
    "1",
    " ",
    "\n",
    "\r",
    "\t",
    "\x00",
    "\u00c9",
    "\u0301",
    "\u200b",
)


class LyingStr(str):
    """A str subclass whose methods all lie or refuse: parsing, scanning and error
    messages must read its characters only (the tests pass it wherever a str goes)."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        raise RuntimeError("__hash__ must not be called")

    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: object) -> str:
        raise RuntimeError("__getitem__ must not be called")

    def __iter__(self) -> object:
        raise RuntimeError("__iter__ must not be called")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ must not be trusted")

    def __str__(self) -> str:
        return "K"

    def encode(self, *args: object, **kwargs: object) -> bytes:
        return b"K"


def implementation_expected() -> str:
    """'cython' unless the twin was asked for; in 'cython' mode the core must load."""
    if os.environ.get("SASHITE_EPIN_PURE_PYTHON", "") not in ("", "0"):
        return "python"
    return os.environ.get("SASHITE_EPIN_IMPLEMENTATION", "").strip().lower() or "best"


def _cores() -> list[ModuleType]:
    cores = [_core_py]
    if implementation_expected() != "python":
        try:
            cores.insert(0, importlib.import_module("sashite_epin._core_c"))
        except ImportError:
            if implementation_expected() == "cython":
                raise
    for core in cores:  # the twin needs the objects too when the facade runs compiled
        core.register(_PINS, _EPINS)
    return cores


CORES = _cores()

# The cores the core-level tests run on.  The README's command runs the suite once per
# implementation, so the compiled run ("cython") leaves the twin's own tests to the
# twin's run, where every one of them runs; the checks of one core against the other
# read CORES and run in the compiled run.
TESTED_CORES = CORES[:1] if implementation_expected() == "cython" else CORES


@pytest.fixture(params=TESTED_CORES, ids=lambda core: core.IMPLEMENTATION)
def core(request: pytest.FixtureRequest) -> ModuleType:
    return request.param  # type: ignore[no-any-return]


# Every (core, bytes kernel) pair this build runs on this CPU: the compiled core once per
# SIMD kernel, so each kernel meets every byte-buffer and Arrow kernel test (under ASan
# too).  SASHITE_EPIN_TEST_KERNELS=best keeps each core's best kernel only, for a run
# whose subject is not the kernels (the free-threaded one: which kernel reads a buffer
# has nothing to do with the threads around it).
KERNEL_CORES = [
    (core, kernel)
    for core in TESTED_CORES
    for kernel in (
        core.KERNELS[:1] if os.environ.get("SASHITE_EPIN_TEST_KERNELS") == "best" else core.KERNELS
    )
]


@pytest.fixture(params=KERNEL_CORES, ids=lambda pair: f"{pair[0].IMPLEMENTATION}-{pair[1]}")
def bytes_core(request: pytest.FixtureRequest) -> Iterator[ModuleType]:
    """A core whose parse_many reads byte buffers and Arrow columns with the given
    kernel."""
    core, kernel = request.param
    before = core.use_bytes_kernel(kernel)
    try:
        yield core
    finally:
        core.use_bytes_kernel(before)


def pytest_report_header() -> list[str]:
    names = ", ".join(c.IMPLEMENTATION for c in TESTED_CORES)
    kernels = ", ".join(f"{c.IMPLEMENTATION}: {'/'.join(c.KERNELS)}" for c in TESTED_CORES)
    return [
        f"sashite_epin facade core: {sashite_epin.IMPLEMENTATION}; cores tested: {names}",
        f"bytes kernels tested: {kernels} (default: {sashite_epin.BYTES_KERNEL})",
    ]


# Hypothesis: a bounded number of examples per property in every run (the suite's
# runs, the quick loop); HYPOTHESIS_PROFILE=long runs 20x more.
settings.register_profile(
    "ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("long", parent=settings.get_profile("ci"), max_examples=6000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """Holds an exclusive lock on the file at path (made if missing) for the block."""
    with open(path, "a+b") as file:
        if sys.platform == "win32":
            import msvcrt

            while True:
                try:  # LK_LOCK tries for about ten seconds, then raises
                    msvcrt.locking(file.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    continue
            try:
                yield
            finally:
                file.seek(0)
                msvcrt.locking(file.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(file, fcntl.LOCK_UN)


def once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """A folder that make(folder) fills once per test run, shared by every pytest-xdist
    worker of the run (each worker's session fixtures would otherwise make it again):
    the first worker to ask makes it while the others wait, and a failed make is tried
    again by the next one to ask (and fails its test too)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder, done = root / name, root / f"{name}.done"
    with _exclusive(root / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


DOWNSTREAM_SOURCES = Path(__file__).parent / "downstream"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def downstream_built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder holding every downstream module the tests compile against the
    installed package, built once per run in one build (test_capi.py and
    test_placement_capi.py read it): tests/downstream's probes, docs/capi.md's example
    as a reader would copy it (the page's cython block) and examples/feen_board.pyx."""

    def make(folder: Path) -> None:
        for name in ("engine_probe.pyx", "placement_probe.pyx"):
            shutil.copy(DOWNSTREAM_SOURCES / name, folder)
        shutil.copy(ROOT / "examples" / "feen_board.pyx", folder)
        page = (ROOT / "docs" / "capi.md").read_text()
        example = re.search(r"^```cython\n(.*?)^```$", page, re.S | re.M)
        assert example is not None
        (folder / "capi_example.pyx").write_text(example.group(1))
        build(folder, ["engine_probe", "capi_example", "feen_board", "placement_probe"])

    return once_per_run(tmp_path_factory, "downstream", make)
