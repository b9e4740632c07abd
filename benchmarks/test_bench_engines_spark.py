"""Spark: counting a column by reason beside the same count over an identity Arrow UDF,
in one ``local[2]`` session (pytest-benchmark).

    pip install '.[test,engines]' && python -m pytest benchmarks/test_bench_engines_spark.py \\
        --benchmark-group-by=group

1M entries (half valid tokens, two fifths near misses, a tenth missing), cached, in two
partitions.  Goal: ``df.groupBy(reason("t")).count()`` within 1.3x of
``df.groupBy(identity("t")).count()``, where ``identity`` is an Arrow UDF returning
its batch: the cost of handing each batch to a Python worker and back, which any
vectorised UDF pays.  ``valid`` and ``parse`` are timed beside the same baseline.
``python benchmarks/test_bench_engines_spark.py [COUNT]`` prints the ratios,
interleaved, best of 3.  Skipped where pyspark or Java is missing.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sashite_epin import spark as epin_spark
from sashite_epin._corpora import EPIN_TOKENS

if importlib.util.find_spec("pyspark") is None or shutil.which("java") is None:
    pytest.skip("needs pyspark and Java", allow_module_level=True)

pytest.importorskip("pytest_benchmark")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


COUNT = 1_000_000
MISSES = ["", "KK", "K+", "^K", "++K", "K^^", "K''", "1", "K ", "x1", "\u212a", "+K^'X"]


def mixed(count: int, seed: int = 5) -> list[str | None]:
    """Half valid tokens, two fifths near misses, a tenth missing (test_bench_frames'
    corpus)."""
    rng = random.Random(seed)
    out: list[str | None] = []
    for token in rng.choices(EPIN_TOKENS, k=count):
        roll = rng.random()
        out.append(token if roll < 0.5 else None if roll >= 0.9 else rng.choice(MISSES))
    return out


def session() -> Any:
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers need sashite-epin
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def frame(spark: Any, count: int, folder: str) -> Any:
    """The corpus as a cached frame of two partitions, read from Parquet (as data is)."""
    pq.write_table(pa.table({"t": pa.array(mixed(count), pa.string())}), folder)
    df = spark.read.parquet(folder).repartition(2).cache()
    df.count()
    return df


def queries(df: Any) -> dict[str, Callable[[], object]]:
    import warnings

    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    from pyspark.util import PythonEvalType

    def identity(values: Any) -> Any:  # nested: pickled by value, for any worker
        return values

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Spark's advice on type hints, pandas 3
        same = F.arrow_udf(identity, T.StringType(), PythonEvalType.SQL_SCALAR_ARROW_UDF)
    return {
        "identity": lambda: df.groupBy(same("t")).count().collect(),
        "reason": lambda: df.groupBy(epin_spark.reason("t")).count().collect(),
        "valid": lambda: df.groupBy(epin_spark.valid("t")).count().collect(),
        "parse": lambda: df.groupBy(epin_spark.parse("t")["abbr"]).count().collect(),
    }


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, Callable[[], object]]]:
    spark = session()
    with tempfile.TemporaryDirectory() as folder:
        yield queries(frame(spark, COUNT, os.path.join(folder, "t.parquet")))
    spark.stop()


@pytest.mark.parametrize("name", ["reason", "valid", "parse", "identity"])
def test_spark(benchmark, runs, name):  # type: ignore[no-untyped-def]
    benchmark.group = "groupBy(f(t)).count(), 1M rows | beside: an identity Arrow UDF"
    benchmark.pedantic(runs[name], rounds=3, warmup_rounds=1)


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else COUNT
    from sashite_epin._bench import machine

    spark = session()
    with tempfile.TemporaryDirectory() as folder:
        runs = queries(frame(spark, count, os.path.join(folder, "t.parquet")))
        for run in runs.values():
            run()  # the workers started, the UDFs' modules imported
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(3):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                best[name] = min(best[name], time.perf_counter() - start)
    print(f"{count:,} entries, local[2], best of 3, interleaved; {machine()}")
    print("| groupBy(...).count() | s | beside identity |")
    print("|---|---|---|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds:.2f} | {seconds / best['identity']:.2f}x |")
