"""ParseError, and the token limits its messages state.  A ParseError's reason is a
Reason (_reason.py), the enum over _messages.py's numbers and messages, imported with
the enum module at the first error: enum, with the functools and collections it
imports, would double the import time of everything else."""

from __future__ import annotations

from ._messages import MESSAGES, TOO_LONG

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from ._reason import Reason

# The longest token of each notation, and how many tokens each has.
PIN_MAX_LENGTH: Final = 3
EPIN_MAX_LENGTH: Final = 4
PIN_TOKEN_COUNT: Final = 312  # 26 letters x 2 sides x 3 states x 2 terminal statuses
EPIN_TOKEN_COUNT: Final = 624  # and native or derived
MAX_LENGTH: Final = {"PIN": PIN_MAX_LENGTH, "EPIN": EPIN_MAX_LENGTH}

# How much of a hostile token a message shows; the whole token stays in .token.
_SHOWN: Final = 40


_REASONS: list[Reason] = []  # by number - 1, filled at the first error


def reason_text(reason: int, notation: str) -> Reason:
    """The Reason of a reason number (its message is ``str()`` of it); ``notation`` is
    kept for callers that word a message by notation.  From a tuple, not the enum's
    own lookup, which costs a microsecond: a result's errors are made by the thousand."""
    if not _REASONS:
        from ._reason import Reason

        _REASONS[:] = list(Reason)  # two threads fill it with the same members
    return _REASONS[reason - 1]


def _shown(token: object) -> str:
    # str.__repr__ / bytes.__repr__ directly: a subclass's own __repr__ is not trusted.
    # As ascii() quotes: whatever is not ASCII escaped, so a look-alike (the Kelvin sign)
    # never prints as the letter it imitates.
    if isinstance(token, str):
        head = str.__getitem__(token, slice(0, _SHOWN))
        quoted = str.__repr__(head).encode("ascii", "backslashreplace").decode("ascii")
        return quoted + ("..." if str.__len__(token) > _SHOWN else "")
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
    counted from 1; ``None`` otherwise), ``label`` (the pandas index label of the
    entry, for input that had an index; ``None`` otherwise), ``row`` (the row of a
    column of texts, ``tokenize_many``'s or ``boards``': then ``index`` is that row
    too, raised or marked; ``None`` otherwise).

    ``args`` are the constructor's arguments, so ``type(e)(*e.args)``, ``copy`` and
    pickle give an equal error (the message is ``str(e)``).
    """

    token: object
    reason: Reason | str
    notation: str
    index: int | None
    position: int | None
    line: int | None
    label: object
    row: int | None

    def __init__(
        self,
        token: object,
        reason: Reason | str | None = None,
        notation: str = "EPIN",
        index: int | None = None,
        position: int | None = None,
        line: int | None = None,
        label: object = None,
        row: int | None = None,
    ) -> None:
        if reason is None:
            # Made from a message alone, as some libraries copy an exception they pass
            # on (polars, from a function it ran): the message is all there is.
            super().__init__(token)
            self._message = self.reason = str(token)
            self.token, self.notation = token, notation
            self.index, self.position, self.line, self.label = index, position, line, label
            self.row = row
            return
        said = str(reason)  # a Reason's message, or the text given
        if said == MESSAGES[TOO_LONG - 1] and notation in MAX_LENGTH:
            said = f"{said} (at most {MAX_LENGTH[notation]} characters)"
        if position is not None and index is None and line is None:
            # Scanning a longer text: say where, and what stands there instead.
            message = (
                f"no {notation} token starts at position {position}, "
                f"where {_shown(token)} stands: {said}"
            )
        else:
            where = "" if index is None else f" at index {index}"
            where += "" if label is None else f" (label {_shown_label(label)})"
            where += "" if line is None else f" (line {line}, byte {position})"
            message = f"invalid {notation} token {_shown(token)}{where}: {said}"
        # args are the arguments, not the message: a copy made from them
        # (type(e)(*e.args), as polars and multiprocessing do) is the same error.
        # row only where there is one: the args callers already unpack stay seven.
        args = (token, reason, notation, index, position, line, label)
        super().__init__(*args, *(() if row is None else (row,)))
        self._message = message
        self.token = token
        self.reason = reason
        self.notation = notation
        self.index = index
        self.position = position
        self.line = line
        self.label = label
        self.row = row

    def __str__(self) -> str:
        return self._message

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), self.args)


def _shown_label(label: object) -> str:
    # A label is the user's own value (an int, a str, a tuple for a MultiIndex): shown
    # as ascii() shows it (repr, non-ASCII escaped), cut like a token.
    text = ascii(label)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."
