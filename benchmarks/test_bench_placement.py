"""The C API's whole placements against the code an engine writes for itself: goals,
scan_placement at most 1.0x the time of a hand-written table-and-switch parser, and
format_placement at most 1.0x a hand formatter (benchmarks/placement/hand_placement.h),
both compiled at -O2 into one module (placement_bench.pyx) with the C API cimported
from the installed package, on the same game placements (chess, shogi, xiangqi, one
rank, 5x5x5 in layers), the four loops interleaved in each round, best of 40.

    python -m pytest benchmarks/test_bench_placement.py --benchmark-group-by=group -s

The ratios go in extra_info (and are printed); pytest-benchmark times the two scans
from Python as well.  For instruction counts: valgrind --tool=callgrind on
placement_bench.callgrind (see docs/capi.md).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import sashite_epin
from sashite_epin._corpora import PLACEMENTS, placements

pytest.importorskip("pytest_benchmark")

HERE = Path(__file__).resolve().parent
TEXTS = [t.encode() for t in placements(3000) + PLACEMENTS]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):  # type: ignore[no-untyped-def]
    if sashite_epin.IMPLEMENTATION != "cython":
        pytest.skip("the C-level API needs the compiled core")
    sys.path.insert(0, str(HERE.parent / "tests" / "downstream"))
    from compile_downstream import build, load

    folder = tmp_path_factory.mktemp("placement_bench")
    for name in ("placement_bench.pyx", "hand_placement.h"):
        shutil.copy(HERE / "placement" / name, folder)
    build(folder, ["placement_bench"])
    module = load(folder, "placement_bench")
    assert module.same_results(TEXTS)
    return module


@pytest.mark.parametrize("side", ["scan_placement", "hand parser"])
def test_scan_against_a_hand_parser(benchmark, bench, side):  # type: ignore[no-untyped-def]
    benchmark.group = "placements: C API / hand-written C"
    scan, fmt, best = bench.ratios(TEXTS, 40)
    benchmark.extra_info["scan ratio (goal <= 1.0)"] = round(scan, 3)
    benchmark.extra_info["format ratio (goal <= 1.0)"] = round(fmt, 3)
    benchmark.extra_info["best s: scan, hand scan, format, hand format"] = best
    print(f"\nscan_placement / hand parser {scan:.3f}, format_placement / hand formatter {fmt:.3f}")
    benchmark(bench.callgrind, TEXTS, side == "scan_placement", False)
