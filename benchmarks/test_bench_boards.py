"""What Epin.boards costs beside Epin.tokenize_many on the same column (pytest-benchmark):
300,000 placements, a mixed column (chess, shogi, xiangqi, a one-rank board, 5x5x5 in
layers: _corpora.placements) and a column of chess alone, as a list and as an Arrow
column, in this process.

    pip install '.[test]' && python -m pytest benchmarks/test_bench_boards.py \\
        --benchmark-group-by=group -s

Goal: boards within 2x tokenize_many's time (ratio <= 2.0); squares() (the 2-D array
laid out) is timed beside it.  The ``_ratio`` tests time both sides interleaved (best
of 5, CPU time) and keep the ratios in ``extra_info`` (and print them); no timing is
asserted.
"""

from __future__ import annotations

import pytest
from _timing import best_of_interleaved

from sashite_epin import Epin
from sashite_epin._corpora import placements

pytest.importorskip("pytest_benchmark")

ROWS = 300_000
MIXED = placements(3000) * (ROWS // 3000)
CHESS = [t for t in placements(20000) if t.count("/") == 7][:3000] * (ROWS // 3000)


def columns() -> dict[str, object]:
    found: dict[str, object] = {"mixed list": MIXED, "chess list": CHESS}
    try:
        import pyarrow
    except ImportError:
        pass
    else:
        found["mixed arrow"] = pyarrow.array(MIXED)
        found["chess arrow"] = pyarrow.array(CHESS)
    return found


INPUTS = columns()


@pytest.mark.parametrize("container", list(INPUTS))
def test_boards_ratio(benchmark, container):  # type: ignore[no-untyped-def]
    benchmark.group = "300k placements: boards / tokenize_many (extra_info)"
    texts = INPUTS[container]
    boards, squares, tokens = best_of_interleaved(
        [
            lambda: Epin.boards(texts),
            lambda: Epin.boards(texts).squares(),
            lambda: Epin.tokenize_many(texts),
        ],
        rounds=5,
    )
    benchmark.extra_info["boards / tokenize_many (goal <= 2.0)"] = round(boards / tokens, 3)
    benchmark.extra_info["boards + squares() / tokenize_many"] = round(squares / tokens, 3)
    benchmark.extra_info["ms: boards, with squares(), tokenize_many"] = [
        round(t * 1e3, 1) for t in (boards, squares, tokens)
    ]
    print(
        f"\n{container}: boards / tokenize_many {boards / tokens:.3f}, with squares() "
        f"{squares / tokens:.3f} ({boards * 1e3:.1f} / {squares * 1e3:.1f} / {tokens * 1e3:.1f} ms)"
    )
    benchmark.pedantic(lambda: Epin.boards(texts), rounds=1, iterations=1)
