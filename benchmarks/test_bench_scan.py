"""Scanning FEEN-like placements from Python beside a pure-Python regex tokenizer, in one
run (pytest-benchmark).  Goal: Epin.tokenize >= 10x faster.  And the C-level road:
examples/feen_board.pyx decoding placements into boards, in placements per second.

    python -m pytest benchmarks/test_bench_scan.py --benchmark-group-by=group
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

import sashite_epin
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


# A column of placements, one position a row (about a million tokens): tokenize_many,
# each token's row taken too (the result keeps each row's range), beside tokenize row
# by row and the regex row by row.  Goals: >= 10x and >= 100x, at most 2 ns a token.
COLUMN = [PLACEMENTS[i % len(PLACEMENTS)] for i in range(1_000_000 // 34)]


@pytest.mark.parametrize(
    "side",
    ["tokenize_many", "tokenize_many, pandas str Series", "tokenize per row", "regex per row"],
)
def test_a_column_of_placements(benchmark, side):  # type: ignore[no-untyped-def]
    benchmark.group = "a column of FEEN placements -> tokens"
    series = pytest.importorskip("pandas").Series(COLUMN, dtype="str")
    work = {
        "tokenize_many": lambda: Epin.tokenize_many(COLUMN).rows,
        # each token labelled with its row's label (the Series' index)
        "tokenize_many, pandas str Series": lambda: Epin.tokenize_many(series).rows,
        "tokenize per row": lambda: [Epin.tokenize(s) for s in COLUMN],
        "regex per row": lambda: [REGEX(s) for s in COLUMN],
    }[side]
    benchmark(work)


# Refused rows under errors="mark": 100,000 placements each refused at its end (the
# whole row read, then its mark), and half of them, beside the same rows all valid.
# Goal: each within 2x the valid column, on a list and on an Arrow column.  And 100,000
# rows of "K^^" beside 100,000 of "K^": each refusal's own cost laid bare.
MARKED_ROWS = 100_000
VALID_ROWS = [PLACEMENTS[i % len(PLACEMENTS)] for i in range(MARKED_ROWS)]
REFUSED_ROWS = {
    "valid": VALID_ROWS,
    "all refused": [row + "^^" for row in VALID_ROWS],
    "half refused": [row + "^^" * (i % 2) for i, row in enumerate(VALID_ROWS)],
    "K^ rows": ["K^"] * MARKED_ROWS,
    "K^^ rows": ["K^^"] * MARKED_ROWS,
}


@pytest.mark.parametrize("container", ["list", "arrow"])
@pytest.mark.parametrize("rows", list(REFUSED_ROWS))
def test_refused_rows_under_mark(benchmark, rows, container):  # type: ignore[no-untyped-def]
    benchmark.group = f"tokenize_many errors='mark', 100,000 rows ({container})"
    texts = REFUSED_ROWS[rows]
    if container == "arrow":
        texts = pytest.importorskip("pyarrow").array(texts)
    benchmark(Epin.tokenize_many, texts, errors="mark")


# The C-level road: examples/feen_board.pyx (a cimport of scan_many) decoding each
# placement of the column into a board of codes by square, compiled here as a third
# party compiles it, beside the obvious Python (tokenize, then the digits and "/"
# between tokens).  Its own nogil loop's placements per second go in extra_info.
ROOT = Path(__file__).resolve().parent.parent
BOARDS = [p.encode() for p in COLUMN]


@pytest.fixture(scope="module")
def feen_board(tmp_path_factory):  # type: ignore[no-untyped-def]
    if sashite_epin.IMPLEMENTATION != "cython":
        pytest.skip("the C-level API needs the compiled core")
    sys.path.insert(0, str(ROOT / "tests" / "downstream"))
    from compile_downstream import build, load

    folder = tmp_path_factory.mktemp("feen_board")
    shutil.copy(ROOT / "examples" / "feen_board.pyx", folder)
    build(folder, ["feen_board"])
    return load(folder, "feen_board")


def board_in_python(placement: str) -> list[object]:
    squares: list[object] = []
    for item in Epin.tokenize(placement):
        if not isinstance(item, str):
            squares.append(item)
            continue
        for run in re.findall(r"[0-9]+", item):
            squares.extend([None] * int(run))
    return squares


@pytest.mark.parametrize("side", ["feen_board.pyx", "tokenize + Python"])
def test_placements_to_boards(benchmark, feen_board, side):  # type: ignore[no-untyped-def]
    benchmark.group = "a column of FEEN placements -> boards"
    if side == "feen_board.pyx":
        rate, squares = feen_board.placements_per_second(BOARDS, 5)
        benchmark.extra_info["C loop placements/s"] = round(rate)
        benchmark.extra_info["C loop ns/square"] = round(1e9 / rate / (squares / len(BOARDS)), 2)
        benchmark(lambda: [feen_board.board(p) for p in BOARDS])
    else:
        benchmark(lambda: [board_in_python(p) for p in COLUMN])
