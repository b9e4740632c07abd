"""Scanning tokens written back to back in a longer text (FEEN placements and hands),
pure Python: the twin of ``_text_c.pxi``, on top of ``_scan_py.scan_prefix``."""

from __future__ import annotations

import operator
from array import array
from typing import Any

from ._array_py import TokenArray
from ._arrow_py import NotText, arrow_texts
from ._errors import ParseError, reason_text
from ._inputs import is_missing, is_sequence, own_items
from ._layout import RECORD_SIZE, record_of_code
from ._messages import NOT_A_LETTER
from ._objects_py import objects
from ._scan_py import attempt, between_reason, in_alphabet, scan_prefix, stray_reason


def _notation(epin: bool) -> str:
    return "EPIN" if epin else "PIN"


def _text(s: object, epin: bool) -> str:
    if not issubclass(type(s), str):  # not isinstance: an object's __class__ may lie
        raise TypeError(f"{_notation(epin)} text must be str, not {type(s).__name__}")
    return s if type(s) is str else str.__str__(s)


def _fail(s: str, pos: int, reason: int, epin: bool) -> ParseError:
    tried = attempt(s, pos, epin)  # what stands there (empty at the end of s)
    return ParseError(tried, reason_text(reason, _notation(epin)), _notation(epin), None, pos)


def _scan_at(text: object, pos: object, epin: bool) -> tuple[Any, int]:
    s = _text(text, epin)
    if isinstance(pos, bool) or not isinstance(pos, int):
        raise TypeError(f"pos must be an int, not {type(pos).__name__}")
    start = operator.index(pos)
    if not 0 <= start <= len(s):
        raise ValueError(f"pos {start} is outside 0..{len(s)}")
    code, length = scan_prefix(s, start, epin)
    if code < 0:
        raise _fail(s, start, -code, epin)
    return objects(epin)[code], start + length


def _strict(strict: object) -> bool:
    if type(strict) is not bool:
        raise TypeError(f"strict must be True or False (a bool), not {type(strict).__name__}")
    return strict


# What FEEN's piece placement allows between tokens: runs of empty squares and the
# rank and layer separators.  Under strict, any other character there is refused.
BETWEEN = frozenset("0123456789/")


def _tokenize(text: object, epin: bool, strict: object) -> list[Any]:
    s = _text(text, epin)
    items, failure = _tokenize_str(s, epin, _strict(strict))
    if failure is not None:
        raise _fail(s, failure[0], failure[1], epin)
    return items


def _tokenize_str(
    s: str, epin: bool, strict: bool = False
) -> tuple[list[Any], tuple[int, int] | None]:
    """tokenize over an exact str: its items, and None or where it failed and why
    (position, reason number), without an exception (a column's invalid rows cost no
    more than its valid ones).  strict: a character outside the notation's alphabet
    that is no digit and no "/" fails there too."""
    table = objects(epin)
    result: list[Any] = []
    i = run = 0
    last = -1  # where the last token starts
    while i < len(s):
        if not in_alphabet(s[i], epin):
            if strict and s[i] not in BETWEEN:
                return result, (i, between_reason(s, last, i, epin))
            i += 1
            continue
        if run < i:
            result.append(s[run:i])
        code, length = scan_prefix(s, i, epin)
        if code < 0:
            if last >= 0 and run == i and s[i] in "^'":  # a stray marker after a token
                return result, (i, stray_reason(s, last, i, epin))
            return result, (i, -code)
        result.append(table[code])
        last = i
        i = run = i + length
    if run < len(s):
        result.append(s[run:])
    return result, None


def scan_pin(s: object, pos: int = 0) -> tuple[Any, int]:
    """The PIN token starting at ``s[pos]`` (greedy) and where it ends: ``(Pin, end)``.
    ParseError (with ``.position``) if none starts there; ValueError for a ``pos``
    outside ``0..len(s)``."""
    return _scan_at(s, pos, False)


def scan_epin(s: object, pos: int = 0) -> tuple[Any, int]:
    """The EPIN token starting at ``s[pos]`` (greedy) and where it ends: ``(Epin, end)``.
    ParseError (with ``.position``) if none starts there; ValueError for a ``pos``
    outside ``0..len(s)``."""
    return _scan_at(s, pos, True)


