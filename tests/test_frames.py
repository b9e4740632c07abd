"""Results into frames: ``to_pandas()``, ``to_polars()`` and the accessors built from
the result's codes pin the frames the generic Arrow conversion gave (column names,
dtypes, values, index, reasons, null placement, categories and their order), on both
cores.  Each output is compared with two references: one built the slow obvious way,
entry by entry from the result's objects and errors, and the generic conversion itself
(``pa.table(result).to_pandas(...)``, ``pl.DataFrame(result)``), which is what these
methods did before they built their columns from the codes."""

from __future__ import annotations

import functools
import pickle
import signal
import subprocess
import sys
import time
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import CORES, optional

import sashite_epin.pandas  # noqa: F401 (registers the accessors)
from sashite_epin import Epin, ParseError, Pin, _core_py, _marks
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS, with_invalid
from sashite_epin._marks import reason_names

pl: Any = optional("polars")
optional("sashite_epin.polars")  # registers the namespaces where polars is installed

LETTERS = [chr(c) for c in range(65, 91)]
SIDES = ["first", "second"]
STATES = ["normal", "enhanced", "diminished"]
CATEGORICAL = ("abbr", "side", "state", "reason")


def mixed(count: int, seed: int) -> list[object]:
    """Valid tokens, near misses and missing values (None and NaN) mixed."""
    tokens: list[object] = list(with_invalid(count, seed=seed))
    for i in range(0, count, 7):
        tokens[i] = None if i % 2 else float("nan")
    return tokens


TOKENS = mixed(300, seed=21)


# -- the references -------------------------------------------------------------------
def expected_rows(result: Any) -> list[dict[str, object]]:
    """Each entry's fields as the export defines them, from the entry's object or its
    error (the slow obvious way: one Python step per entry)."""
    epin = result.notation == "EPIN"
    errors = dict(zip(result.invalid, result.errors(), strict=True))  # by entry
    rows = []
    for i in range(len(result)):
        entry = result[i]
        if entry is None:
            error = errors[i]
            text = _marks.export_text(error.token, error.reason.value)
            row: dict[str, object] = {
                "token": None if text is None else text.decode("utf-8"),
                "abbr": None,
                "side": None,
                "state": None,
                "terminal": None,
                "derived": None,
                "valid": False,
                "reason": error.reason.name,
            }
        else:
            pin = entry.pin if epin else entry
            row = {
                "token": str(entry),
                "abbr": pin.abbr,
                "side": str(pin.side),
                "state": str(pin.state),
                "terminal": pin.is_terminal,
                "derived": entry.is_derived if epin else None,
                "valid": True,
                "reason": None,
            }
        if not epin:
            del row["derived"]
        rows.append(row)
    if result.offsets is not None:
        for row, at, offset in zip(rows, result.rows, result.offsets, strict=True):
            row["row"], row["offset"] = at, offset
    return rows


def column(rows: list[dict[str, object]], name: str) -> list[object]:
    return [row[name] for row in rows]


def field_names(result: Any) -> list[str]:
    names = ["token", "abbr", "side", "state", "terminal", "derived", "valid", "reason"]
    if result.notation == "PIN":
        names.remove("derived")
    return names + (["row", "offset"] if result.offsets is not None else [])


def reference_pandas(result: Any, index: Any = None) -> pd.DataFrame:
    rows = expected_rows(result)
    words = {"abbr": LETTERS, "side": SIDES, "state": STATES, "reason": list(reason_names())}
    data: dict[str, object] = {}
    for name in field_names(result):
        values = column(rows, name)
        if name == "token":
            data[name] = pd.array(values, dtype="str")
        elif name in words:
            data[name] = pd.Categorical(values, categories=pd.Index(words[name], dtype="str"))
        elif name in ("terminal", "derived"):
            data[name] = pd.array(values, dtype="boolean")
        elif name == "valid":
            data[name] = np.array(values, dtype=bool)
        else:
            data[name] = np.array(values, dtype=np.int64)
    frame = pd.DataFrame(data)
    labels = result.labels if index is None else None if index is False else index
    return frame if labels is None else frame.set_axis(labels, axis=0)


def generic_pandas(result: Any, index: Any = None) -> pd.DataFrame:
    """What to_pandas() was: pyarrow's generic conversion of the export."""
    frame = pa.table(result).to_pandas(types_mapper={pa.bool_(): pd.BooleanDtype()}.get)
    frame["valid"] = frame["valid"].astype(bool)
    labels = result.labels if index is None else None if index is False else index
    return frame if labels is None else frame.set_axis(labels, axis=0)


def reference_polars(result: Any) -> Any:
    rows = expected_rows(result)
    kinds = {"token": pl.String, "terminal": pl.Boolean, "derived": pl.Boolean}
    kinds |= {"valid": pl.Boolean, "row": pl.Int64, "offset": pl.Int64}
    return pl.DataFrame(
        [
            pl.Series(name, column(rows, name), kinds.get(name, pl.Categorical))
            for name in field_names(result)
        ]
    )


def generic_polars(result: Any) -> Any:
    """What to_polars() was: polars' import of the export."""
    return pl.DataFrame(result)


