"""String containers, many chunks and small batches, each beside its baseline in one run
(pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks/test_bench_containers.py \\
        --benchmark-group-by=group

Goals (uniform corpus, 2M entries): every pandas string container (str,
string[pyarrow], string[python], ArrowDtype(string / large_string), object) within 1.3x
of the fastest input of the same entries; an Arrow column of 40 chunks of 50,000 within
1.3x of one chunk; 2,048-row Arrow batches (one row in 97 missing, one in 89 a typo, as
real columns have), each parsed (``errors="mark"``) and exported (``pa.table(result)``
through the stream capsule, ``pa.record_batch(result)`` through the array capsule, and
``result.to_arrow()``), within 2x of the per-row time of one call over all their rows
(both sides read the same rows, so the ratio of their times is the ratio per row).
``test_batch_ratio`` keeps that ratio, both sides timed in turn in this process (best of
7, CPU time), in ``extra_info``; no timing is asserted.
``python benchmarks/test_bench_containers.py`` prints the batch rows' ratios the same way.
"""

from __future__ import annotations

import pytest
from _timing import best_of_interleaved

from sashite_epin import _bench_containers
from sashite_epin._corpora import uniform

pytest.importorskip("pytest_benchmark")
pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

COUNT = 2_000_000
# Built when pytest collects this file (the rows name the tests), not when it is run.
TOKENS = uniform(COUNT) if __name__ != "__main__" else []
ROWS = (
    [
        *_bench_containers.container_rows(TOKENS),
        *_bench_containers.chunk_rows(TOKENS),
        *_bench_containers.batch_rows(TOKENS),
    ]
    if __name__ != "__main__"
    else []
)


@pytest.mark.parametrize("row", ROWS, ids=[f"{row[0]} | {row[2]}" for row in ROWS])
@pytest.mark.parametrize("side", ["ours", "baseline"])
def test_container(benchmark, row, side):  # type: ignore[no-untyped-def]
    name, work, base_name, base = row
    benchmark.group = f"{name} | beside: {base_name}"
    benchmark(work if side == "ours" else base)


BATCHES = _bench_containers.batch_rows(TOKENS) if __name__ != "__main__" else []


@pytest.mark.parametrize("row", BATCHES, ids=[row[0] for row in BATCHES])
def test_batch_ratio(benchmark, row):  # type: ignore[no-untyped-def]
    _, work, _, base = row
    benchmark.group = "2,048-row batches, ratio per row to one call over their rows (extra_info)"
    ours, theirs = best_of_interleaved([work, base], rounds=7)
    benchmark.extra_info["ratio"] = round(ours / theirs, 3)
    benchmark.extra_info["batches ms"] = round(ours * 1e3, 2)
    benchmark.extra_info["one call ms"] = round(theirs * 1e3, 2)
    benchmark.pedantic(work, rounds=1, iterations=1)


if __name__ == "__main__":
    import sys

    from sashite_epin._bench import machine

    count = int(sys.argv[1]) if len(sys.argv) > 1 else COUNT
    tokens = uniform(count)
    print(f"{count:,} entries, best of 7 by CPU time, interleaved; {machine()}")
    print("| path | baseline | ratio |")
    print("|---|---|---|")
    for name, work, base_name, base in _bench_containers.batch_rows(tokens):
        work(), base()
        ours, theirs = best_of_interleaved([work, base], rounds=7)
        print(f"| {name} | {base_name} | {ours / theirs:.2f}x |", flush=True)
