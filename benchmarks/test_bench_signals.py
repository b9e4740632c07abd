"""What the signal checks between pieces cost (Ctrl-C stops a long call), in one run
(pytest-benchmark): each long path with sixteen times the checks the compiled core
makes by default, beside the same call with none.

    pip install '.[test]' && python -m pytest benchmarks/test_bench_signals.py \\
        --benchmark-group-by=group

Goal (uniform corpus, 1M tokens): each within 2 % of its baseline, at the default piece
size; with sixteen times the checks, as here, the cost bounds it from above.  The same
rows are in ``python -m sashite_epin bench``.
"""

from __future__ import annotations

import pytest

from sashite_epin import _bench_signals
from sashite_epin._corpora import uniform

pytest.importorskip("pytest_benchmark")

ROWS = _bench_signals.signal_rows(uniform(1_000_000))


@pytest.mark.skipif(not ROWS, reason="the twin checks no signal of its own")
@pytest.mark.parametrize("row", ROWS or [("none", None, "none", None)], ids=lambda r: r[0])
@pytest.mark.parametrize("side", ["ours", "baseline"])
def test_signal_checks(benchmark, row, side):  # type: ignore[no-untyped-def]
    name, work, base_name, base = row
    benchmark.group = f"{name} | beside: {base_name}"
    benchmark(work if side == "ours" else base)
