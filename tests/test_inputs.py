"""What the bulk functions take and refuse, the same on both cores: tokenize_many reads
every container of texts parse_many reads (a pandas one with the labels parse_many
gives it), a column of anything but strings is a TypeError naming its kind, its dtype
and what is read, and every error names the function that was called."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import optional

from sashite_epin import Epin, ParseError, Pin
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


def as_list(texts: list[object]) -> list[object]:
    """The texts as tokenize_many's plainest input: every missing value None."""
    return [t if isinstance(t, str) else None for t in texts]


def same_tokens(got: object, want: object) -> None:
    """The same tokens, from the same rows at the same offsets, the same missing rows."""
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    for field in ("offsets", "row_offsets", "missing_rows"):
        assert list(getattr(got, field)) == list(getattr(want, field)), field


def duckdb_texts(texts: list[object]) -> object:
    quoted = ["NULL" if t is None else "'" + str(t).replace("'", "''") + "'" for t in texts]
    rows = ", ".join(f"({text})" for text in quoted)
    return duckdb.sql(f"select * from (values {rows}) as t(placement)")


def series(dtype: object, texts: list[object] = TEXTS) -> pd.Series:
    return pd.Series(texts, index=LABELS, dtype=dtype)


# Every container of texts parse_many reads, built from TEXTS (STRS where it cannot
# hold a missing value), with a non-default index where it has one.
CONTAINERS: dict[str, Callable[[], object]] = {
    "tuple": lambda: tuple(as_list(TEXTS)),
    "generator": lambda: (t for t in as_list(TEXTS)),
    "Series object": lambda: series(object),
    "Series str": lambda: series("str"),
    "Series str python": lambda: series(pd.StringDtype("python", math.nan)),
    "Series string python": lambda: series(pd.StringDtype("python")),
    "Series string pyarrow": lambda: series(pd.StringDtype("pyarrow")),
    "Series category": lambda: series("category"),
    "Series ArrowDtype": lambda: series(pd.ArrowDtype(pa.large_string()), as_list(TEXTS)),
    "Series default index": lambda: pd.Series(TEXTS, dtype="str"),
    "DataFrame": lambda: pd.DataFrame({"placement": TEXTS}, index=LABELS),
    "Index object": lambda: pd.Index(TEXTS, dtype=object),
    "Index str": lambda: pd.Index(TEXTS, dtype="str"),
    "Index string python": lambda: pd.Index(TEXTS, dtype=pd.StringDtype("python")),
    "CategoricalIndex": lambda: pd.CategoricalIndex(TEXTS),
    "ArrowStringArray": lambda: pd.Series(TEXTS, dtype="str").array,
    "Series.values": lambda: pd.Series(TEXTS, dtype=pd.StringDtype("pyarrow")).values,
    "StringArray": lambda: pd.Series(TEXTS, dtype=pd.StringDtype("python")).array,
    "NumpyExtensionArray": lambda: pd.Series(TEXTS, dtype=object).array,
    "Categorical": lambda: pd.Categorical(TEXTS),
    "ArrowExtensionArray": lambda: pd.array(as_list(TEXTS), dtype=pd.ArrowDtype(pa.string())),
    "empty Categorical": lambda: pd.Categorical([None, None], pd.Index([], dtype=object)),
    "numpy U": lambda: np.array(STRS),
    "numpy object": lambda: np.array(TEXTS, dtype=object),
    "numpy StringDType": lambda: np.array(as_list(TEXTS), np.dtypes.StringDType(na_object=None)),
    "pyarrow Array": lambda: pa.array(as_list(TEXTS)),
    "pyarrow string_view": lambda: pa.array(as_list(TEXTS), pa.string_view()),
    "pyarrow dictionary": lambda: pa.array(as_list(TEXTS)).dictionary_encode(),
    "pyarrow ChunkedArray": lambda: pa.chunked_array([as_list(TEXTS)[:3], as_list(TEXTS)[3:]]),
    "pyarrow Table": lambda: pa.table({"placement": as_list(TEXTS)}),
    "polars Series": lambda: polars.Series(as_list(TEXTS)),
    "polars Categorical": lambda: polars.Series(as_list(TEXTS), dtype=polars.Categorical),
    "polars DataFrame": lambda: polars.DataFrame({"placement": as_list(TEXTS)}),
    "DuckDB": lambda: duckdb_texts(as_list(TEXTS)),
}  # fmt: skip


