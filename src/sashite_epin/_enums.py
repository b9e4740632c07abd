"""The attribute values a token encodes, named as in the specifications.  Imported when
first asked for (``sashite_epin.Side``, ``Pin.side``, a Pin built from its attributes):
the enum module costs more than the rest of the import."""

from __future__ import annotations

import enum

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    E = TypeVar("E", bound=enum.StrEnum)


class Side(enum.StrEnum):
    """Piece Side, encoded by the letter's case (PIN §5.2)."""

    FIRST = "first"
    SECOND = "second"


class State(enum.StrEnum):
    """Piece State, encoded by the optional prefix (PIN §5.3)."""

    NORMAL = "normal"
    ENHANCED = "enhanced"
    DIMINISHED = "diminished"


# Printed, documented and pickled under the package's name, not this private module's.
Side.__module__ = State.__module__ = "sashite_epin"


def member(kind: type[E], value: object, name: str) -> E:
    """``kind(value)``, with errors that say what is accepted: TypeError for a non-str,
    ValueError naming every value (``side must be 'first' or 'second' ...``)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a {kind.__name__} or str, not {type(value).__name__}")
    try:
        return kind(value)
    except ValueError:
        values = [repr(str(m)) for m in kind]
        allowed = ", ".join(values[:-1]) + " or " + values[-1]
        raise ValueError(
            f"{name} must be {allowed} (a {kind.__name__} or its value), not {str.__repr__(value)}"
        ) from None
