"""The attribute values a token encodes, named as in the specifications."""

from __future__ import annotations

import enum


class Side(enum.StrEnum):
    """Piece Side, encoded by the letter's case (PIN §5.2)."""

    FIRST = "first"
    SECOND = "second"


class State(enum.StrEnum):
    """Piece State, encoded by the optional prefix (PIN §5.3)."""

    NORMAL = "normal"
    ENHANCED = "enhanced"
    DIMINISHED = "diminished"
