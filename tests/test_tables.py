"""Results that go back into the user's table: the input's index kept, every pandas
container read, the same dtypes whatever the data, reasons as a column, errors that
round-trip.  Through the facade, on whichever core the suite runs."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import optional

from sashite_epin import CODE_NONE, Epin, ParseError, Pin, Reason
from sashite_epin._corpora import with_invalid
from sashite_epin._marks import reason_names

# Libraries without a free-threaded wheel: their tests skip where missing.
pl: Any = optional("polars")


@pytest.fixture
def frame() -> pd.DataFrame:
    tokens = with_invalid(600, seed=3)
    tokens[7] = None  # type: ignore[call-overload]
    return pd.DataFrame({"game": np.arange(600) % 17, "token": pd.Series(tokens, dtype=object)})


def shuffled(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["game"] % 3 != 0].sample(frac=1.0, random_state=5)


def test_a_series_result_is_on_the_series_index(frame: pd.DataFrame) -> None:
    part = shuffled(frame)
    fields = Epin.parse_many(part["token"], errors="mark").to_pandas()
    assert fields.index.equals(part.index)
    joined = pd.concat([part, fields.add_prefix("p_")], axis=1)
    assert len(joined) == len(part)
    assert (joined["token"].fillna("?") == joined["p_token"].fillna("?")).all()
    assigned = part.assign(side=fields["side"])
    expected = [None if t is None else Epin.safe_parse(t) for t in part["token"]]
    assert [None if pd.isna(s) else s for s in assigned["side"]] == [
        None if e is None else str(e.pin.side) for e in expected
    ]
    assert part.join(fields[["valid"]])["valid"].tolist() == [e is not None for e in expected]


def test_index_false_and_an_explicit_index(frame: pd.DataFrame) -> None:
    part = shuffled(frame)
    result = Epin.parse_many(part["token"], errors="mark")
    assert isinstance(result.to_pandas(index=False).index, pd.RangeIndex)
    other = pd.Index([f"r{i}" for i in range(len(part))])
    assert result.to_pandas(index=other).index.equals(other)
    assert Epin.parse_many(list(part["token"]), errors="mark").labels is None
    with pytest.raises(ValueError):
        result.to_pandas(index=other[:3])


def test_a_multiindex_goes_through() -> None:
    index = pd.MultiIndex.from_tuples([("g1", 1), ("g1", 2), ("g2", 1)], names=["game", "ply"])
    series = pd.Series(["K^", "zz", "+p'"], index=index)
    fields = Epin.parse_many(series, errors="mark").to_pandas()
    assert fields.index.equals(index)
    assert fields.loc[("g1", 2), "reason"] == "MORE_THAN_ONE_LETTER"
    with pytest.raises(ParseError) as caught:
        Epin.parse_many(series)
    assert (caught.value.index, caught.value.label) == (1, ("g1", 2))


def test_errors_name_the_position_and_the_label(frame: pd.DataFrame) -> None:
    part = shuffled(frame)
    result = Epin.parse_many(part["token"], errors="mark")
    errors = result.errors()
    assert errors
    for error in errors:
        text = part["token"].iloc[error.index]
        assert text == error.token or (pd.isna(text) and error.token is None)
        assert error.label == part.index[error.index]
        assert part.loc[error.label, "token"] == text or pd.isna(text)
    with pytest.raises(ParseError) as caught:
        Epin.parse_many(part["token"])
    first = errors[0]
    assert (caught.value.index, caught.value.label) == (first.index, first.label)
    assert f"(label {first.label!r})" in str(caught.value)


def test_labels_follow_the_entries(frame: pd.DataFrame) -> None:
    part = shuffled(frame)
    result = Epin.parse_many(part["token"], errors="mark")
    mask = result.valid_mask()
    assert result.valid().labels.equals(part.index[mask])
    assert result[mask].labels.equals(part.index[mask])
    assert result[5:9].labels.equals(part.index[5:9])
    assert result[[3, 1]].labels.equals(part.index[[3, 1]])
    assert (result + result).labels.equals(part.index.append(part.index))
    with pytest.raises(ValueError, match="do not concatenate"):  # no label to join on
        result + Epin.parse_many(["K"])
    valid = result.valid()
    order = np.argsort(np.asarray(valid.codes()), kind="stable")
    assert valid.sorted().labels.equals(valid.labels[order])
    again = pickle.loads(pickle.dumps(result))
    assert again.labels.equals(part.index) and again == result


def containers(tokens: list[str | None]) -> dict[str, object]:
    series = pd.Series(tokens, dtype="str")
    category = series.astype("category")
    return {
        "series": series,
        "values": series.values,
        "array": series.array,
        "index": pd.Index(series),
        "category series": category,
        "categorical": category.values,
        "object series": pd.Series(tokens, dtype=object),
        "object values": pd.Series(tokens, dtype=object).values,
        "python strings": series.astype("string[python]"),
        "python strings .array": series.astype("string[python]").array,
        "arrow strings": series.astype("string[pyarrow]").array,
        "large_string": pd.Series(
            pa.array(tokens, pa.large_string()), dtype=pd.ArrowDtype(pa.large_string())
        ).array,
        "dictionary": pa.array(tokens).dictionary_encode(),
        "StringDType": np.array(tokens, dtype=np.dtypes.StringDType(na_object=None)),
    }


@pytest.mark.parametrize("name", list(containers(["K"])))
def test_every_pandas_container_gives_the_same_result(name: str, frame: pd.DataFrame) -> None:
    tokens = list(frame["token"])
    want = Epin.parse_many(tokens, errors="mark")
    got = Epin.parse_many(containers(tokens)[name], errors="mark")
    assert got == want and list(got.invalid) == list(want.invalid)
    assert [e.reason for e in got.errors()] == [e.reason for e in want.errors()]


def test_categories_that_are_not_text_are_a_type_error_naming_them() -> None:
    with pytest.raises(TypeError, match=r"has dtype category \(of int64\)"):
        Epin.parse_many(pd.Series([1, 2]).astype("category"))


def test_a_categorical_checks_its_errors_argument() -> None:
    with pytest.raises(ValueError, match="errors must be"):
        Epin.parse_many(pd.Series(["K"]).astype("category"), errors="bogus")


def test_a_memoryview_of_a_numpy_s_array_is_read() -> None:
    array = np.array(["K", "x1"], dtype="S2")
    result = Epin.parse_many(memoryview(array), errors="mark")
    assert list(result.codes()) == [Epin.parse("K").code, CODE_NONE]
    assert result.errors()[0].token == b"x1"


def test_an_index_is_its_own_labels() -> None:
    index = pd.Index(["K^", "x1"])
    assert Epin.parse_many(index, errors="mark").to_pandas().index.equals(index)


def test_an_all_missing_float_column_is_all_missing_entries() -> None:
    empty = pd.read_csv(__import__("io").StringIO("a,token\n1,\n2,\n"))["token"]
    assert empty.dtype == np.float64
    result = Epin.parse_many(empty, errors="mark")
    assert [e.reason.name for e in result.errors()] == ["MISSING", "MISSING"]
    with pytest.raises(ParseError, match="missing value"):
        Epin.parse_many(empty)
    with pytest.raises(TypeError):
        Epin.parse_many(pd.Series([1.5, np.nan]))


def test_a_one_column_frame_is_its_column_and_a_wider_one_is_refused() -> None:
    frame = pd.DataFrame({"token": ["K", "q"]}, index=[4, 2])
    assert Epin.parse_many(frame).labels.equals(frame.index)
    with pytest.raises(TypeError, match="one column"):
        Epin.parse_many(frame.assign(other=1))


@pytest.mark.parametrize("notation", [Epin, Pin], ids=["EPIN", "PIN"])
def test_the_dtypes_do_not_depend_on_the_data(notation: type) -> None:
    clean = notation.parse_many(["K", "q^"], errors="mark")  # type: ignore[attr-defined]
    dirty = notation.parse_many(["K", None, "x1"], errors="mark")  # type: ignore[attr-defined]
    empty = notation.parse_many([], errors="mark")  # type: ignore[attr-defined]
    frames = [r.to_pandas() for r in (clean, dirty, empty)]
    assert frames[0].dtypes.equals(frames[1].dtypes) and frames[0].dtypes.equals(frames[2].dtypes)
    dtypes = frames[0].dtypes.astype(str).to_dict()
    assert dtypes["terminal"] == "boolean" and dtypes["valid"] == "bool"
    assert dtypes["reason"] == dtypes["side"] == "category"
    assert ("derived" in dtypes) is (notation is Epin)
    assert pa.table(clean).schema == pa.table(dirty).schema == pa.schema(empty)
    assert pl.DataFrame(clean).schema == pl.DataFrame(dirty).schema == pl.DataFrame(empty).schema
    reasons = frames[1]["reason"].cat.categories.tolist()
    assert reasons == list(reason_names()) == [member.name for member in Reason]


def test_invalid_rows_keep_their_text_and_reason() -> None:
    entries = ["K^", "x1", None, "", "K\n", "\ud800", float("nan")]
    result = Epin.parse_many(entries, errors="mark")
    frame = result.to_pandas()
    assert [None if pd.isna(t) else t for t in frame["token"]] == [
        "K^",
        "x1",
        None,
        "",
        "K\n",
        "\\ud800",
        None,
    ]
    assert frame["valid"].tolist() == [True] + [False] * 6
    by_error = {e.index: e.reason.name for e in result.errors()}
    assert frame["reason"].tolist()[1:] == [by_error[i] for i in range(1, 7)]
    codes = result.reason_codes()
    assert codes.dtype == np.uint8 and codes[0] == 0
    assert [reason_names()[c - 1] for c in codes[1:]] == frame["reason"].tolist()[1:]
    assert result.valid_mask().tolist() == frame["valid"].tolist()


def test_bytes_input_keeps_its_text_escaped_where_not_utf8() -> None:
    result = Epin.parse_many(b"K x1 \xff\xfe \xc3\xa9 q", errors="mark")
    assert pa.table(result).column("token").to_pylist() == ["K", "x1", "\\xff\\xfe", "é", "q"]


def test_many_marked_texts_land_at_their_rows() -> None:
    tokens = with_invalid(5000, seed=11)
    result = Epin.parse_many(tokens, errors="mark")
    table = pa.table(result)
    table.validate(full=True)
    assert table.column("token").to_pylist() == tokens


def error_fields(error: ParseError) -> tuple[object, ...]:
    return (
        error.token,
        error.reason,
        error.notation,
        error.index,
        error.position,
        error.line,
        error.label,
        str(error),
    )


def test_a_parse_error_round_trips() -> None:
    errors = [
        *Epin.parse_many(
            pd.Series(["K", "x1", None], index=["a", "b", "c"]), errors="mark"
        ).errors(),
        *Epin.parse_many(b"K\nK''", errors="mark").errors(),
    ]
    with pytest.raises(ParseError) as caught:
        Pin.parse("K'")
    errors.append(caught.value)
    for error in errors:
        fields = error_fields(error)
        assert error_fields(type(error)(*error.args)) == fields
        assert error_fields(pickle.loads(pickle.dumps(error))) == fields
        assert error_fields(copy.copy(error)) == fields
        assert error_fields(copy.deepcopy(error)) == fields
    assert errors[0].label == "b" and errors[2].line == 2


def test_an_error_made_from_its_message_alone_keeps_it() -> None:
    error = ParseError("invalid EPIN token 'x1' at index 1: unexpected character")
    assert str(error) == error.token == error.reason
    assert isinstance(error, ValueError)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])  # fmt: skip
def test_integer_arrays_pick_entries_as_lists_do(dtype: str) -> None:
    result = Epin.parse_many(["K", None, "x1", "+p'", "q"], errors="mark")
    picks = [4, 0, 2, 2, 1, 3]
    if np.dtype(dtype).kind == "i":
        picks += [-1, -5]
    got = result[np.array(picks, dtype=dtype)]
    want = result[picks]
    assert got == want and list(got.invalid) == list(want.invalid)
    assert [(e.index, e.token, e.reason) for e in got.errors()] == [
        (e.index, e.token, e.reason) for e in want.errors()
    ]
    strided = np.array([[p, 0] for p in picks], dtype=dtype)[:, 0]
    assert result[strided] == want
    assert len(result[np.array([], dtype=dtype)]) == 0
    with pytest.raises(IndexError):
        result[np.array([0, 5], dtype=dtype)]
    if np.dtype(dtype).kind == "i":
        with pytest.raises(IndexError):
            result[np.array([-6], dtype=dtype)]
    else:  # the largest value, which a signed read would take for -1
        with pytest.raises(IndexError):
            result[np.array([np.iinfo(dtype).max], dtype=dtype)]


def test_a_big_endian_index_array_is_read_by_value() -> None:
    result = Epin.parse_many(["K", "q", "R"])
    assert result[np.array([2, 0], dtype=">i4")].tokens() == ["R", "K"]


def test_string_dtype_arrays_keep_what_u_arrays_would_drop() -> None:
    # numpy's own str_len and U casts ignore trailing NULs: the entries are read whole.
    kind = np.dtypes.StringDType()
    for entries in (["K", "+p'", "-q^'"], ["K", "K\0"], ["K", "+K^'X"], ["K\0\0", "q"], []):
        got = Epin.parse_many(np.array(entries, dtype=kind), errors="mark")
        want = Epin.parse_many(entries, errors="mark")
        assert got == want and [e.reason for e in got.errors()] == [e.reason for e in want.errors()]


@pytest.mark.parametrize("kind", [pa.binary(), pa.large_binary(), pa.binary_view()])
def test_arrow_binary_columns_are_read_as_bytes_tokens(kind: pa.DataType) -> None:
    entries = [b"K^", b"x1", None, b"+p'", b"\xff", b"\xc3\xa9"]
    column = pa.array(entries, kind)
    result = Epin.parse_many(column, errors="mark")
    text = Epin.parse_many(pa.array(entries, pa.binary()).cast(pa.string(), safe=False),
                           errors="mark")  # fmt: skip
    assert result == text
    assert [(e.index, e.token, e.reason) for e in result.errors()] == [
        (1, b"x1", text.errors()[0].reason),
        (2, None, text.errors()[1].reason),
        (4, b"\xff", text.errors()[2].reason),
        (5, b"\xc3\xa9", text.errors()[3].reason),
    ]
    assert Epin.parse_many(column.dictionary_encode(), errors="mark") == result
    with pytest.raises(ParseError) as caught:
        Epin.parse_many(column)
    assert caught.value.token == b"x1"
    assert pa.table(result).column("token").to_pylist()[4:] == ["\\xff", "é"]
