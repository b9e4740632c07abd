"""Columns half missing or half invalid under ``errors="mark"`` beside the clean column
of the same kind (pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks/test_bench_marks.py \\
        --benchmark-group-by=group

Goal (docs/speed.md, "Marked entries"): per entry, a column half of whose entries are
missing (None, Arrow nulls) or invalid parses within 2x the time of the clean column of
the same kind, 2M entries of the uniform corpus, on every input kind; the 0.1 %-invalid
column within 1.3x.  ``test_marked_ratio`` times both sides interleaved in this process
(best of 5, CPU time) and keeps the ratio in ``extra_info`` (printed too, with ``-s``:
``--benchmark-disable`` reports no extra_info); no timing is asserted.
"""

from __future__ import annotations

import pytest
from _timing import best_of_interleaved

from sashite_epin import _bench_marks
from sashite_epin._corpora import PLACEMENTS, uniform

pytest.importorskip("pytest_benchmark")

COUNT = 2_000_000
TOKENS = uniform(COUNT)
RARE = [_bench_marks.TYPOS[i % 8] if i % 1000 == 999 else t for i, t in enumerate(TOKENS)]
ROWS = [
    *_bench_marks.marked_rows(TOKENS),
    *[
        (f"0.1 % invalid, {kind} -> result", _bench_marks.parse(rare), "clean",
         _bench_marks.parse(clean))
        for (kind, rare), (_, clean) in zip(
            _bench_marks.kinds(RARE), _bench_marks.kinds(TOKENS), strict=True)
    ],
    *_bench_marks.tokenize_many_rows(
        [PLACEMENTS[i % len(PLACEMENTS)] for i in range(COUNT // 34)]),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_marked_ratio(benchmark, row):  # type: ignore[no-untyped-def]
    _name, work, base_name, base = row
    benchmark.group = "marked entries: ratio to the clean column of the kind (extra_info)"
    ours, theirs = best_of_interleaved([work, base], rounds=5)
    benchmark.extra_info["ratio"] = round(ours / theirs, 3)
    benchmark.extra_info["marked ms"] = round(ours * 1e3, 2)
    benchmark.extra_info[f"{base_name} ms"] = round(theirs * 1e3, 2)
    # shown with -s, also when --benchmark-disable leaves extra_info unreported
    print(f"\n{_name}: {ours / theirs:.2f}x ({ours * 1e3:.1f} ms, {base_name} "
          f"{theirs * 1e3:.1f} ms)")  # fmt: skip
    benchmark.pedantic(work, rounds=1, iterations=1)
