"""The data paths around the core, each beside its baseline in one run (pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks/test_bench_tables.py \\
        --benchmark-group-by=group

Goals (uniform corpus, 1M tokens): every pandas container within 1.5x of
``parse_many(series)`` (numpy StringDType is read through numpy's own casts and misses
it); 0.1 % invalid entries within 1.3x of a clean input on every path; ten times the
tokens within 1.5x of the per-token time; ``errors()`` of half a million marked entries
without an object each until read; the pure-Python twin beside the obvious code (a dict
over the input's Python objects).  The same rows are in ``python -m sashite_epin bench``.
"""

from __future__ import annotations

import pytest

from sashite_epin import _bench_tables
from sashite_epin._corpora import uniform

pytest.importorskip("pytest_benchmark")
pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

COUNT = 1_000_000
TOKENS = uniform(COUNT)
ROWS = [
    *_bench_tables.container_rows(TOKENS),
    *_bench_tables.dirty_rows(TOKENS),
    _bench_tables.errors_row(COUNT),
    *_bench_tables.twin_rows(TOKENS),
]


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
@pytest.mark.parametrize("side", ["ours", "baseline"])
def test_data_path(benchmark, row, side):  # type: ignore[no-untyped-def]
    name, work, base_name, base = row
    benchmark.group = f"{name} | beside: {base_name}"
    benchmark(work if side == "ours" else base)


def test_ten_times_the_tokens(benchmark):  # type: ignore[no-untyped-def]
    name, work, _ = _bench_tables.large_row(TOKENS, 10)
    benchmark.group = name
    benchmark(work)
