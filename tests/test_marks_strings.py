"""numpy StringDType arrays under errors="mark": the compiled core's lanes read past the
elements that are no inline token (a typo, the empty string, a missing value, a
longer or non-ASCII string) and the exact code reads only those after, keeping the
marks as columns.  Every kernel this CPU runs must give what the twin gives: records,
marked indices, and each error's token (a missing element's is the dtype's
``na_object``), reason and index; under errors="raise" the same first error."""

from __future__ import annotations

import functools
import math
import pickle
import random
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from conftest import CORES

from sashite_epin import ParseError, Reason, _core_py

COMPILED = [core for core in CORES if core.IMPLEMENTATION == "cython"]
KERNELS = [(core, kernel) for core in COMPILED for kernel in core.KERNELS]
StringDType = np.dtypes.StringDType

VALID = ["K", "+k^'", "-p", "S^", "r'", "+B", "k^"]
# no token: typos inline, the empty string, a string past the 15 inline bytes (kept
# outside the element), one of 15 bytes, non-ASCII text (the Kelvin sign)
INVALID = ["K^^", "+", "KQ", "", "k'^", "--p", "Q''", "x1", "K" * 20, "K" * 15, "\u212a",
           "+K^'X", "é"]  # fmt: skip
MISSING = object()  # where the column holds the dtype's missing value


def token_of(token: object) -> object:
    """A token as errors() gives it, NaN made comparable."""
    return "NaN" if isinstance(token, float) and math.isnan(token) else token


def outcome(core: ModuleType, data: object, epin: bool, errors: str = "mark") -> object:
    try:
        result = core.parse_many(data, epin, errors)
    except ParseError as error:
        return ("error", token_of(error.token), error.reason, error.index)
    marks = [(token_of(e.token), e.reason, e.index, e.position) for e in result.errors()]
    return np.asarray(result).tobytes(), list(result.invalid), marks


def columns() -> list[list[object]]:
    rng = random.Random(11)

    def column(length: int, marked: set[int]) -> list[object]:
        return [(MISSING if i % 3 == 0 else rng.choice(INVALID)) if i in marked
                else VALID[i % len(VALID)] for i in range(length)]  # fmt: skip

    out = []
    for length in (1, 7, 8, 9, 16, 17, 24):
        out += [column(length, {at}) for at in range(length)]
        out.append(column(length, set(range(length))))
    out += [column(24, {at, at + 1}) for at in range(23)]
    for edge in (512, 4096):
        out += [column(edge + 20, {edge + d, edge + d + 3}) for d in (-9, -8, -1, 0, 1, 8)]
    out.append(column(9000, set(range(0, 9000, 2))))
    out.append(column(9000, {i for i in range(9000) if rng.random() < 0.01}))
    return out


COLUMNS = columns()
NA_OBJECTS = {"None": None, "nan": float("nan"), "pandas.NA": pd.NA, "a str": "NA"}


def array(entries: list[object], na: str | None) -> np.ndarray:
    if na is None:  # no missing value: its place holds a typo
        return np.array(["KK" if e is MISSING else e for e in entries], dtype=StringDType())
    value = NA_OBJECTS[na]
    return np.array([value if e is MISSING else e for e in entries],
                    dtype=StringDType(na_object=value))  # fmt: skip