def assert_same_pandas(frame: pd.DataFrame, want: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        frame, want, check_exact=True, check_index_type=True, check_column_type=True
    )
    assert list(frame.columns) == list(want.columns)
    assert frame.columns.dtype == want.columns.dtype
    assert frame.dtypes.equals(want.dtypes)
    assert frame.index.equals(want.index) and type(frame.index) is type(want.index)
    for name in frame.columns:
        got, wanted = frame[name], want[name]
        assert type(got.array) is type(wanted.array), name
        assert got.isna().tolist() == wanted.isna().tolist(), name
        if isinstance(got.dtype, pd.CategoricalDtype):
            assert got.cat.categories.equals(wanted.cat.categories), name
            assert got.cat.categories.dtype == wanted.cat.categories.dtype, name
            assert got.cat.codes.dtype == wanted.cat.codes.dtype, name
            assert got.cat.codes.tolist() == wanted.cat.codes.tolist(), name
        if name == "token":
            assert got.array._pa_array.type == wanted.array._pa_array.type  # type: ignore[attr-defined]


def check_pandas(result: Any, index: Any = None) -> pd.DataFrame:
    frame = result.to_pandas() if index is None else result.to_pandas(index=index)
    assert_same_pandas(frame, reference_pandas(result, index))
    assert_same_pandas(frame, generic_pandas(result, index))
    return frame


def assert_same_polars(frame: Any, want: Any) -> None:
    assert frame.schema == want.schema
    assert frame.columns == want.columns
    assert frame.equals(want, null_equal=True)
    for name in frame.columns:
        assert frame[name].is_null().to_list() == want[name].is_null().to_list(), name
        assert frame[name].cast(pl.String).to_list() == want[name].cast(pl.String).to_list()


def check_polars(result: Any) -> Any:
    pl.DataFrame  # noqa: B018 - skips the test where polars is not installed
    frame = result.to_polars()
    assert_same_polars(frame, reference_polars(result))
    assert_same_polars(frame, generic_polars(result))
    return frame


