"""Columns in and out, beside their baselines in one run (pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks/test_bench_columns.py \\
        --benchmark-group-by=group

Goals (uniform corpus, 1M tokens): a pyarrow string column costs no more per token than
the bytes path and is >= 20x faster than ``column.to_pylist()`` + ``parse_many``; a
polars Series and a pandas 3 ``str`` Series within 1.5x of pyarrow; a numpy object array
within 1.3x of a list; a numpy U array faster than its ``tolist()``; the export to a
pyarrow table <= 5 ns/token.
"""

from __future__ import annotations

import numpy as np
import pytest

from sashite_epin import Epin
from sashite_epin._corpora import uniform

pytest.importorskip("pytest_benchmark")
pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")
pd = pytest.importorskip("pandas")

COUNT = 1_000_000
TOKENS = uniform(COUNT)
COLUMN = pa.array(TOKENS, pa.string())
JOINED = "\n".join(TOKENS).encode()
RESULT = Epin.parse_many(TOKENS)


def test_arrow_column(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "Arrow string column -> result"
    benchmark(Epin.parse_many, COLUMN)


def test_arrow_baseline_to_pylist(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "Arrow string column -> result"
    benchmark(lambda: Epin.parse_many(COLUMN.to_pylist()))


def test_arrow_beside_bytes(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "Arrow string column -> result"
    benchmark(Epin.parse_many, JOINED)


@pytest.mark.parametrize(
    "make",
    [lambda: pl.Series(TOKENS), lambda: pd.Series(TOKENS, dtype="str")],
    ids=["polars", "pandas str"],
)
def test_dataframe_columns(benchmark, make):  # type: ignore[no-untyped-def]
    benchmark.group = "Arrow string column -> result"
    column = make()
    benchmark(Epin.parse_many, column)


def test_object_array(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "objects -> result"
    benchmark(Epin.parse_many, np.array(TOKENS, dtype=object))


def test_object_baseline_list(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "objects -> result"
    benchmark(Epin.parse_many, TOKENS)


def test_numpy_u_array(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "numpy U array -> result"
    benchmark(Epin.parse_many, np.array(TOKENS))


def test_numpy_u_baseline_tolist(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "numpy U array -> result"
    strings = np.array(TOKENS)
    benchmark(lambda: Epin.parse_many(strings.tolist()))


def test_export_to_arrow_table(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "result -> pyarrow table"
    benchmark(pa.table, RESULT)


def test_export_baseline_from_python(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "result -> pyarrow table"
    benchmark(lambda: pa.table({"token": RESULT.tokens()}))