def tokenize_pin(s: object, *, strict: bool = False) -> list[Any]:
    """The PIN tokens of ``s`` in order, written back to back or not, as Pin objects;
    the runs of characters outside PIN's alphabet between them (digits, ``/``) are kept
    as ``str`` items.  ParseError (with ``.position``) where a token character starts
    no token; with ``strict=True`` also where any character but a digit or ``/``
    stands between tokens (FEEN's piece placement)."""
    return _tokenize(s, False, strict)


def tokenize_epin(s: object, *, strict: bool = False) -> list[Any]:
    """The EPIN tokens of ``s`` in order, written back to back or not, as Epin objects;
    the runs of characters outside EPIN's alphabet between them (digits, ``/``) are
    kept as ``str`` items.  ParseError (with ``.position``) where a token character
    starts no token; with ``strict=True`` also where any character but a digit or
    ``/`` stands between tokens (FEEN's piece placement)."""
    return _tokenize(s, True, strict)


def tokenize_many(
    texts: object, epin: bool, errors: str = "raise", strict: bool = False
) -> TokenArray:
    """The tokens of every text of a list or tuple (None, NaN and pandas.NA: a missing
    row) or of an Arrow string column (an object with ``__arrow_c_array__`` or
    ``__arrow_c_stream__``: a null is a missing row), in order, as one TokenArray whose
    ``offsets``, ``row_offsets`` and ``rows`` say where each came from; strict: as
    tokenize's; see Pin.tokenize_many / Epin.tokenize_many."""
    if errors not in ("raise", "mark"):
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
    _strict(strict)
    if not is_sequence(texts):
        kind = type(texts)
        if hasattr(kind, "__arrow_c_array__") or hasattr(kind, "__arrow_c_stream__"):
            rows, stopped = arrow_texts(texts)
            result = tokenize_many(rows, epin, errors, strict)
            if stopped is not None:  # after the rows before it are judged, as read in order
                raise stopped
            return result
        raise TypeError(
            "tokenize_many reads a list or tuple of str or an Arrow string column here, "
            f"not {type(texts).__name__}"
        )
    notation = _notation(epin)
    records = bytearray()
    offsets, row_offsets, missing, invalid = array("q"), array("q"), array("q"), []
    rejected: list[Any] = []
    # Texts refused before in this call, and how (a column of typos repeats them): the
    # same text fails the same way, so it is not scanned again.
    refused: dict[str, tuple[int, int, str]] = {}
    for i, text in enumerate(own_items(texts)):
        row_offsets.append(len(offsets))
        kind = type(text)
        if kind is str and errors == "mark" and text in refused:
            position, number, token = refused[text]
            invalid.append(len(offsets))
            rejected.append((token, number, position, None))
            records += bytes(RECORD_SIZE)
            offsets.append(position)
            continue
        if kind is NotText:  # an Arrow row that is not UTF-8: judged to its first fault
            items, failure = _tokenize_str(text.before, epin, strict)
            s = text.before + "\ufffd"
            if failure is None:  # no letter, as parse_many judges that character
                failure = (len(text.before), NOT_A_LETTER)
        elif issubclass(kind, str):  # not isinstance: an object's __class__ may lie
            s = text if kind is str else str.__str__(text)
            items, failure = _tokenize_str(s, epin, strict)
        elif is_missing(text):
            missing.append(i)
            continue
        else:
            raise TypeError(f"item {i} is {kind.__name__}, not str")
        if failure is not None:
            position, number = failure
            token = attempt(s, position, epin)
            if errors == "raise":
                reason = reason_text(number, notation)
                raise ParseError(token, reason, notation, i, position, row=i)
            invalid.append(len(offsets))
            rejected.append((token, number, position, None))
            records += bytes(RECORD_SIZE)
            offsets.append(position)
            if kind is str:
                refused[text] = (position, number, token)
            continue
        position = 0
        for item in items:
            if type(item) is str:
                position += len(item)
                continue
            records += record_of_code(item.code)
            offsets.append(position)
            position += len(str(item))
    row_offsets.append(len(offsets))
    result = TokenArray._make(epin, bytes(records), invalid, rejected)
    result._layout = (offsets, row_offsets, missing, None)  # no row labels yet
    return result
