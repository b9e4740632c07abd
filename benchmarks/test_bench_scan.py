"""Scanning FEEN-like placements from Python beside a pure-Python regex tokenizer, in one
run (pytest-benchmark).  Goal: Epin.tokenize >= 10x faster.

    python -m pytest benchmarks/test_bench_scan.py --benchmark-group-by=group
"""

from __future__ import annotations

import pytest

from sashite_epin import Epin
from sashite_epin._bench import regex_tokenizer
from sashite_epin._corpora import PLACEMENTS, uniform

pytest.importorskip("pytest_benchmark")

REGEX = regex_tokenizer()


def test_tokenize_placements(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "FEEN placements -> items"
    assert [Epin.tokenize(s) for s in PLACEMENTS] == [REGEX(s) for s in PLACEMENTS]
    benchmark(lambda: [Epin.tokenize(s) for s in PLACEMENTS])


def test_regex_baseline(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "FEEN placements -> items"
    benchmark(lambda: [REGEX(s) for s in PLACEMENTS])


TEXT = "".join(uniform(1_000_000))


def test_tokenize_one_long_text(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "1M tokens back to back -> items"
    benchmark(Epin.tokenize, TEXT)


def test_tokenize_one_long_text_regex(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "1M tokens back to back -> items"
    benchmark(REGEX, TEXT)


# A column of placements, one position a row (about a million tokens): tokenize_many
# beside tokenize row by row and the regex row by row.  Goals: >= 10x and >= 100x,
# at most 2 ns a token.
COLUMN = [PLACEMENTS[i % len(PLACEMENTS)] for i in range(1_000_000 // 34)]


@pytest.mark.parametrize(
    "side",
    ["tokenize_many", "tokenize per row", "regex per row"],
)
def test_a_column_of_placements(benchmark, side):  # type: ignore[no-untyped-def]
    benchmark.group = "a column of FEEN placements -> tokens"
    work = {
        "tokenize_many": lambda: Epin.tokenize_many(COLUMN),
        "tokenize per row": lambda: [Epin.tokenize(s) for s in COLUMN],
        "regex per row": lambda: [REGEX(s) for s in COLUMN],
    }[side]
    benchmark(work)
