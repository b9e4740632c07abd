"""ParseError and Reason, the ways a string fails to be a token (one message each)."""

from __future__ import annotations

import enum

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final


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
    None, NaN, pandas.NA or an Arrow null where a token should be.
    """

    EMPTY = 1, "empty"
    TOO_LONG = 2, "too long"
    LINE_BREAK = 3, "contains a line break"
    WHITESPACE = 4, "whitespace"
    NOT_A_LETTER = 5, "not a letter"
    MORE_THAN_ONE_LETTER = 6, "more than one letter"
    OTHER_CHARACTER = 7, "unexpected character"
    DERIVATION_IN_PIN = 8, "derivation marker in a PIN token"
    MULTIPLE_STATE_MODIFIERS = 9, "multiple state modifiers (only one modifier is allowed)"
    MODIFIER_NOT_FIRST = 10, "modifier must be a prefix"
    MULTIPLE_DERIVATION_MARKERS = 11, "multiple derivation markers"
    DERIVATION_NOT_LAST = 12, "derivation marker must be last"
    MULTIPLE_TERMINAL_MARKERS = 13, "multiple terminal markers (only one marker is allowed)"
    TERMINAL_NOT_AFTER_LETTER = 14, "wrong order (terminal marker must be a suffix)"
    MISSING = 15, "missing value"

    _value_: int
    text: str

    def __new__(cls, number: int, text: str) -> Reason:
        member = object.__new__(cls)
        member._value_ = number
        member.text = text
        return member

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.text == other
        return self is other

    def __hash__(self) -> int:
        return hash(self.text)  # equal to its text, so hashed as its text


# The reason numbers by name, for the cores (their scanners return minus a number).
EMPTY: Final[int] = Reason.EMPTY.value
TOO_LONG: Final[int] = Reason.TOO_LONG.value
LINE_BREAK: Final[int] = Reason.LINE_BREAK.value
WHITESPACE: Final[int] = Reason.WHITESPACE.value
NOT_A_LETTER: Final[int] = Reason.NOT_A_LETTER.value
MORE_THAN_ONE_LETTER: Final[int] = Reason.MORE_THAN_ONE_LETTER.value
OTHER_CHARACTER: Final[int] = Reason.OTHER_CHARACTER.value
DERIVATION_IN_PIN: Final[int] = Reason.DERIVATION_IN_PIN.value
MULTIPLE_STATE_MODIFIERS: Final[int] = Reason.MULTIPLE_STATE_MODIFIERS.value
MODIFIER_NOT_FIRST: Final[int] = Reason.MODIFIER_NOT_FIRST.value
MULTIPLE_DERIVATION_MARKERS: Final[int] = Reason.MULTIPLE_DERIVATION_MARKERS.value
DERIVATION_NOT_LAST: Final[int] = Reason.DERIVATION_NOT_LAST.value
MULTIPLE_TERMINAL_MARKERS: Final[int] = Reason.MULTIPLE_TERMINAL_MARKERS.value
TERMINAL_NOT_AFTER_LETTER: Final[int] = Reason.TERMINAL_NOT_AFTER_LETTER.value
MISSING: Final[int] = Reason.MISSING.value
REASON_COUNT: Final = len(Reason)
_BY_NUMBER: Final = {reason.value: reason for reason in Reason}

# The longest token of each notation, and how many tokens each has.
PIN_MAX_LENGTH: Final = 3
EPIN_MAX_LENGTH: Final = 4
PIN_TOKEN_COUNT: Final = 312  # 26 letters x 2 sides x 3 states x 2 terminal statuses
EPIN_TOKEN_COUNT: Final = 624  # and native or derived
MAX_LENGTH: Final = {"PIN": PIN_MAX_LENGTH, "EPIN": EPIN_MAX_LENGTH}

# How much of a hostile token a message shows; the whole token stays in .token.
_SHOWN: Final = 40


def reason_text(reason: int, notation: str) -> Reason:
    """The Reason of a reason number (its message is ``str()`` of it); ``notation`` is
    kept for callers that word a message by notation."""
    return _BY_NUMBER[reason]


def _shown(token: object) -> str:
    # str.__repr__ / bytes.__repr__ directly: a subclass's own __repr__ is not trusted.
    if isinstance(token, str):
        head = str.__getitem__(token, slice(0, _SHOWN))
        return str.__repr__(head) + ("..." if str.__len__(token) > _SHOWN else "")
    if isinstance(token, (bytes, bytearray)):
        short = bytes(token[:_SHOWN])
        return bytes.__repr__(short) + ("..." if len(token) > _SHOWN else "")
    if token is None or type(token) is float:
        return repr(token)
    return f"<{type(token).__name__}>"  # a missing value such as pandas.NA


class ParseError(ValueError):
    """A string (or bulk item) is not a valid PIN / EPIN token.

    Attributes: ``token`` (the offending input, whole), ``reason`` (a Reason, which
    prints and compares as its message),
    ``notation`` (``"PIN"`` or ``"EPIN"``), ``index`` (position in a bulk input,
    ``None`` for a single token), ``position`` (the character offset where scanning
    a longer text found no token, or the byte offset of a bad token in bulk bytes
    input; ``None`` otherwise) and ``line`` (bulk bytes input: the token's line,
    counted from 1; ``None`` otherwise).
    """

    token: object
    reason: Reason | str
    notation: str
    index: int | None
    position: int | None
    line: int | None

    def __init__(
        self,
        token: object,
        reason: Reason | str,
        notation: str = "EPIN",
        index: int | None = None,
        position: int | None = None,
        line: int | None = None,
    ) -> None:
        said = (
            f"{reason} (at most {MAX_LENGTH[notation]} characters)"
            if (reason == Reason.TOO_LONG and notation in MAX_LENGTH)
            else str(reason)
        )
        if position is not None and index is None and line is None:
            # Scanning a longer text: say where, and what stands there instead.
            message = (
                f"no {notation} token starts at position {position}, "
                f"where {_shown(token)} stands: {said}"
            )
        else:
            where = "" if index is None else f" at index {index}"
            where += "" if line is None else f" (line {line}, byte {position})"
            message = f"invalid {notation} token {_shown(token)}{where}: {said}"
        super().__init__(message)
        self.token = token
        self.reason = reason
        self.notation = notation
        self.index = index
        self.position = position
        self.line = line

    def __reduce__(self) -> tuple[object, ...]:
        return (
            type(self),
            (self.token, self.reason, self.notation, self.index, self.position, self.line),
        )