def ids(value: object) -> str:
    return str(getattr(value, "IMPLEMENTATION", value))


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
@pytest.mark.parametrize("na", [None, *NA_OBJECTS])
def test_marks_at_every_lane_as_the_twin(core: ModuleType, kernel: str, na: str | None) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        for entries in COLUMNS:
            data = array(entries, na)
            for epin in (True, False):
                assert outcome(core, data, epin) == outcome(_core_py, data, epin), (na, entries)
            assert outcome(core, data, True, "raise") == outcome(_core_py, data, True, "raise")
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize("core", COMPILED, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("na", [*NA_OBJECTS, "", "KQ", "K"])
def test_exports_keep_a_str_na_object_as_text(core: ModuleType, na: str) -> None:
    """A str na_object (numpy stores it as the missing flag) is text: the exports write
    it, as the twin's do; a missing value's element is null."""
    value = NA_OBJECTS.get(na, na)
    data = np.array(["K", value, "KQ", "", "é", "K" * 20, "-p"],
                    dtype=StringDType(na_object=value))  # fmt: skip
    result = core.parse_many(data, True, "mark")
    twin = _core_py.parse_many(data, True, "mark")
    assert result.to_arrow().equals(twin.to_arrow())
    pd.testing.assert_frame_equal(result.to_pandas(), twin.to_pandas())
    assert (result[1:] + result[:3]).to_arrow().equals((twin[1:] + twin[:3]).to_arrow())


@pytest.mark.parametrize("core", COMPILED, ids=lambda c: c.IMPLEMENTATION)
def test_pieces_strides_and_exports(core: ModuleType) -> None:
    entries = COLUMNS[-2]
    data = array(entries, "None")
    want = outcome(_core_py, data, True)
    for size in (1, 5, 37, 64, 1000):
        was = core.use_piece_size(size)
        try:
            assert outcome(core, data, True) == want, size
        finally:
            core.use_piece_size(was)
    # a strided view is read element by element, the same way
    assert outcome(core, data[::3], True) == outcome(_core_py, data[::3], True)
    result = core.parse_many(data, True, "mark")
    twin = _core_py.parse_many(data, True, "mark")
    assert result.to_arrow().equals(twin.to_arrow())
    pd.testing.assert_frame_equal(result.to_pandas(), twin.to_pandas())
    again = pickle.loads(pickle.dumps(result))
    assert [(token_of(e.token), e.reason, e.index) for e in again.errors()] == [
        (token_of(e.token), e.reason, e.index) for e in twin.errors()]  # fmt: skip
    selected = result[1::2]
    assert outcome(core, data[1::2], True)[2] == [
        (token_of(e.token), e.reason, e.index, e.position) for e in selected.errors()]  # fmt: skip


def test_a_missing_element_is_named_by_the_dtypes_value() -> None:
    for core in CORES:
        data = np.array(["K", None, "KQ", ""], dtype=StringDType(na_object=None))
        errors = core.parse_many(data, True, "mark").errors()
        assert [(e.token, e.reason, e.index) for e in errors] == [
            (None, Reason.MISSING, 1),
            ("KQ", errors[1].reason, 2),
            ("", Reason.EMPTY, 3),
        ]


def big_column(length: int) -> list[object]:
    """Marks in every lane window (4,096 elements) and piece: typos of each inline size
    (kept as keys), inline strings of 4 to 15 bytes (kept whole), arena strings past 15
    bytes and non-ASCII ones (read as objects), missing values, in runs and alone."""
    rng = random.Random(5)
    kinds = [*INVALID, "K" * 4, "+K^'" + "x" * 11, "\x00K", "K\x00", MISSING]
    return [rng.choice(kinds) if i % 7 in (2, 3) or rng.random() < 0.05
            else VALID[i % len(VALID)] for i in range(length)]  # fmt: skip


def entries_of(result: object) -> list[tuple[object, int, int]]:
    return [(token_of(e.token), e.reason, e.index) for e in result.errors()]  # type: ignore[attr-defined]


def long_views() -> list[np.ndarray]:
    data = array(big_column(70_003), "None")
    return [data, data[5:], data[1::2], data[::-1], data[::3], data[1:]]


@functools.cache
def twin_long_views() -> list[tuple[object, ...]]:
    """What the twin gives for each of long_views(): computed once per run, for every
    kernel's test."""
    answers = []
    for view in long_views():
        twin = _core_py.parse_many(view, True, "mark")
        with pytest.raises(ValueError) as twins:
            twin.tokens()
        answers.append(
            (
                outcome(_core_py, view, True),
                str(twins.value),
                twin.valid().tokens(),
                entries_of(twin),
                twin.to_arrow(),
            )
        )
    return answers


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_long_columns_views_and_reads_as_the_twin(core: ModuleType, kernel: str) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        *views, unsliced = long_views()
        *twins, twin_unsliced = twin_long_views()
        for view, (twin_outcome, twin_error, twin_valid, want, twin_arrow) in zip(
            views, twins, strict=True
        ):
            result = core.parse_many(view, True, "mark")
            assert outcome(core, view, True) == twin_outcome
            with pytest.raises(ValueError) as raised:
                result.tokens()
            assert str(raised.value) == twin_error
            assert result.valid().tokens() == twin_valid
            for k in (0, 1, len(want) // 2, -1):  # each read on its own, before the rest
                error = core.parse_many(view, True, "mark").errors()[k]
                assert (token_of(error.token), error.reason, error.index) == want[k]
            errors = core.parse_many(view, True, "mark").errors()[3:9]
            assert [(token_of(e.token), e.reason, e.index) for e in errors] == want[3:9]
            assert entries_of(pickle.loads(pickle.dumps(result))) == want
            assert result.to_arrow().equals(twin_arrow)
        # the marked indices gathered aside and copied, where arrays are not written in place
        was = core.use_arrays_in_place(False)
        try:
            assert outcome(core, unsliced, True) == twin_unsliced[0]
        finally:
            core.use_arrays_in_place(was)
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize("core", CORES, ids=ids)
def test_long_strings_first_leave_room_for_the_short_marks_after(core: ModuleType) -> None:
    # Long strings (read as objects) first, within the texts' first room of 15 bytes
    # an entry, then short marks (read from their keys): the keys' texts once went past
    # the block the long strings had filled (a heap overrun: the process aborted).
    texts = ["x" * 40] * 1100 + ["xy"] * 1900 + ["K" * 20, "\u212a"] * 3
    data = np.array(texts, dtype=StringDType(na_object=None))
    for _ in range(3):
        assert outcome(core, data, False) == outcome(_core_py, data, False)
        result = core.parse_many(data, False, "mark")
        assert result.to_arrow().equals(_core_py.parse_many(data, False, "mark").to_arrow())


@pytest.mark.parametrize("core", CORES, ids=ids)
def test_marks_keep_the_texts_of_the_parse_when_the_array_changes(core: ModuleType) -> None:
    """The marked texts are the array's as it was at parse time: an element changed,
    made missing or longer after the call changes no error."""
    entries = big_column(9_000)
    data = array(entries, "None")
    want = entries_of(_core_py.parse_many(data.copy(), True, "mark"))
    arrow = _core_py.parse_many(data.copy(), True, "mark").to_arrow()
    results = [core.parse_many(data, True, "mark") for _ in range(3)]
    data[:] = ["K" * 40 if i % 2 else None for i in range(len(data))]
    assert entries_of(results[0]) == want
    assert results[1].to_arrow().equals(arrow)
    assert entries_of(pickle.loads(pickle.dumps(results[2]))) == want
