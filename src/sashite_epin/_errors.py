"""ParseError and the reasons a string is not a token (one message per reason)."""

from __future__ import annotations

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# Reason identifiers, shared by the compiled core and its twin (the core returns them
# as negative numbers from its scanner).  Messages follow the Ruby reference gems.
EMPTY: Final = 1
TOO_LONG: Final = 2
ONE_LETTER: Final = 3
STATE_MODIFIER: Final = 4
TERMINAL_MARKER: Final = 5
DERIVATION_MARKER: Final = 6
UNEXPECTED: Final = 7
MISSING: Final = 8  # None, NaN, pandas.NA or an Arrow null where a token should be

_MESSAGES: Final = {
    EMPTY: "empty input",
    ONE_LETTER: "must contain exactly one letter",
    STATE_MODIFIER: "invalid state modifier",
    TERMINAL_MARKER: "invalid terminal marker",
    DERIVATION_MARKER: "invalid derivation marker",
    UNEXPECTED: "unexpected character",
    MISSING: "missing value",
}

MAX_LENGTH: Final = {"PIN": 3, "EPIN": 4}

# How much of a hostile token a message shows; the whole token stays in .token.
_SHOWN: Final = 40


def reason_text(reason: int, notation: str) -> str:
    """The message of a reason identifier for the notation ``"PIN"`` or ``"EPIN"``."""
    if reason == TOO_LONG:
        return f"input exceeds {MAX_LENGTH[notation]} characters"
    return _MESSAGES[reason]


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

    Attributes: ``token`` (the offending input, whole), ``reason`` (a short message),
    ``notation`` (``"PIN"`` or ``"EPIN"``), ``index`` (position in a bulk input,
    ``None`` for a single token), ``position`` (the character offset where scanning
    a longer text found no token, or the byte offset of a bad token in bulk bytes
    input; ``None`` otherwise) and ``line`` (bulk bytes input: the token's line,
    counted from 1; ``None`` otherwise).
    """

    token: object
    reason: str
    notation: str
    index: int | None
    position: int | None
    line: int | None

    def __init__(
        self,
        token: object,
        reason: str,
        notation: str = "EPIN",
        index: int | None = None,
        position: int | None = None,
        line: int | None = None,
    ) -> None:
        if position is not None and index is None and line is None:
            # Scanning a longer text: say where, and what stands there instead.
            message = (
                f"no {notation} token starts at position {position}, "
                f"where {_shown(token)} stands: {reason}"
            )
        else:
            where = "" if index is None else f" at index {index}"
            where += "" if line is None else f" (line {line}, byte {position})"
            message = f"invalid {notation} token {_shown(token)}{where}: {reason}"
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
