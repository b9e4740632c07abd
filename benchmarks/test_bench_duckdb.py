"""DuckDB's SQL functions beside an identity Arrow UDF, in one run (pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks/test_bench_duckdb.py \\
        --benchmark-group-by=group

Goals (2M rows, ``SELECT f(t) r, count(*) FROM tbl GROUP BY r``): ``epin_reason``
within 1.5x of the same query through an identity Arrow UDF (DuckDB hands each its
column 2,048 rows at a time, the identity hands it back) on a clean column, and within
2x where 40 % of the entries are invalid (20 %) or NULL (20 %).  ``epin_valid`` and
``epin_parse`` are there too, for the record.
"""

from __future__ import annotations

from typing import Any

import pytest

from sashite_epin._corpora import uniform

pytest.importorskip("pytest_benchmark")
duckdb: Any = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
engine = pytest.importorskip("sashite_epin.duckdb")

COUNT = 2_000_000


def connection() -> Any:
    con = duckdb.connect()
    engine.register(con)
    con.create_function(
        "identity",
        lambda column: column,
        [duckdb.sqltype("VARCHAR")],
        duckdb.sqltype("VARCHAR"),
        type="arrow",
        null_handling="special",
    )
    tokens: list[str | None] = list(uniform(COUNT))
    con.register("clean_arrow", pa.table({"t": tokens}))
    for i in range(0, COUNT, 5):  # every fifth invalid, every fifth missing
        tokens[i] = "K^^"
        tokens[i + 1] = None
    con.register("dirty_arrow", pa.table({"t": tokens}))
    # DuckDB's own tables, so the scan is DuckDB's in both queries
    con.execute("CREATE TABLE clean AS SELECT * FROM clean_arrow")
    con.execute("CREATE TABLE dirty AS SELECT * FROM dirty_arrow")
    return con


CON = connection()


def query(function: str, table: str) -> Any:
    sql = f"SELECT {function}(t) r, count(*) FROM {table} GROUP BY r"
    return lambda: CON.execute(sql).fetchall()


@pytest.mark.parametrize("table", ["clean", "dirty"])
@pytest.mark.parametrize("function", ["identity", "epin_reason", "epin_valid"])
def test_group_by_reason(benchmark, function, table):  # type: ignore[no-untyped-def]
    benchmark.group = f"GROUP BY over 2M rows, {table} | beside: identity"
    benchmark(query(function, table))


def test_parse_struct(benchmark):  # type: ignore[no-untyped-def]
    benchmark.group = "epin_parse(t).side, 2M rows"
    sql = "SELECT (epin_parse(t)).side s, count(*) FROM dirty GROUP BY s"
    benchmark(lambda: CON.execute(sql).fetchall())


def ratios(rounds: int = 7) -> dict[str, float]:
    """Each query's CPU time (the process's, DuckDB's threads included) over the
    identity's on the same table: the least of ``rounds`` interleaved runs each, a
    figure a busy machine moves less than wall time."""
    import time

    best: dict[tuple[str, str], float] = {}
    for _ in range(rounds):
        for table in ("clean", "dirty"):
            for function in ("identity", "epin_reason", "epin_valid"):
                run = query(function, table)
                start = time.process_time()
                run()
                spent = time.process_time() - start
                key = (function, table)
                best[key] = min(best.get(key, spent), spent)
    return {
        f"{function} / identity, {table}": best[function, table] / best["identity", table]
        for function, table in best
        if function != "identity"
    }


if __name__ == "__main__":  # python benchmarks/test_bench_duckdb.py
    for name, ratio in ratios().items():
        print(f"{name}: {ratio:.2f}x")