# -- the results ----------------------------------------------------------------------
_AROUND_12 = ["K" * 11 + "^", "K" * 12 + "^", "é" * 6, "é" * 6 + "x", "x" * 40, None, "", "+"]
LONG_TEXTS = [_AROUND_12[(k // 2) % 8] if k % 2 else EPIN_TOKENS[k % 624] for k in range(70_003)]


def results(core: ModuleType) -> dict[str, Any]:
    """Results of every shape from one core: valid, invalid and missing entries, bytes,
    PIN, empty, selections, concatenations, tokenize_many's."""
    marked = core.parse_many(TOKENS, True, "mark")
    clean = core.parse_many([t for t in TOKENS if isinstance(t, str) and Epin.is_valid(t)], True)
    texts = ["K^/8/+p", None, "K^^", "", "q'", "+P/x", None, "K''/b", "8"]
    return {
        "marked": marked,
        "clean": clean,
        "pin": core.parse_many(TOKENS, False, "mark"),
        "every token": core.parse_many(EPIN_TOKENS[::-1], True, "mark"),
        "every pin token": core.parse_many(PIN_TOKENS, False),
        "all invalid": core.parse_many(["x1", None, "K''", "", "K\n"], True, "mark"),
        "all missing": core.parse_many([None, None], True, "mark"),
        "bytes": core.parse_many(b"K x1 \xff\xfe \xc3\xa9 q -p^'", True, "mark"),
        # marked texts on each side of a string view's 12 inline bytes, every other
        # entry marked, past a 64-entry bitmap word and 70,000 entries
        "long texts": core.parse_many(LONG_TEXTS, True, "mark"),
        "empty": core.parse_many([], True, "mark"),
        "empty pin": core.parse_many([], False, "mark"),
        "mask": marked[np.arange(len(marked)) % 3 != 1],
        "slice": marked[5:200:4],
        "gather": marked[np.array([9, 0, 7, 7, 2, -1], dtype=np.int64)],
        "list take": marked[[3, 1, 4, 1, 5]],
        "valid()": marked.valid(),
        "sorted()": clean.sorted(),
        "concatenated": marked + clean,
        "pickled": pickle.loads(pickle.dumps(marked)),
        "from codes": core.from_codes(marked.codes(), True),
        "tokenize_many": core.tokenize_many(texts, True, "mark"),
        "tokenize_many pin": core.tokenize_many(texts[:2] + texts[4:6], False, "mark"),
        "tokenize_many empty": core.tokenize_many([], True, "mark"),
    }


NAMES = list(results(_core_py))


@pytest.mark.parametrize("name", NAMES)
def test_to_pandas_is_the_reference(core: ModuleType, name: str) -> None:
    check_pandas(results(core)[name])


@pytest.mark.parametrize("name", NAMES)
def test_to_polars_is_the_reference(core: ModuleType, name: str) -> None:
    check_polars(results(core)[name])


@pytest.mark.parametrize("name", NAMES)
def test_to_arrow_is_pyarrows_reading(core: ModuleType, name: str) -> None:
    """to_arrow() imports against a schema imported once per shape: each shape, in turn
    and again, gives what pyarrow's own reading of the capsules gives."""
    shapes = results(core)
    for result in (shapes[name], shapes["pin"], shapes["tokenize_many"], shapes[name]):
        table = result.to_arrow()
        want = pa.table(result)
        assert table.schema == want.schema
        assert table.equals(want)
        assert table.to_pylist() == want.to_pylist()
        table.validate(full=True)
    rows = shapes["tokenize_many"].by_row()
    assert rows.to_arrow().equals(pa.table(rows))


def test_to_arrow_without_the_pointer_reads_as_pyarrow_does(
    core: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the capsule's pointer cannot be had (no ctypes.pythonapi), pyarrow reads the
    capsules itself, with the same table."""
    from sashite_epin import _frames

    def unavailable(capsule: object) -> int:
        raise AttributeError("pythonapi")

    monkeypatch.setattr(_frames, "_address", unavailable)
    result = results(core)["marked"]
    assert result.to_arrow().equals(pa.table(result))
    assert len(result.to_arrow()) == len(result)


def labelled(core: ModuleType) -> dict[str, Any]:
    """Results that carry labels (set as the facade sets them)."""
    index = pd.Index([f"r{i}" for i in range(len(TOKENS))], name="square")
    multi = pd.MultiIndex.from_arrays(
        [np.arange(len(TOKENS)) // 10, np.arange(len(TOKENS)) % 10], names=["game", "ply"]
    )
    by_string = core.set_labels(core.parse_many(TOKENS, True, "mark"), index)
    by_multi = core.set_labels(core.parse_many(TOKENS, False, "mark"), multi)
    shuffled = pd.Series(TOKENS, index=np.arange(len(TOKENS)) * 3).sample(frac=1.0, random_state=4)
    texts = pd.Series(["K^/8/+p", None, "K^^", "q'"], index=[40, 30, 20, 10])
    placed = core.tokenize_many(list(texts), True, "mark")
    rows = np.asarray(placed.rows, dtype=np.intp)
    placed = core.set_labels(placed, texts.index.take(rows), texts.index)
    return {
        "string labels": by_string,
        "multiindex": by_multi,
        "selected": by_string[np.arange(len(TOKENS)) % 4 == 0],
        "valid()": by_string.valid(),
        "concatenated": by_string + by_string[:10],
        "shuffled": core.set_labels(core.parse_many(list(shuffled), True, "mark"), shuffled.index),
        "tokenize_many": placed,
        "empty": core.set_labels(core.parse_many([], True, "mark"), pd.Index([], dtype="str")),
    }


@pytest.mark.parametrize(
    "name",
    [
        "string labels",
        "multiindex",
        "selected",
        "valid()",
        "concatenated",
        "shuffled",
        "tokenize_many",
        "empty",
    ],
)
def test_to_pandas_keeps_the_labels(core: ModuleType, name: str) -> None:
    result = labelled(core)[name]
    frame = check_pandas(result)
    assert frame.index.equals(result.labels)
    check_pandas(result, index=False)
    check_pandas(result, index=[f"x{i}" for i in range(len(result))])
    check_pandas(result, index=pd.RangeIndex(5, 5 + 2 * len(result), 2))
    with pytest.raises(ValueError):
        result.to_pandas(index=list(range(len(result) + 1)))


def test_the_facade_keeps_a_series_index() -> None:
    series = pd.Series(TOKENS, index=[f"s{i}" for i in range(len(TOKENS))], dtype=object)
    for values in (series, series.astype("str"), series.astype("category"), series.array):
        check_pandas(Epin.parse_many(values, errors="mark"))
        check_polars(Epin.parse_many(values, errors="mark"))


def test_the_frames_are_their_own_memory() -> None:
    """Writing into a frame changes neither the result nor another frame of it."""
    result = Epin.parse_many(TOKENS, errors="mark")
    frame = result.to_pandas()
    again = result.to_pandas()
    first_valid = int(np.flatnonzero(result.valid_mask())[0])
    frame.loc[first_valid, "terminal"] = pd.NA
    frame.loc[first_valid, "derived"] = not frame.loc[first_valid, "derived"]
    frame.loc[0, "valid"] = not frame.loc[0, "valid"]
    frame.loc[0, "side"] = "second"
    assert_same_pandas(again, reference_pandas(result))
    assert_same_pandas(result.to_pandas(), reference_pandas(result))
    assert frame.loc[first_valid, "terminal"] is pd.NA
    assert frame.loc[first_valid, "derived"] is not pd.NA  # the masks are not shared
    placed = Epin.tokenize_many(["K^/q", "+P"], errors="mark")
    flat = placed.to_pandas()
    flat.loc[0, "offset"] = 99
    flat.loc[1, "row"] = 7
    assert_same_pandas(placed.to_pandas(), reference_pandas(placed))


def test_a_large_result_is_the_reference() -> None:
    """Past one piece of the compiled core (its loops run a piece at a time) and with
    every token and many marked entries."""
    tokens = mixed(40_000, seed=5) + list(EPIN_TOKENS) * 3
    result = Epin.parse_many(tokens, errors="mark")
    check_pandas(result)
    check_polars(result)
    check_pandas(result[::-1])


# -- polars categories: registered in the order the generic import registered them ----
ORDER_PROGRAM = """
import json, sys
import polars as pl
from sashite_epin import Epin
tokens = json.loads(sys.argv[2])
result = Epin.parse_many(tokens, errors="mark")
frame = pl.DataFrame(result) if sys.argv[1] == "generic" else result.to_polars()
columns = ["abbr", "side", "state", "reason"]
print(json.dumps({
    "physical": [frame[c].to_physical().to_list() for c in columns],
    "categories": frame["abbr"].dtype.categories.to_series().to_list()
    if hasattr(frame["abbr"].dtype, "categories") else None,
}))
"""


@pytest.mark.parametrize(
    "tokens",
    [
        ["q", "K", "x1", None, "-p^'", "K+", "Z", "K''"],
        ["x1", None, "K"],
        ["K"] * 5,
        ["K+", "x1", "K+", None],
        [],
    ],
)
def test_polars_categories_are_registered_in_the_same_order(tokens: list[object]) -> None:
    """Each categorical's physical values in a fresh process: the categories are made
    in the order the generic import made them (each column's words in the order they
    first appear, column by column)."""
    import json

    pl.Series  # noqa: B018 (skips where polars is not installed)
    seen = {}
    for how in ("generic", "ours"):
        done = subprocess.run(
            [sys.executable, "-c", ORDER_PROGRAM, how, json.dumps(tokens)],
            capture_output=True,
            text=True,
            check=True,
        )
        seen[how] = json.loads(done.stdout)
    assert seen["ours"] == seen["generic"]


# -- the accessors ----------------------------------------------------------------------
def reasons_of(result: Any) -> list[object]:
    return column(expected_rows(result), "reason")


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
@pytest.mark.parametrize("kind", ["str", "object", "category"])
def test_pandas_accessor_outputs(notation: Any, kind: str) -> None:
    series = pd.Series(TOKENS, index=np.arange(len(TOKENS))[::-1] * 2, name="token", dtype=object)
    values = series.astype(kind) if kind != "object" else series
    accessor = values.epin if notation is Epin else values.pin
    result = notation.parse_many(series, errors="mark")
    assert_same_pandas(accessor.parse(errors="mark"), accessor_pandas(result))
    valid = accessor.is_valid()
    pd.testing.assert_series_equal(
        valid, pd.Series(result.valid_mask(), index=series.index, name="token")
    )
    assert valid.tolist() == column(expected_rows(result), "valid")
    reason = accessor.reason()
    want = pd.Series(
        pd.Categorical(reasons_of(result), categories=pd.Index(reason_names(), dtype="str")),
        index=series.index,
        name="token",
    )
    pd.testing.assert_series_equal(reason, want, check_exact=True)
    assert reason.cat.categories.dtype == want.cat.categories.dtype
    with pytest.raises(ParseError) as caught:
        accessor.parse()
    with pytest.raises(ParseError) as plain:
        notation.parse_many(values)
    assert error_fields(caught.value) == error_fields(plain.value)


def accessor_pandas(result: Any) -> pd.DataFrame:
    """What the pandas accessors' parse() gives: the frame without the token column
    (the input holds it)."""
    return reference_pandas(result).drop(columns="token")


def accessor_polars(result: Any) -> Any:
    """What the polars namespaces' parse() gives: the frame without the token column,
    its reason of reason()'s dtype (the Enum of the names)."""
    frame = reference_polars(result).drop("token")
    return frame.with_columns(pl.col("reason").cast(pl.Enum(reason_names())))


def error_fields(error: ParseError) -> tuple[object, ...]:
    return (error.token, error.reason, error.notation, error.index, error.position,
            error.line, error.label, str(error))  # fmt: skip


def polars_inputs(tokens: list[object]) -> dict[str, Any]:
    """The same column as String, Categorical and Enum (NaN is a missing value)."""
    values = [t if isinstance(t, str) else None for t in tokens]
    string = pl.Series("token", values, pl.String)
    words = sorted({v for v in values if v is not None})
    return {
        "String": string,
        "Categorical": string.cast(pl.Categorical),
        "Enum": string.cast(pl.Enum(words)),
        # reversed, with categories no row takes (valid and invalid ones)
        "Enum, categories unused": string.cast(pl.Enum(["zz", *words[::-1], "K^'", "q"]))
        if "K^'" not in words and "q" not in words
        else string.cast(pl.Enum(["zz", *words[::-1]])),
    }


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
@pytest.mark.parametrize("kind", ["String", "Categorical", "Enum", "Enum, categories unused"])
def test_polars_series_namespace_outputs(notation: Any, kind: str) -> None:
    series = polars_inputs(TOKENS)[kind]
    values = [t if isinstance(t, str) else None for t in TOKENS]
    result = notation.parse_many(values, errors="mark")
    space = series.epin if notation is Epin else series.pin
    assert_same_polars(space.parse(errors="mark"), accessor_polars(result))
    valid = space.is_valid()
    assert valid.name == "token" and valid.dtype == pl.Boolean
    assert valid.to_list() == column(expected_rows(result), "valid")
    reason = space.reason()
    want = pl.Series("token", reasons_of(result), pl.Enum(reason_names()))
    assert reason.dtype == want.dtype and reason.name == "token"
    assert reason.equals(want, null_equal=True)
    with pytest.raises(ParseError) as caught:
        space.parse()
    with pytest.raises(ParseError) as plain:
        notation.parse_many(values)
    assert error_fields(caught.value) == error_fields(plain.value)


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
@pytest.mark.parametrize("kind", ["String", "Categorical", "Enum"])
def test_polars_expressions_outputs(notation: Any, kind: str) -> None:
    series = polars_inputs(TOKENS)[kind]
    values = [t if isinstance(t, str) else None for t in TOKENS]
    result = notation.parse_many(values, errors="mark")
    frame = pl.DataFrame({"n": np.arange(len(series)), "token": series})
    name = "epin" if notation is Epin else "pin"
    columns = [
        getattr(pl.col("token"), name).parse(errors="mark").alias("piece"),
        getattr(pl.col("token"), name).is_valid().alias("ok"),
        getattr(pl.col("token"), name).reason().alias("why"),
    ]
    eager = frame.with_columns(columns)
    plan = frame.lazy().with_columns(columns)
    assert plan.collect_schema() == eager.schema
    assert plan.collect(engine="streaming").equals(eager, null_equal=True)
    want = accessor_polars(result).to_struct("piece")
    assert eager["piece"].dtype == want.dtype
    assert eager["piece"].equals(want, null_equal=True)
    assert eager["ok"].to_list() == column(expected_rows(result), "valid")
    assert eager["why"].equals(
        pl.Series("why", reasons_of(result), pl.Enum(reason_names())), null_equal=True
    )


@pytest.mark.parametrize("kind", ["String", "Categorical", "Enum"])
def test_polars_empty_and_all_missing_columns(kind: str) -> None:
    for tokens in ([], [None, None], ["K"], ["x1"]):
        series = polars_inputs(tokens)[kind] if tokens != [] else polars_inputs([])[kind]
        result = Epin.parse_many([t for t in tokens], errors="mark")
        assert_same_polars(series.epin.parse(errors="mark"), accessor_polars(result))
        assert series.epin.is_valid().to_list() == column(expected_rows(result), "valid")
        assert series.epin.reason().to_list() == reasons_of(result)


def test_polars_enum_of_256_categories_with_missing_rows() -> None:
    """The missing rows' position, after the categories, is past a byte's codes."""
    words = [*EPIN_TOKENS[:250], "x1", "K''", "", "K ", "zz", "++K"]
    assert len(words) == 256
    values = [words[i % 256] if i % 5 else None for i in range(600)]
    series = pl.Series("token", values, pl.Enum(words))
    result = Epin.parse_many(values, errors="mark")
    assert_same_polars(series.epin.parse(errors="mark"), accessor_polars(result))
    assert series.epin.is_valid().to_list() == column(expected_rows(result), "valid")
    assert series.epin.reason().to_list() == reasons_of(result)


def test_polars_categories_outnumbering_the_rows_read_as_strings() -> None:
    """polars keeps one set of categories for every Categorical column: a column with
    fewer rows than that set is read as its strings, with the same results."""
    many = pl.Series("other", [f"w{i}" for i in range(5000)], pl.Categorical)
    series = pl.Series("token", ["K", "x1", None, "q^"], pl.Categorical)
    result = Epin.parse_many(["K", "x1", None, "q^"], errors="mark")
    assert_same_polars(series.epin.parse(errors="mark"), accessor_polars(result))
    assert series.epin.reason().to_list() == reasons_of(result)
    del many


# -- the accessors' short paths: the same frames as the rows' own parse ----------------
# Texts of every kind a String column's own token column must give back as they are:
# every token, near misses, non-ASCII, texts longer than a view holds inline (12 bytes).
WIDE = [*EPIN_TOKENS, *PIN_TOKENS, "x1", "", "K+", "\u212a", "é^", "+K^'X" * 5, "K" * 40, None]


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
def test_polars_string_column_is_its_own_token_column(notation: Any) -> None:
    name = "epin" if notation is Epin else "pin"
    for values in (WIDE, WIDE[::-1] * 3, [None, None], ["K"], []):
        series = pl.Series("token", values, pl.String)
        result = notation.parse_many(values, errors="mark")
        assert_same_polars(getattr(series, name).parse(errors="mark"), accessor_polars(result))
        frame = getattr(series, name).parse(errors="mark", token=True)
        enum = pl.col("reason").cast(pl.Enum(reason_names()))
        assert_same_polars(frame, reference_polars(result).with_columns(enum))
        assert frame.equals(generic_polars(result).with_columns(enum), null_equal=True)
        expression = getattr(pl.col("token"), name).parse(errors="mark", token=True)
        struct = series.to_frame().select(expression)["token"]
        assert frame.to_struct("token").equals(struct, null_equal=True)


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
@pytest.mark.parametrize("kind", ["Categorical", "Enum, categories unused"])
def test_polars_categories_unused_or_invalid_under_raise(notation: Any, kind: str) -> None:
    """A category no row takes is never an error; a row's invalid one raises as the
    rows' own parse does."""
    values = [t for t in WIDE if t is not None and notation.is_valid(t)][:50]
    series = polars_inputs(values)[kind]
    if kind == "Categorical":  # an invalid word some other Categorical column holds
        other = pl.Series("other", ["x1", "K+"] * 40, pl.Categorical)
    space = series.epin if notation is Epin else series.pin
    want = accessor_polars(notation.parse_many(values, errors="mark"))
    assert_same_polars(space.parse(), want)
    assert_same_polars(space.parse(errors="mark"), want)
    bad = polars_inputs([*values, "x1"])[kind]
    with pytest.raises(ParseError) as caught:
        (bad.epin if notation is Epin else bad.pin).parse()
    with pytest.raises(ParseError) as plain:
        notation.parse_many([*values, "x1"])
    assert error_fields(caught.value) == error_fields(plain.value)
    with pytest.raises(ValueError, match="errors must be"):
        space.parse(errors="ignore")
    if kind == "Categorical":
        del other


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
@pytest.mark.parametrize("kind", ["Categorical", "Enum"])
def test_polars_valid_categories_with_missing_rows(notation: Any, kind: str) -> None:
    """Every category valid: the rows marked are the missing ones, few or many."""
    for values in (["K", None, "q"] * 10, ["K", "q"] * 50 + [None], [None] * 4):
        series = polars_inputs(values)[kind]
        space = series.epin if notation is Epin else series.pin
        want = accessor_polars(notation.parse_many(values, errors="mark"))
        assert_same_polars(space.parse(errors="mark"), want)


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
def test_pandas_category_series_by_its_categories(notation: Any) -> None:
    """Unused categories (invalid ones too), missing rows, a reordered index, empty: the
    frame is the rows' own parse; an invalid row raises as that parse does."""
    values = [t if i % 9 else None for i, t in enumerate(WIDE * 2)]
    index = pd.Index(np.arange(len(values))[::-1] * 3)
    kinds = {
        "mixed": pd.Series(values, index=index, dtype="str").astype("category"),
        "unused": pd.Series(
            pd.Categorical(["K", "q", "K"], categories=["x1", "q", "K", "K''", "é", "q^"]),
            index=["a", "b", "c"],
            name="token",
        ),
        "empty": pd.Series([], dtype="str").astype("category"),
        # every category valid, a third of the rows missing: taken by the codes
        "missing rows": pd.Series(["K", None, "q"] * 10, dtype="str").astype("category"),
        # one row in 100 marked: read as rows (the frame taken by codes costs more)
        "few marked": pd.Series(["K", "q"] * 50 + ["x1"], dtype="str").astype("category"),
        # more than 256 categories (int16 codes), each repeated, some never taken
        "many categories": pd.Series(
            pd.Categorical(
                [*WIDE[3:], *WIDE[::-2]] * 40,
                categories=[*dict.fromkeys(w for w in WIDE if w is not None), "zz"],
            ),
            name="piece",
        ),
    }
    for name, series in kinds.items():
        accessor = series.epin if notation is Epin else series.pin
        plain = notation.parse_many(series.astype(object), errors="mark")
        assert_same_pandas(accessor.parse(errors="mark"), accessor_pandas(plain))
        rows = series.astype(object)
        by_rows = rows.epin if notation is Epin else rows.pin
        pd.testing.assert_series_equal(accessor.is_valid(), by_rows.is_valid())
        pd.testing.assert_series_equal(accessor.reason(), by_rows.reason())
        if name in ("unused", "empty"):
            assert_same_pandas(accessor.parse(), accessor_pandas(plain))
    with pytest.raises(ParseError) as caught:
        (kinds["mixed"].epin if notation is Epin else kinds["mixed"].pin).parse()
    with pytest.raises(ParseError) as expected:
        notation.parse_many(kinds["mixed"])
    assert error_fields(caught.value) == error_fields(expected.value)


def test_pandas_category_of_other_objects_fails_as_the_rows_do() -> None:
    """Categories that are not text: the rows' own parse says why (TypeError)."""
    series = pd.Series(pd.Categorical([1, 2, 1]))
    with pytest.raises(TypeError) as caught:
        series.epin.parse(errors="mark")
    with pytest.raises(TypeError) as plain:
        Epin.parse_many(series, errors="mark")
    assert str(caught.value) == str(plain.value)


@pytest.mark.parametrize("tokens", [["K"] * 25_000 + ["x1", "K+", None, "q'"]])
def test_polars_categories_seen_late_are_registered_in_the_same_order(
    tokens: list[object],
) -> None:
    """Words first held past the first pieces looked at (and reasons no entry holds)."""
    test_polars_categories_are_registered_in_the_same_order(tokens)


def test_exports_outlive_their_results_and_share_nothing_they_free(core: ModuleType) -> None:
    """The dictionaries every export shares (the module's own words) and each export's
    own buffers: a table stays whole after its result, and many exports since, are gone;
    every table equals the reading pyarrow makes of the capsules itself."""
    import gc

    kept = []
    for name in NAMES:
        result = results(core)[name]
        kept.append((result.to_arrow(), pa.table(result).to_pylist()))
        del result
    for _ in range(3):
        for name in NAMES:
            results(core)[name].to_arrow()
    gc.collect()
    for table, rows in kept:
        table.validate(full=True)
        assert table.to_pylist() == rows


def test_to_arrow_without_pyarrow_says_what_it_needs(
    core: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyarrow blocked in sys.modules (None): to_arrow names the extra to install."""
    import sys

    result = results(core)["marked"]
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    needs = r"this needs pyarrow: pip install 'sashite-epin\[arrow\]'"
    with pytest.raises(ImportError, match=needs):
        result.to_arrow()


def past_internal_sizes_values(notation: Any) -> list[list[str | None]]:
    tokens = EPIN_TOKENS if notation is Epin else PIN_TOKENS
    few = [tokens[i % len(tokens)] if i % 97 else None for i in range(40_000)]
    many = [t if isinstance(t, str) else None for t in mixed(30_000, seed=5)]
    return [few, many, few[:3] * 5_000]


@functools.cache
def past_internal_sizes_references(notation: Any, at: int, cut: int) -> tuple[Any, ...]:
    """The rows of the test below's columns (the values at `at`, cut into the cut-th
    series) and what the rows' own parse gives for them: computed once per run, for
    every kind of column that holds them."""
    values = past_internal_sizes_values(notation)[at]
    rows = [values, values[1_234 : 1_234 + 20_000], values[len(values) :]][cut]
    result = notation.parse_many(rows, errors="mark")
    enum = pl.col("reason").cast(pl.Enum(reason_names()))
    return (
        rows,
        accessor_polars(result),
        reference_polars(result).with_columns(enum),
        pl.Series("token", reasons_of(result), pl.Enum(reason_names())),
        column(expected_rows(result), "valid"),
    )


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
@pytest.mark.parametrize("kind", ["String", "Categorical", "Enum", "Enum, categories unused"])
def test_polars_namespace_past_internal_sizes(notation: Any, kind: str) -> None:
    """Columns of many chunks, sliced, past a piece's size, few marked or many, every
    token's category or a few repeated: parse (with and without the token column),
    reason and is_valid are what the rows' own parse gives, each reason made an Enum
    from the reason numbers."""
    name = "epin" if notation is Epin else "pin"
    for at, values in enumerate(past_internal_sizes_values(notation)):
        whole = polars_inputs(values)[kind]
        pieces = [whole.slice(k, 7_001) for k in range(0, len(whole), 7_001)]
        chunked = pl.concat(pieces, rechunk=False)
        assert chunked.n_chunks() > 1
        for cut, series in enumerate(
            (chunked, chunked.slice(1_234, 20_000), chunked.slice(len(values)))
        ):
            rows, parsed, frame, want, valid = past_internal_sizes_references(notation, at, cut)
            assert series.cast(pl.String).to_list() == rows
            space = getattr(series, name)
            assert_same_polars(space.parse(errors="mark"), parsed)
            assert_same_polars(space.parse(errors="mark", token=True), frame)
            assert space.reason().equals(want, null_equal=True)
            assert space.is_valid().to_list() == valid


def test_polars_enum_from_reason_numbers() -> None:
    """Every reason number, missing (0) first, last, alone, none at all."""
    from sashite_epin import _frames

    dtype = pl.Enum(reason_names())
    top = len(reason_names())
    cases = [[0], [top], [0, top, 1, 0], list(range(top + 1)) * 3000, [0] * 5, []]
    for numbers in cases:
        array = np.array(numbers, np.uint8)
        got = _frames.polars_enum(pl, np, array, len(numbers), dtype)
        want = pl.Series([None, *reason_names()], dtype=dtype).gather(pl.Series(array))
        assert got.dtype == dtype and got.equals(want, null_equal=True)
    none = _frames.polars_enum(pl, np, None, 4, dtype)
    assert none.dtype == dtype and none.null_count() == 4


# Typos a column holds, each no token under either notation ("k'^": the markers in the
# wrong order).
TYPOS = ["K^^", "+", "KQ", "", "k'^", "--p", "Q''", "+K^'X" * 3, "\u212a"]


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
@pytest.mark.parametrize("kind", ["String", "Categorical"])
def test_polars_namespace_on_columns_of_typos(notation: Any, kind: str) -> None:
    """Every entry a typo, or half of them among tokens and missing values: in chunks
    of 1 entry, around the 4,096 the marking lanes read at a time and 8 the lanes take
    (the marks' table of typos kept across them), sliced; parse, reason and is_valid are
    what the rows' own parse gives."""
    import random

    rng = random.Random(3)
    tokens = EPIN_TOKENS if notation is Epin else PIN_TOKENS
    typos = [rng.choice(TYPOS) for _ in range(13_000)]
    half = [
        rng.choice(TYPOS) if roll < 0.5 else None if roll > 0.9 else rng.choice(tokens)
        for roll in (rng.random() for _ in range(13_000))
    ]
    name = "epin" if notation is Epin else "pin"
    sizes = [1, 4_095, 4_097, 7, 1, 4_096, 8, 9]
    for values in (typos, half):
        whole = polars_inputs(values)[kind]
        pieces, start = [], 0
        for size in sizes * 2:
            pieces.append(whole.slice(start, size))
            start += size
        chunked = pl.concat([*pieces, whole.slice(start)], rechunk=False)
        assert chunked.n_chunks() > len(sizes)
        for series in (whole, chunked, chunked.slice(4_095, 8_200), chunked.slice(3, 1)):
            rows = series.cast(pl.String).to_list()
            result = notation.parse_many(rows, errors="mark")
            space = getattr(series, name)
            assert_same_polars(space.parse(errors="mark"), accessor_polars(result))
            want = pl.Series("token", reasons_of(result), pl.Enum(reason_names()))
            assert space.reason().equals(want, null_equal=True)
            assert space.is_valid().to_list() == column(expected_rows(result), "valid")
            if series.len() and values is typos:
                assert not any(space.is_valid())


def test_polars_token_column_in_pieces_is_the_whole_one() -> None:
    """The compiled core writes to_polars()' token column (utf8_view, as polars holds
    it) a piece of entries at a time, signals checked between: every piece size gives
    the reference frame, marked texts long and short, missing and not UTF-8 alike."""
    compiled = [c for c in CORES if c.IMPLEMENTATION == "cython"]
    if not compiled:
        pytest.skip("no compiled core")
    core = compiled[0]
    shapes = [
        core.parse_many(LONG_TEXTS[:1000], True, "mark"),
        core.parse_many(b"K x1 \xff\xfe " + b"KKKKKKKKKKKKK\xff " * 40 + b"q", True, "mark"),
    ]
    for size in (4, 12, 400, 4000):  # 1, 3, 100 and 1,000 entries a piece
        was = core.use_piece_size(size)
        try:
            for result in shapes:
                check_polars(result)
        finally:
            core.use_piece_size(was)


@pytest.mark.parametrize("side", ["below", "at"])
def test_polars_views_written_beside_the_gathers(core: ModuleType, side: str) -> None:
    """From _VIEWS_BESIDE entries on, the token column's views are written on a thread of
    their own while polars gathers the categoricals: a result just below and one at that
    line give the reference frame, clean and marked, and so do eight threads asking one
    result for its frame at once."""
    from concurrent.futures import ThreadPoolExecutor

    from sashite_epin import _frames

    length = _frames._VIEWS_BESIDE - (side == "below")
    clean = core.parse_many([EPIN_TOKENS[k % 624] for k in range(length)], True)
    marked = core.parse_many((LONG_TEXTS * 2)[:length], True, "mark")
    for result in (clean, marked):
        check_polars(result)
    want = marked.to_polars()
    with ThreadPoolExecutor(4) as pool:
        frames = list(pool.map(lambda _: marked.to_polars(), range(8)))
    for frame in frames:
        assert_same_polars(frame, want)


def test_work_beside_hands_back_its_result_or_what_it_raised() -> None:
    """_beside's wait gives the work's result, or raises the very exception it raised
    (a MemoryError from the views' allocation reaches to_polars' caller)."""
    from sashite_epin import _frames

    beside = _frames._beside(lambda: [7])
    beside.start()
    assert beside() == [7]
    assert _frames._beside(lambda: [8])() == [8]  # never started: run in place
    error = MemoryError("no room for the views")

    def fail() -> None:
        raise error

    wait = _frames._beside(fail)
    wait.start()
    with pytest.raises(MemoryError) as raised:
        wait()
    assert raised.value is error


def test_work_beside_runs_in_place_where_no_thread_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process that can start no more threads (Thread.start's RuntimeError) still
    gets its frame: the views are written in place."""
    import _thread

    from sashite_epin import _frames

    def refuse(*_: object) -> int:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(_thread, "start_new_thread", refuse)
    beside = _frames._beside(lambda: "in place")
    beside.start()
    assert beside() == "in place"
    result = Epin.parse_many((LONG_TEXTS * 2)[: _frames._VIEWS_BESIDE], errors="mark")
    check_polars(result)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timer")
def test_a_signal_during_to_polars_reaches_the_caller_and_the_views_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A signal handler that raises (twice, 0.5 to 8 ms apart) while to_polars() runs,
    on a result whose views are written on a thread: each call gives the reference frame
    or raises the handler's exception, the views' work ends within moments of the call
    (a handler's exception can land between any two bytecodes, so the wait for it can be
    skipped; the thread only writes what it made, and holds the result), and the result
    gives its frame afterwards.

    One exception to "the handler's exception": where it lands inside polars' own call
    of Python code (its conversion of a dtype object, which calls str() on it), polars
    swallows it and raises its TypeError "'<unprintable str object>' is not a Polars
    data type" instead (docs/engines.md says so).  That TypeError is accepted only in a
    call the handler interrupted; no frame is ever wrong."""
    from sashite_epin import _frames

    pl.DataFrame  # noqa: B018 - skips the test where polars is not installed
    result = Epin.parse_many(LONG_TEXTS * 10, errors="mark")  # 700,030 entries
    took = time.perf_counter()
    want = result.to_polars()
    took = time.perf_counter() - took  # a whole call's work: what "moments" is measured by
    assert_same_polars(want, generic_polars(result))
    started, ended = [], []
    beside = _frames._beside

    def counted(work: Any) -> Any:
        def run() -> Any:
            started.append(1)
            try:
                return work()
            finally:
                ended.append(1)

        return beside(run)

    monkeypatch.setattr(_frames, "_beside", counted)

    class Alarm(Exception):
        pass

    fired = [0]

    def handler(*_: object) -> None:
        fired[0] += 1
        if fired[0] >= 2:
            signal.setitimer(signal.ITIMER_REAL, 0)
        raise Alarm

    frames = []
    was = signal.signal(signal.SIGALRM, handler)
    try:
        for interval in (0.0005, 0.001, 0.002, 0.004, 0.008) * 4:
            fired[0] = 0
            try:
                signal.setitimer(signal.ITIMER_REAL, interval, interval)
                try:
                    frames.append(result.to_polars())
                except Alarm:
                    pass
                except TypeError as error:  # polars' word for an exception it swallowed
                    assert fired[0] > 0 and "unprintable" in str(error), error
                while fired[0] < 2:
                    time.sleep(0.001)
            except Alarm:
                pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, was)
    # The work left when a call is interrupted is at most a whole call's: waited for
    # a hundred times as long as one took here.
    waited = time.perf_counter()
    while len(ended) < len(started) and time.perf_counter() - waited < 100 * took:
        time.sleep(0.001)
    assert len(ended) == len(started)
    # where the views are written on a thread at all: the compiled core's, two CPUs
    if _frames._cores() > 1 and hasattr(result, "_token_view_arrow"):
        assert started, "the views' thread never ran: the test tested nothing of it"
    for frame in frames:
        assert_same_polars(frame, want)
    assert_same_polars(result.to_polars(), want)


@pytest.mark.parametrize(
    ("core", "kernel"),
    [(c, k) for c in CORES if c.IMPLEMENTATION == "cython" for k in c.KERNELS],
    ids=str,
)
def test_polars_frame_fields_under_every_kernel(core: ModuleType, kernel: str) -> None:
    """The seven byte columns to_polars builds from (written 16 entries a store under
    the AVX2 and AVX-512 kernels, a byte at a time under the others and for the last
    entries) are the records' fields, the invalid entries' side and state their tables'
    missing word, under every kernel, at every length around a block."""
    before = core.use_bytes_kernel(kernel)
    try:
        for length in (0, 1, 15, 16, 17, 31, 33, 1000, 70_003):
            result = core.parse_many(LONG_TEXTS[:length], True, "mark")
            data, stride = result._frame_fields()
            columns = [np.frombuffer(data, np.uint8, length, k * stride) for k in range(7)]
            records = np.asarray(result)
            blank = (records["letter"] == 0).astype(np.uint8)
            want = [
                records["letter"],
                records["side"] + 2 * blank,
                records["state"] + 3 * blank,
                records["terminal"],
                records["derived"],
                1 - blank,
                blank,
            ]
            for k, (got, expected) in enumerate(zip(columns, want, strict=True)):
                assert got.tolist() == np.asarray(expected).tolist(), (kernel, length, k)
            if length in (17, 1000):
                check_polars(result)
    finally:
        core.use_bytes_kernel(before)
