"""sashite_epin.spark in a real Spark: one ``local[2]`` session for the module, whose
Python workers are this interpreter (``PYSPARK_PYTHON``, as a user sets it), small
frames cut into batches smaller than the frames (``maxRecordsPerBatch``).  Every column
function and SQL function gives what ``parse_many`` / ``tokenize_many`` give for the
same entries, invalid and missing ones included.  Skipped where pyspark or Java is
missing (the README's test command has neither; .ci/engines has both)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from sashite_epin import Epin, Pin
from sashite_epin import spark as epin_spark
from sashite_epin._corpora import PLACEMENTS, with_invalid

if importlib.util.find_spec("pyspark") is None:
    pytest.skip("pyspark is not installed (pip install '.[engines]')", allow_module_level=True)
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java: none on PATH, no JAVA_HOME", allow_module_level=True)

pa = pytest.importorskip("pyarrow")
sql = pytest.importorskip("pyspark.sql")
Column, SparkSession, F = sql.Column, sql.SparkSession, sql.functions

BATCH = 700  # rows per Arrow batch: every frame below spans several
TOKENS: list[str | None] = [*with_invalid(2500), None, "", None, "x1", "+K^'", "K^'"]
TEXTS: list[str | None] = [*PLACEMENTS, None, "", "8/8", "K^^", "rnb\u212ak", "+p'/q x"] * 40


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    before = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers need sashite-epin
    session = (
        SparkSession.builder.master("local[2]")
        .appName("sashite-epin tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(BATCH))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if before is None:
        del os.environ["PYSPARK_PYTHON"]
    else:
        os.environ["PYSPARK_PYTHON"] = before


@pytest.fixture(scope="module")
def tokens(spark: SparkSession) -> Any:
    rows = [(i, t) for i, t in enumerate(TOKENS)]
    return spark.createDataFrame(rows, "i long, t string").repartition(2).cache()


@pytest.fixture(scope="module")
def texts(spark: SparkSession) -> Any:
    rows = [(i, t) for i, t in enumerate(TEXTS)]
    return spark.createDataFrame(rows, "i long, t string").repartition(2).cache()


def column(frame: Any, expression: Column) -> list[Any]:
    """The expression's values in the frame's row order (``i``)."""
    rows = frame.select("i", expression.alias("out")).orderBy("i").collect()
    return [_plain(row["out"]) for row in rows]


def _plain(value: Any) -> Any:
    """Spark's Rows as dicts, at any depth, to compare with Arrow's to_pylist()."""
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


NOTATIONS = [("epin", Epin), ("pin", Pin)]


@pytest.mark.parametrize(("notation", "reader"), NOTATIONS)
def test_parse_gives_every_field_of_the_result(tokens: Any, notation: Any, reader: Any) -> None:
    expected = reader.parse_many(TOKENS, errors="mark").to_arrow().to_pylist()
    assert column(tokens, epin_spark.parse("t", notation)) == expected


@pytest.mark.parametrize(("notation", "reader"), NOTATIONS)
def test_valid_and_reason_agree_with_the_result(tokens: Any, notation: Any, reader: Any) -> None:
    table = reader.parse_many(TOKENS, errors="mark").to_arrow()
    assert column(tokens, epin_spark.valid(F.col("t"), notation)) == table["valid"].to_pylist()
    assert column(tokens, epin_spark.reason(F.col("t"), notation)) == table["reason"].to_pylist()


@pytest.mark.parametrize(("notation", "reader"), NOTATIONS)
def test_tokens_of_each_placement(texts: Any, notation: Any, reader: Any) -> None:
    rows = reader.tokenize_many(TEXTS, errors="mark").by_row().to_arrow()
    assert column(texts, epin_spark.tokens("t", notation)) == rows["tokens"].to_pylist()


def test_missing_entries_give_an_answer_not_an_error(spark: SparkSession) -> None:
    frame = spark.createDataFrame([(0, None), (1, ""), (2, "K^^")], "i long, t string")
    parsed = column(frame, epin_spark.parse("t"))
    assert [(p["token"], p["valid"], p["reason"]) for p in parsed] == [
        (None, False, "MISSING"),
        ("", False, "EMPTY"),
        ("K^^", False, "MULTIPLE_TERMINAL_MARKERS"),
    ]
    assert all(p["abbr"] is None and p["terminal"] is None for p in parsed)
    assert column(frame, epin_spark.valid("t")) == [False, False, False]
    assert column(frame, epin_spark.reason("t", "pin")) == [
        "MISSING",
        "EMPTY",
        "MULTIPLE_TERMINAL_MARKERS",
    ]
    # A missing text has no tokens (null); an empty one has none to give (empty).
    assert column(frame, epin_spark.tokens("t"))[:2] == [None, []]


def test_a_valid_entry_has_a_null_reason(spark: SparkSession) -> None:
    frame = spark.createDataFrame([(0, "+r^'")], "i long, t string")
    assert column(frame, epin_spark.parse("t")) == [
        {
            "token": "+r^'",
            "abbr": "R",
            "side": "second",
            "state": "enhanced",
            "terminal": True,
            "derived": True,
            "valid": True,
            "reason": None,
        }
    ]
    assert column(frame, epin_spark.reason("t")) == [None]
    assert column(frame, epin_spark.reason("t", "pin")) == ["TOO_LONG"]  # 4 characters


@pytest.mark.parametrize(("notation", "reader"), NOTATIONS)
def test_schema_is_the_type_spark_gives_the_parse(tokens: Any, notation: Any, reader: Any) -> None:
    schema = epin_spark.schema(notation)
    assert tokens.select(epin_spark.parse("t", notation)).schema.fields[0].dataType == schema
    assert schema.fieldNames() == reader.parse_many([]).to_arrow().column_names
    assert ("derived" in schema.fieldNames()) == (notation == "epin")
    element = tokens.select(epin_spark.tokens("t", notation)).schema.fields[0].dataType
    assert element.elementType.fieldNames() == [*schema.fieldNames(), "offset"]


def test_registered_sql_functions_answer_as_the_columns(spark: SparkSession, tokens: Any) -> None:
    assert epin_spark.register(spark) == epin_spark.FUNCTIONS
    tokens.createOrReplaceTempView("pieces")
    calls = ", ".join(f"{name}(t) AS {name}" for name in epin_spark.FUNCTIONS)
    got = spark.sql(f"SELECT i, {calls} FROM pieces ORDER BY i").collect()
    for name in epin_spark.FUNCTIONS:
        notation, what = name.split("_")
        expected = column(tokens, getattr(epin_spark, what)("t", notation))
        assert [_plain(row[name]) for row in got] == expected, name
    counted = spark.sql("SELECT epin_reason(t) AS r, count(*) AS n FROM pieces GROUP BY r")
    totals = {row["r"]: row["n"] for row in counted.collect()}
    assert totals[None] == sum(Epin.is_valid(t) for t in TOKENS)
    assert totals["MISSING"] == TOKENS.count(None)


def test_the_pandas_udfs_of_older_spark_answer_the_same(
    tokens: Any, texts: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Spark before 4.1 has no Arrow UDFs: the same batch functions run as pandas UDFs.
    arrow = {what: column(tokens, getattr(epin_spark, what)("t")) for what in ("parse", "reason")}
    placed = column(texts, epin_spark.tokens("t", "pin"))
    monkeypatch.delattr(F, "arrow_udf", raising=False)
    for what, expected in arrow.items():
        assert column(tokens, getattr(epin_spark, what)("t")) == expected, what
    assert column(tokens, epin_spark.valid("t")) == [Epin.is_valid(t) for t in TOKENS]
    assert column(texts, epin_spark.tokens("t", "pin")) == placed


def test_another_notation_is_refused_before_spark_sees_it() -> None:
    with pytest.raises(ValueError, match="notation must be 'epin' or 'pin'"):
        epin_spark.parse("t", "feen")  # type: ignore[arg-type]


def test_importing_the_module_needs_neither_pyspark_nor_a_session() -> None:
    code = (
        "import sys, sashite_epin, sashite_epin.spark as s; "
        "assert 'pyspark' not in sys.modules, 'pyspark imported'; "
        "print(len(s.FUNCTIONS))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "8"
