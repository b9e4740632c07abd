"""What ``strict=True`` costs tokenize_many and tokenize (pytest-benchmark): a column of
a million FEEN placements (34 million tokens) read strictly beside the same call
without strict, in this process.

    pip install '.[test]' && python -m pytest benchmarks/test_bench_strict.py \\
        --benchmark-group-by=group

Goal: strict within a few percent of non-strict (ratio <= 1.05) on a list and on an
Arrow column, valid rows and rows refused at their end alike.  The ``_ratio`` tests
time both sides interleaved (best of 7, CPU time) and keep the ratio in
``extra_info``; no timing is asserted.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from _timing import best_of_interleaved

from sashite_epin import Epin
from sashite_epin._corpora import PLACEMENTS

pytest.importorskip("pytest_benchmark")

ROWS = 1_000_000
COLUMN = [PLACEMENTS[i % len(PLACEMENTS)] for i in range(ROWS)]


def columns() -> dict[str, object]:
    """The valid placements as a list, and as an Arrow column where pyarrow is."""
    found: dict[str, object] = {"list": COLUMN}
    try:
        import pyarrow
    except ImportError:
        pass
    else:
        found["arrow"] = pyarrow.array(COLUMN)
    return found


INPUTS = columns()


def work(texts: object, strict: bool) -> Callable[[], object]:
    return lambda: Epin.tokenize_many(texts, strict=strict)


@pytest.mark.parametrize("container", list(INPUTS))
@pytest.mark.parametrize("strict", [True, False], ids=["strict", "default"])
def test_tokenize_many(benchmark, container, strict):  # type: ignore[no-untyped-def]
    benchmark.group = f"tokenize_many, 1M placements ({container}): strict beside default"
    benchmark(work(INPUTS[container], strict))


@pytest.mark.parametrize("container", list(INPUTS))
def test_tokenize_many_ratio(benchmark, container):  # type: ignore[no-untyped-def]
    benchmark.group = "tokenize_many, 1M placements: strict / default (extra_info)"
    texts = INPUTS[container]
    strict, default = best_of_interleaved([work(texts, True), work(texts, False)], rounds=7)
    benchmark.extra_info["ratio"] = round(strict / default, 3)
    benchmark.extra_info["strict ms"] = round(strict * 1e3, 2)
    benchmark.extra_info["default ms"] = round(default * 1e3, 2)
    benchmark.pedantic(work(texts, True), rounds=1, iterations=1)


# A tenth of the rows refused at their end: strict refuses " ", non-strict "^^", each
# side's own refusal, so both read every row whole and mark as many.
REFUSED = {
    True: [row + " " * (i % 10 == 0) for i, row in enumerate(COLUMN)],
    False: [row + "^^" * (i % 10 == 0) for i, row in enumerate(COLUMN)],
}


def test_refused_rows_ratio(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "tokenize_many, a tenth refused at the end: strict / default (extra_info)"
    strict, default = best_of_interleaved(
        [
            lambda: Epin.tokenize_many(REFUSED[True], errors="mark", strict=True),
            lambda: Epin.tokenize_many(REFUSED[False], errors="mark"),
        ],
        rounds=7,
    )
    benchmark.extra_info["ratio"] = round(strict / default, 3)
    benchmark.pedantic(
        lambda: Epin.tokenize_many(REFUSED[True], errors="mark", strict=True),
        rounds=1,
        iterations=1,
    )


TEXT = "".join(COLUMN[:30_000])  # one text of 1.9 MB: tokenize's items


def test_tokenize_one_text_ratio(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "tokenize, one text of 30,000 placements: strict / default (extra_info)"
    strict, default = best_of_interleaved(
        [lambda: Epin.tokenize(TEXT, strict=True), lambda: Epin.tokenize(TEXT)], rounds=7
    )
    benchmark.extra_info["ratio"] = round(strict / default, 3)
    benchmark.pedantic(lambda: Epin.tokenize(TEXT, strict=True), rounds=1, iterations=1)
