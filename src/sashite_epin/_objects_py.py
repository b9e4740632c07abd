"""The interned Pin / Epin objects, indexed by code: the twin of ``_objects_c.pxi``.
The facade builds them once and registers them here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._layout import CODE_LIMIT

_pins: tuple[Any, ...] = ()
_epins: tuple[Any, ...] = ()


def register(pins: Sequence[Any], epins: Sequence[Any]) -> None:
    """Give the core the interned objects, indexed by code (None at unused codes)."""
    global _pins, _epins
    pins, epins = tuple(pins), tuple(epins)
    if len(pins) != CODE_LIMIT or len(epins) != CODE_LIMIT:
        raise ValueError(f"tables must have {CODE_LIMIT} entries")
    _pins, _epins = pins, epins


def objects(epin: bool) -> tuple[Any, ...]:
    """The registered objects of a notation, indexed by code."""
    if not _pins:
        raise RuntimeError("sashite_epin core used before its tables were registered")
    return _epins if epin else _pins
