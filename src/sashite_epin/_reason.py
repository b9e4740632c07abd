"""Reason, the ways a string fails to be a token: an enum over the numbers and messages
of _messages.py.  Imported when first asked for (see _errors.py)."""

from __future__ import annotations

import enum

from . import _messages


class Reason(enum.Enum):
    """Why a string is not a token: one member per way a token fails, in the words of
    PIN 1.0.0 §6.2 and EPIN 1.0.0 §9.4.

    ``str(reason)`` is the message, and a member compares equal to it
    (``err.reason == "empty"``).  ``reason.value`` is a stable number, the one the
    C API's ``R_*`` constants and ``scan_token`` use.  When a string breaks several
    rules, its reason is the first that applies, in this order (docs/guide.md,
    "Errors"): EMPTY; TOO_LONG (decided by the length alone); LINE_BREAK (``\\n``,
    ``\\r``); WHITESPACE (space, tab, vertical tab, form feed); NOT_A_LETTER (no ASCII
    letter at all); MORE_THAN_ONE_LETTER; OTHER_CHARACTER (anything but the letter and
    the markers ``+ - ^ '``); DERIVATION_IN_PIN; MULTIPLE_STATE_MODIFIERS;
    MODIFIER_NOT_FIRST; MULTIPLE_DERIVATION_MARKERS; DERIVATION_NOT_LAST;
    MULTIPLE_TERMINAL_MARKERS; TERMINAL_NOT_AFTER_LETTER.  MISSING is bulk input's:
    None, NaN, pandas.NA or an Arrow null where a token should be.  The last six are
    a FEEN piece placement's own (``Epin.boards`` and the C API's ``scan_placement``):
    EMPTY_RANK (a rank with no square: a "/" first, last or beside "//"),
    LEADING_ZERO (a count of empty squares written "0" or "08"), TOO_MANY_SEPARATORS
    ("///": FEEN separates ranks with "/" and layers with "//"), RUN_TOO_LONG (a count
    of empty squares beyond the room left for squares) and NO_ROOM (more squares or
    ranks than the caller made room for); NOT_A_CODE is a board's square that holds a
    number no token has, when a board is written back.
    """

    EMPTY = _messages.EMPTY
    TOO_LONG = _messages.TOO_LONG
    LINE_BREAK = _messages.LINE_BREAK
    WHITESPACE = _messages.WHITESPACE
    NOT_A_LETTER = _messages.NOT_A_LETTER
    MORE_THAN_ONE_LETTER = _messages.MORE_THAN_ONE_LETTER
    OTHER_CHARACTER = _messages.OTHER_CHARACTER
    DERIVATION_IN_PIN = _messages.DERIVATION_IN_PIN
    MULTIPLE_STATE_MODIFIERS = _messages.MULTIPLE_STATE_MODIFIERS
    MODIFIER_NOT_FIRST = _messages.MODIFIER_NOT_FIRST
    MULTIPLE_DERIVATION_MARKERS = _messages.MULTIPLE_DERIVATION_MARKERS
    DERIVATION_NOT_LAST = _messages.DERIVATION_NOT_LAST
    MULTIPLE_TERMINAL_MARKERS = _messages.MULTIPLE_TERMINAL_MARKERS
    TERMINAL_NOT_AFTER_LETTER = _messages.TERMINAL_NOT_AFTER_LETTER
    MISSING = _messages.MISSING
    EMPTY_RANK = _messages.EMPTY_RANK
    LEADING_ZERO = _messages.LEADING_ZERO
    TOO_MANY_SEPARATORS = _messages.TOO_MANY_SEPARATORS
    RUN_TOO_LONG = _messages.RUN_TOO_LONG
    NO_ROOM = _messages.NO_ROOM
    NOT_A_CODE = _messages.NOT_A_CODE

    _value_: int

    @property
    def text(self) -> str:
        """The message (what ``str()`` gives)."""
        return _messages.MESSAGES[self._value_ - 1]

    def __str__(self) -> str:
        return _messages.MESSAGES[self._value_ - 1]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.text == other
        return self is other

    def __hash__(self) -> int:
        return hash(self.text)  # equal to its text, so hashed as its text


# Printed, documented and pickled under the package's name, not this private module's.
Reason.__module__ = "sashite_epin"
