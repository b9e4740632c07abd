"""Fixtures: both cores (compiled and twin), the regex oracle, the tricky alphabet.

The public facade runs on the core that ``SASHITE_EPIN_IMPLEMENTATION`` picks (the
README's test command runs the suite once per implementation); core-level tests run
on every core that is expected here (in the compiled run, the compiled core: the twin's
run tests the twin), and the compiled core is checked against the twin in the same
process.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
from collections.abc import Iterator
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


# The tests of the C-level API's probes (test_capi.py, test_placement_capi.py) share
# one xdist group, so that under "pytest -n" one worker runs them and their
# session-scoped build (downstream_built) happens once per run, not once per worker.
DOWNSTREAM = pytest.mark.xdist_group("downstream")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # "-n N" alone distributes test by test ("load"); "loadgroup" is the same but
    # keeps each xdist group on one worker.
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"


DOWNSTREAM_SOURCES = Path(__file__).parent / "downstream"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def downstream_built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder holding every downstream module the tests compile against the
    installed package, built once per session in one build: tests/downstream's probes,
    docs/capi.md's example as a reader would copy it (the page's cython block) and
    examples/feen_board.pyx."""
    folder = tmp_path_factory.mktemp("downstream")
    for name in ("engine_probe.pyx", "placement_probe.pyx"):
        shutil.copy(DOWNSTREAM_SOURCES / name, folder)
    shutil.copy(ROOT / "examples" / "feen_board.pyx", folder)
    page = (ROOT / "docs" / "capi.md").read_text()
    example = re.search(r"^```cython\n(.*?)^```$", page, re.S | re.M)
    assert example is not None
    (folder / "capi_example.pyx").write_text(example.group(1))
    build(folder, ["engine_probe", "capi_example", "feen_board", "placement_probe"])
    return folder
