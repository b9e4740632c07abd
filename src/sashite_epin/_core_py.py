"""Pure-Python twin of the compiled core (``_core_c.pyx``): same functions, same results,
same error reasons.  It runs where no compiled wheel exists, and it is the oracle the
compiled core is tested against, so it is written to be read rather than to be fast.

Grammar (PIN 1.0.0 §4.2, EPIN 1.0.0 §5), always matched against the *whole* input::

    pin            ::= [ state-modifier ] letter [ terminal-marker ] ;
    epin           ::= pin [ derivation-marker ] ;
    state-modifier ::= "+" | "-" ;
    letter         ::= "A" … "Z" | "a" … "z" ;
    terminal-marker   ::= "^" ;
    derivation-marker ::= "'" ;

    PIN  \\A[-+]?[A-Za-z]\\^?\\z     (312 tokens)
    EPIN \\A[-+]?[A-Za-z]\\^?'?\\z   (624 tokens)

Characters are compared by code point, never with ``str.isalpha``/``isupper`` (which
accept non-ASCII letters).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _errors as E
from ._errors import ParseError, reason_text
from ._layout import (
    RANK_DIMINISHED,
    RANK_ENHANCED,
    RANK_NORMAL,
    compose,
    is_code,
)

IMPLEMENTATION = "python"

_pins: Sequence[Any] = ()
_epins: Sequence[Any] = ()


def _misplaced(char: str, epin: bool, at_letter: bool) -> int:
    """The reason for ``char`` standing where the grammar does not allow it."""
    if char == "+" or char == "-":
        return E.STATE_MODIFIER
    if char == "^":
        return E.TERMINAL_MARKER
    if epin and char == "'":
        return E.DERIVATION_MARKER
    if at_letter or "A" <= char <= "Z" or "a" <= char <= "z":
        return E.ONE_LETTER
    return E.UNEXPECTED


def _scan(s: str, epin: bool) -> int:
    """The code of the token ``s``, or minus the reason it is not one."""
    n = len(s)
    if n == 0:
        return -E.EMPTY
    if n > (4 if epin else 3):
        return -E.TOO_LONG
    i = 0
    rank = RANK_NORMAL
    if s[0] == "+":
        rank, i = RANK_ENHANCED, 1
    elif s[0] == "-":
        rank, i = RANK_DIMINISHED, 1
    if i == n:
        return -E.ONE_LETTER
    char = s[i]
    if "A" <= char <= "Z":
        second, index = 0, ord(char) - 65
    elif "a" <= char <= "z":
        second, index = 1, ord(char) - 97
    else:
        return -_misplaced(char, epin, at_letter=True)
    i += 1
    terminal = derived = 0
    if i < n and s[i] == "^":
        terminal, i = 1, i + 1
    if epin and i < n and s[i] == "'":
        derived, i = 1, i + 1
    if i < n:
        return -_misplaced(s[i], epin, at_letter=False)
    return compose(index, second, rank, terminal, derived)


def _checked(s: object, notation: str) -> str:
    if not isinstance(s, str):
        raise TypeError(f"{notation} token must be str, not {type(s).__name__}")
    # An exact str: a subclass's __len__/__getitem__/__eq__ take no part in parsing.
    return s if type(s) is str else str.__str__(s)


def _code(s: object, epin: bool) -> int:
    notation = "EPIN" if epin else "PIN"
    code = _scan(_checked(s, notation), epin)
    if code < 0:
        raise ParseError(s, reason_text(-code, notation), notation)
    return code


def pin_code(s: object) -> int:
    """The code of a PIN token; TypeError for a non-str, ParseError when invalid."""
    return _code(s, False)


def epin_code(s: object) -> int:
    """The code of an EPIN token; TypeError for a non-str, ParseError when invalid."""
    return _code(s, True)


def register(pins: Sequence[Any], epins: Sequence[Any]) -> None:
    """Give the core the interned objects, indexed by code (None at unused codes)."""
    global _pins, _epins
    _pins, _epins = tuple(pins), tuple(epins)


def parse_pin(s: object) -> Any:
    return _pins[_code(s, False)]


def parse_epin(s: object) -> Any:
    return _epins[_code(s, True)]


def safe_parse_pin(s: object) -> Any:
    if not isinstance(s, str):
        return None
    code = _scan(_checked(s, "PIN"), False)
    return None if code < 0 else _pins[code]


def safe_parse_epin(s: object) -> Any:
    if not isinstance(s, str):
        return None
    code = _scan(_checked(s, "EPIN"), True)
    return None if code < 0 else _epins[code]


def is_valid_pin(s: object) -> bool:
    return isinstance(s, str) and _scan(_checked(s, "PIN"), False) >= 0


def is_valid_epin(s: object) -> bool:
    return isinstance(s, str) and _scan(_checked(s, "EPIN"), True) >= 0


def format_code(code: int) -> str:
    """The EPIN token of a code (a PIN code gives its PIN token); ValueError if invalid."""
    if not is_code(code):
        raise ValueError(f"not a token code: {code!r}")
    index, second = code >> 5, (code >> 4) & 1
    rank, terminal, derived = (code >> 2) & 3, (code >> 1) & 1, code & 1
    return (
        ("-", "+", "")[rank]
        + chr((97 if second else 65) + index)
        + ("^" if terminal else "")
        + ("'" if derived else "")
    )


# Bulk parsing lives beside this module, as _bulk_c.pxi does beside _core_c.pyx.
from ._bulk_py import TokenArray, parse_many, rebuild_token_array  # noqa: E402
from ._text_py import scan_epin, scan_pin, tokenize_epin, tokenize_pin  # noqa: E402

__all__ = [
    "TokenArray",
    "parse_many",
    "rebuild_token_array",
    "scan_epin",
    "scan_pin",
    "tokenize_epin",
    "tokenize_pin",
]
