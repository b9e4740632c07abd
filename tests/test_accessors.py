"""The pandas accessors and polars namespaces (``import sashite_epin.pandas`` /
``sashite_epin.polars``): results on the input's index, fixed types, lazy and streaming
polars plans."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pandas as pd
import pytest
from conftest import optional

import sashite_epin.pandas
from sashite_epin import Epin, ParseError, Pin
from sashite_epin._corpora import with_invalid

# Libraries without a free-threaded wheel: their tests skip where missing.
pl: Any = optional("polars")
optional("sashite_epin.polars")  # registers the namespace where polars is installed

TOKENS = with_invalid(400, seed=9)


def expected(notation: type, tokens: list[str | None]) -> list[bool]:
    return [t is not None and notation.is_valid(t) for t in tokens]  # type: ignore[attr-defined]


def test_the_modules_register_on_import_only() -> None:
    code = "import pandas as pd, sashite_epin; print(hasattr(pd.Series, 'epin'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False"
    assert sashite_epin.pandas.__name__


@pytest.mark.parametrize(("notation", "name"), [(Epin, "epin"), (Pin, "pin")])
def test_pandas_series_accessor(notation: type, name: str) -> None:
    series = pd.Series(TOKENS, index=pd.RangeIndex(1000, 1400), name="token").sample(
        frac=1.0, random_state=2
    )
    accessor = getattr(series, name)
    fields = accessor.parse(errors="mark")
    assert fields.index.equals(series.index)
    assert fields.equals(notation.parse_many(series, errors="mark").to_pandas(token=False))  # type: ignore[attr-defined]
    valid = accessor.is_valid()
    assert valid.dtype == bool and valid.index.equals(series.index) and valid.name == "token"
    assert valid.tolist() == expected(notation, list(series))
    reason = accessor.reason()
    assert reason.dtype == fields["reason"].dtype
    assert reason.astype(object).where(reason.notna(), None).tolist() == (
        fields["reason"].astype(object).where(fields["reason"].notna(), None).tolist()
    )
    with pytest.raises(ParseError) as caught:
        accessor.parse()
    assert caught.value.label == series.index[caught.value.index]


def test_pandas_index_accessor() -> None:
    index = pd.Index(["K^", "x1"])
    assert index.epin.is_valid().tolist() == [True, False]
    assert index.epin.parse(errors="mark").index.equals(index)


@pytest.mark.parametrize(("notation", "name"), [(Epin, "epin"), (Pin, "pin")])
def test_polars_expressions_eager_lazy_and_streaming(notation: type, name: str) -> None:
    frame = pl.DataFrame({"square": [f"s{i}" for i in range(len(TOKENS))], "token": TOKENS})

    def namespace(expr: pl.Expr) -> object:
        return getattr(expr, name)

    columns = [
        namespace(pl.col("token")).parse(errors="mark").alias("piece"),  # type: ignore[attr-defined]
        namespace(pl.col("token")).is_valid().alias("ok"),  # type: ignore[attr-defined]
        namespace(pl.col("token")).reason().alias("why"),  # type: ignore[attr-defined]
    ]
    eager = frame.with_columns(columns)
    plan = frame.lazy().with_columns(columns)
    assert plan.collect_schema() == eager.schema  # known before running
    assert plan.collect(engine="streaming").equals(eager)
    assert eager["ok"].to_list() == expected(notation, TOKENS)
    unnested = eager.unnest("piece", separator="_")
    want = notation.parse_many(TOKENS, errors="mark").to_polars()  # type: ignore[attr-defined]
    assert unnested["piece_reason"].to_list() == want["reason"].to_list()
    assert unnested["why"].cast(pl.String).to_list() == want["reason"].cast(pl.String).to_list()
    assert unnested["square"].to_list() == frame["square"].to_list()


def test_polars_series_namespace_and_errors() -> None:
    series = pl.Series("token", ["K^", "x1", None])
    assert series.epin.parse(errors="mark")["reason"].to_list() == [
        None,
        "OTHER_CHARACTER",
        "MISSING",
    ]
    assert series.epin.is_valid().to_list() == [True, False, False]
    with pytest.raises(ParseError, match="'x1'"):
        pl.DataFrame({"token": series}).select(pl.col("token").epin.parse())
