"""Every public object a caller gets pickles under every protocol (0 to the highest)
and copies, shallow and deep, into an equal one: results of both cores with their
labels, marks and rows, their by-row views and error lists, errors, tokens, enums and
native styles.  Interned objects come back as themselves."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

from sashite_epin import Epin, NativeStyles, ParseError, Pin, Reason, Side, State, TokenRows

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


def round_trips(obj: object) -> list[object]:
    """obj pickled under every protocol, copied and deep-copied."""
    again = [pickle.loads(pickle.dumps(obj, protocol)) for protocol in PROTOCOLS]
    return [*again, copy.copy(obj), copy.deepcopy(obj)]


def error_fields(error: ParseError) -> tuple[object, ...]:
    return (
        str(error), error.token, error.reason, error.notation, error.index,
        error.position, error.line, error.label,
    )  # fmt: skip


def result_fields(result: object) -> tuple[object, ...]:
    """What a TokenArray holds: records, marks and their errors, labels, rows."""
    labels = result.labels  # type: ignore[attr-defined]
    layout = [
        None if getattr(result, field) is None else list(getattr(result, field))
        for field in ("offsets", "row_offsets", "missing_rows")
    ]
    return (
        type(result),
        result.notation,  # type: ignore[attr-defined]
        np.asarray(result).tobytes(),
        list(result.invalid),  # type: ignore[attr-defined]
        [error_fields(e) for e in result.errors()],  # type: ignore[attr-defined]
        None if labels is None else labels.tolist(),
        layout,
    )


RESULTS: dict[str, Callable[[ModuleType], object]] = {
    "parse_many": lambda core: core.parse_many(["K^", "q'", "+P"], True),
    "parse_many marked": lambda core: core.parse_many(["K", "x1", None, "p"], False, "mark"),
    "parse_many of bytes": lambda core: core.parse_many(b"K q\n?? P", True, "mark"),
    "tokenize_many": lambda core: core.tokenize_many(["K^/q", None, "8", "K''"], True, "mark"),
    "empty": lambda core: core.parse_many([], True),
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_a_result_of_either_core_pickles_and_copies(core: ModuleType, name: str) -> None:
    result = RESULTS[name](core)
    for again in round_trips(result):
        assert result_fields(again) == result_fields(result)


def test_a_labelled_result_keeps_its_labels() -> None:
    series = pd.Series(["K^/q", None, "8", "K''"], index=pd.Index(list("abcd"), name="game"))
    for result in (
        Epin.tokenize_many(series, errors="mark"),
        Epin.parse_many(series, errors="mark"),
    ):
        for again in round_trips(result):
            assert result_fields(again) == result_fields(result)
            assert again.labels.name == "game"  # type: ignore[attr-defined]


def test_a_by_row_view_pickles_and_copies() -> None:
    series = pd.Series(["K^/q", None, "8", "K''"], index=list("abcd"))
    rows = Epin.tokenize_many(series, errors="mark").by_row()
    for again in round_trips(rows):
        assert type(again) is TokenRows
        assert again.to_arrow().equals(rows.to_arrow())  # type: ignore[attr-defined]
        assert again.labels.equals(rows.labels)  # type: ignore[attr-defined]
        assert result_fields(again.tokens) == result_fields(rows.tokens)  # type: ignore[attr-defined]


def test_an_error_list_pickles_and_copies() -> None:
    errors = Pin.parse_many(pd.Series(["K", "x1", None], index=[7, 8, 9]), errors="mark").errors()
    for again in round_trips(errors):
        assert type(again) is type(errors)
        assert [error_fields(e) for e in again] == [error_fields(e) for e in errors]  # type: ignore[attr-defined]


def test_an_error_pickles_and_copies() -> None:
    with pytest.raises(ParseError) as info:
        Epin.tokenize_many(pd.Series(["K", "K''"], index=["a", "b"]))
    for again in round_trips(info.value):
        assert error_fields(again) == error_fields(info.value)  # type: ignore[arg-type]


def test_tokens_and_enums_come_back_as_themselves() -> None:
    for obj in (Pin.parse("+K^"), Epin.parse("p'"), Side.SECOND, State.DIMINISHED, *Reason):
        assert all(again is obj for again in round_trips(obj))


def test_native_styles_pickle_and_copy() -> None:
    """Immutable, yet rebuilt by every protocol and by copy; a deep copy copies the
    styles themselves."""
    styles = NativeStyles(first=["chess"], second=["shogi"])
    for again in round_trips(styles):
        assert type(again) is NativeStyles and again == styles
    assert copy.copy(styles).first is styles.first
    assert copy.deepcopy(styles).first is not styles.first
    with pytest.raises(AttributeError, match="immutable"):
        copy.copy(styles).first = "xiangqi"  # type: ignore[misc]
