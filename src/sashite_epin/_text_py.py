"""Twin of _text_c.pxi: scanning tokens written back to back in a longer text.  Greedy
scanning is the longest prefix that is a whole token, found with the twin's one scanner
``_scan``; so it can never disagree with single-token parsing."""

from __future__ import annotations

import operator
from typing import Any

from . import _core_py as core
from ._errors import EMPTY, ParseError, reason_text

_LETTERS = frozenset(map(chr, [*range(65, 91), *range(97, 123)]))
_ALPHABET = {False: _LETTERS | set("+-^"), True: _LETTERS | set("+-^'")}


def _notation(epin: bool) -> str:
    return "EPIN" if epin else "PIN"


def _text(s: object, epin: bool) -> str:
    if not isinstance(s, str):
        raise TypeError(f"{_notation(epin)} text must be str, not {type(s).__name__}")
    return s if type(s) is str else str.__str__(s)


def scan_prefix(s: str, pos: int, epin: bool) -> tuple[int, int]:
    """(code, length) of the token starting at s[pos], or (-reason, 0)."""
    if pos >= len(s):
        return -EMPTY, 0
    for length in range(min(len(s) - pos, 4 if epin else 3), 0, -1):
        code = core._scan(s[pos : pos + length], epin)
        if code >= 0:
            return code, length
    slot = 2 if s[pos] in "+-" else 1  # the letter slot decides the reason
    return core._scan(s[pos : pos + slot], epin), 0


def _fail(s: str, pos: int, reason: int, epin: bool) -> ParseError:
    tried = s[pos : pos + (2 if s[pos : pos + 1] in ("+", "-") else 1)]
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
    return (core._epins if epin else core._pins)[code], start + length


def _tokenize(text: object, epin: bool) -> list[Any]:
    s = _text(text, epin)
    alphabet, table = _ALPHABET[epin], core._epins if epin else core._pins
    result: list[Any] = []
    i = run = 0
    while i < len(s):
        if s[i] not in alphabet:
            i += 1
            continue
        if run < i:
            result.append(s[run:i])
        code, length = scan_prefix(s, i, epin)
        if code < 0:
            raise _fail(s, i, -code, epin)
        result.append(table[code])
        i = run = i + length
    if run < len(s):
        result.append(s[run:])
    return result


def scan_pin(s: object, pos: int = 0) -> tuple[Any, int]:
    return _scan_at(s, pos, False)


def scan_epin(s: object, pos: int = 0) -> tuple[Any, int]:
    return _scan_at(s, pos, True)


def tokenize_pin(s: object) -> list[Any]:
    return _tokenize(s, False)


def tokenize_epin(s: object) -> list[Any]:
    return _tokenize(s, True)