def plain_texts(container: object) -> list[object]:
    """The texts a container holds, as a list (None where missing)."""
    if isinstance(container, np.ndarray) and container.dtype.kind == "U":
        return list(STRS)
    if isinstance(container, pd.Categorical) and not len(container.categories):
        return [None, None]
    return as_list(TEXTS)


@pytest.mark.parametrize("name", list(CONTAINERS))
@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
def test_tokenize_many_reads_every_container_parse_many_reads(
    name: str, notation: type[Epin] | type[Pin]
) -> None:
    """The tokens of the equivalent list, in both errors modes, each token labelled
    with its row's label, the label parse_many gives that row."""
    want = notation.tokenize_many(plain_texts(CONTAINERS[name]()), errors="mark")
    got = notation.tokenize_many(CONTAINERS[name](), errors="mark")
    same_tokens(got, want)
    rows = notation.parse_many(CONTAINERS[name](), errors="mark").labels
    if rows is None:
        assert got.labels is None and got.by_row().labels is None
    else:
        assert got.labels.equals(rows.take(np.asarray(got.rows)))
        assert got.by_row().labels.equals(rows)
    if not len(got.invalid):  # no refused row to raise for
        return
    with pytest.raises(ParseError) as info:
        notation.tokenize_many(CONTAINERS[name]())
    with pytest.raises(ParseError) as plain:
        notation.tokenize_many(plain_texts(CONTAINERS[name]()))
    assert (info.value.index, info.value.position) == (plain.value.index, plain.value.position)
    assert info.value.label == (None if rows is None else rows[info.value.index])


def test_a_column_of_nan_alone_is_missing_rows() -> None:
    """What read_csv makes of an empty column (floats, every one NaN): missing rows, as
    parse_many reads it, where any other float column is refused."""
    empty = pd.Series([math.nan, math.nan], index=[3, 4])
    result = Epin.tokenize_many(empty)
    assert len(result) == 0 and list(result.missing_rows) == [0, 1]
    assert list(Epin.parse_many(empty, errors="mark").invalid) == [0, 1]
    with pytest.raises(TypeError, match="dtype float64"):
        Epin.tokenize_many(pd.Series([1.5, math.nan]))


def test_a_categorical_reads_each_category_once_and_only_its_rows() -> None:
    """A category no row holds is never tokenized: a refused one raises nothing."""
    values = pd.Categorical(["K^/q", None, "K^/q"], categories=["K''", "K^/q"])
    same_tokens(Epin.tokenize_many(values), Epin.tokenize_many(["K^/q", None, "K^/q"]))
    mixed = pd.Series(["K", 1], dtype="category")  # object categories, one not a str
    with pytest.raises(TypeError, match="item 1 is int, not str"):
        Epin.tokenize_many(mixed)


def test_a_numpy_array_of_more_dimensions_is_refused() -> None:
    with pytest.raises(ValueError, match="tokenize_many needs a 1-dimensional array"):
        Epin.tokenize_many(np.array([["K", "q"]]))


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


def test_a_category_that_is_not_str_is_named_by_its_first_row() -> None:
    """Both readers name the first row whose category is not a str (parse_many named the
    category's position); a category no row takes is never read."""
    series = pd.Series(pd.Categorical(["K", "p", "K", "p", 3, 3]), index=list("abcdef"))
    for reader in (Epin.parse_many, Epin.tokenize_many):
        with pytest.raises(TypeError, match="item 4 is int, not str"):
            reader(series)
    unused = pd.Series(pd.Categorical(["K", "p"], categories=["K", "p", 3]))
    assert [str(t) for t in Epin.parse_many(unused)] == ["K", "p"]
    assert [str(t) for t in Epin.tokenize_many(unused)] == ["K", "p"]
