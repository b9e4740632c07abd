"""What the bulk functions refuse, the same on both cores: a column of anything but
strings is a TypeError naming its kind, its dtype and what is read, and every error
names the function that was called."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import optional

from sashite_epin import Epin
from sashite_epin._corpora import PLACEMENTS

polars = optional("polars")
duckdb = optional("duckdb")

# Placements, a text holding no token, one both notations refuse ("++K/8": a "+" that
# starts no token), missing rows of each kind.
TEXTS: list[object] = [
    PLACEMENTS[0], None, "K^/q", "", "8", math.nan, "++K/8", PLACEMENTS[3], pd.NA
]  # fmt: skip
STRS = [t for t in TEXTS if isinstance(t, str)]
LABELS = list("abcdefghi")


# -- columns of anything but strings -----------------------------------------------------

# (container, what the message calls it and its dtype, whether parse_many reads it)
NOT_STRINGS: dict[str, tuple[Callable[[], object], str, bool]] = {
    "pandas int": (lambda: pd.Series([1, 2]), "pandas Series has dtype int64", False),
    "pandas float": (lambda: pd.Series([1.5, 2.0]), "pandas Series has dtype float64", False),
    "pandas bool": (lambda: pd.Series([True, False]), "pandas Series has dtype bool", False),
    "pandas datetime": (
        lambda: pd.Series(pd.to_datetime(["2024-05-01"])),
        "pandas Series has dtype datetime64[",
        False,
    ),
    "pandas Int64": (lambda: pd.Series([1], dtype="Int64"), "pandas Series has dtype Int64", False),
    "pandas category of int": (
        lambda: pd.Series([1, 2], dtype="category"),
        "pandas Series has dtype category (of int64)",
        False,
    ),
    "pandas Arrow int": (
        lambda: pd.Series([1], dtype=pd.ArrowDtype(pa.int64())),
        "pandas Series has dtype int64[pyarrow]",
        False,
    ),
    "pandas Arrow binary": (
        lambda: pd.Series([b"K"], dtype=pd.ArrowDtype(pa.binary())),
        "pandas Series has dtype binary[pyarrow]",
        True,
    ),
    "pandas Index int": (lambda: pd.Index([1, 2]), "pandas Index has dtype int64", False),
    "pandas array int": (
        lambda: pd.Series([1, 2]).array,
        "pandas NumpyExtensionArray has dtype int64",
        False,
    ),
    "pandas frame int": (lambda: pd.DataFrame({"a": [1]}), "pandas Series has dtype int64", False),
    "numpy int": (lambda: np.array([1, 2]), "numpy array has dtype int64", False),
    "numpy float": (lambda: np.array([1.5]), "numpy array has dtype float64", False),
    "numpy bytes": (lambda: np.array([b"K"]), "numpy array has dtype |S1", True),
    "Arrow int": (lambda: pa.array([1, 2]), "pyarrow Int64Array has type int64", False),
    "Arrow binary": (lambda: pa.array([b"K"]), "pyarrow BinaryArray has type binary", True),
    "Arrow list": (lambda: pa.array([["K"]]), "pyarrow ListArray has type list<", False),
    "Arrow chunked int": (
        lambda: pa.chunked_array([[1]]),
        "pyarrow ChunkedArray has type int64",
        False,
    ),
    "Arrow table of int": (
        lambda: pa.table({"a": [1]}),
        "pyarrow Table's column has type int64",
        False,
    ),
    "polars Int64": (lambda: polars.Series([1, 2]), "polars Series has dtype Int64", False),
    "polars Binary": (lambda: polars.Series([b"K"]), "polars Series has dtype Binary", True),
    "DuckDB int": (lambda: duckdb.sql("select 1 as a"), "Arrow column has type int32", False),
    "DuckDB blob": (
        lambda: duckdb.sql("select 'K'::BLOB as a"),
        "Arrow column has type binary",
        True,
    ),
}


@pytest.mark.parametrize("name", list(NOT_STRINGS))
@pytest.mark.parametrize("function", ["parse_many", "tokenize_many"])
def test_a_column_of_anything_but_strings_is_a_type_error_naming_its_dtype(
    name: str, function: str
) -> None:
    """Named by the function called, the column's kind and dtype, then what that
    library's columns of strings are; parse_many reads bytes columns, tokenize_many
    (texts) does not."""
    make, described, bytes_column = NOT_STRINGS[name]
    read = getattr(Epin, function)
    if function == "parse_many" and bytes_column:
        assert len(read(make(), errors="mark")) == 1
        return
    with pytest.raises(TypeError) as info:
        read(make())
    message = str(info.value)
    assert message.startswith(f"{function} reads strings: this {described}"), message
    expected = message.partition("; expected ")[2]
    assert expected, message
    assert any(word in expected for word in ("binary", "bytes", "Binary")) == (
        function == "parse_many"
    ), message


class Exporter:
    """An Arrow column from a library the facade does not know: only the cores' own
    readers judge its type."""

    def __init__(self, data: object) -> None:
        self.data = data

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.data.__arrow_c_stream__()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "described"),
    [
        (pa.chunked_array([[1]]), "has type int64"),
        (pa.chunked_array([pa.array([1]).dictionary_encode()]), "has type dictionary of int64"),
        (pa.chunked_array([[b"K"]]), "has type binary"),
        (pa.chunked_array([pa.array([b"K"]).dictionary_encode()]), "dictionary of binary"),
        (pa.table({"a": [1]}), "has type int64"),
    ],
    ids=["int", "dictionary of int", "binary", "dictionary of binary", "table of int"],
)
def test_the_cores_name_the_function_called_for_an_arrow_column_they_refuse(
    core: ModuleType, data: object, described: str
) -> None:
    """The same words from both cores, with the name of the function called."""
    with pytest.raises(TypeError) as info:
        core.tokenize_many(Exporter(data), True, "raise")
    assert str(info.value).startswith("tokenize_many reads strings: this Arrow column ")
    assert described in str(info.value)
    if "binary" in described:
        assert len(core.parse_many(Exporter(data), True, "mark")) == 1
        return
    with pytest.raises(TypeError) as parsed:
        core.parse_many(Exporter(data), True, "raise")
    assert str(parsed.value).startswith("parse_many reads strings: this Arrow column ")
    assert described in str(parsed.value)


TWO_COLUMNS: dict[str, Callable[[], object]] = {
    "pyarrow table": lambda: pa.table({"a": ["K"], "b": ["q"]}),
    "exported table": lambda: Exporter(pa.table({"a": ["K"], "b": ["q"]})),
    "pandas frame": lambda: pd.DataFrame({"a": ["K"], "b": ["q"]}),
    "DuckDB": lambda: duckdb.sql("select 'K' as a, 'q' as b"),
}


@pytest.mark.parametrize("name", list(TWO_COLUMNS))
def test_each_function_names_itself_in_its_errors(name: str) -> None:
    for function in ("parse_many", "tokenize_many"):
        with pytest.raises(TypeError) as info:
            getattr(Epin, function)(TWO_COLUMNS[name]())
        assert str(info.value).startswith(f"{function} reads one column"), str(info.value)


def test_no_error_of_tokenize_many_names_parse_many() -> None:
    refused = [
        *(make for make, _, _ in NOT_STRINGS.values()),
        *TWO_COLUMNS.values(),
        lambda: Exporter(pa.chunked_array([[b"K"]])),
        lambda: 3,
        lambda: "K q",
        lambda: [b"K"],
    ]
    for make in refused:
        with pytest.raises(TypeError) as info:
            Epin.tokenize_many(make())
        assert "parse_many" not in str(info.value), str(info.value)
