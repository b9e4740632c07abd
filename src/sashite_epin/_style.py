"""Style resolution: the context-level step EPIN leaves to its users (EPIN 1.0.0 §7.3,
and the old style-resolution page: native -> the piece's own side's native style,
derived -> the opposite side's).  Parsing never applies it; a caller asks for it with
the match's native styles in hand."""

from __future__ import annotations

from typing import Generic, NoReturn, TypeVar, final

from ._enums import Side, member
from ._epin import Epin
from ._pin import Pin

StyleT = TypeVar("StyleT")


@final
class NativeStyles(Generic[StyleT]):
    """The native style of each side of one match.  Styles are whatever the context
    uses (names such as ``"chess"``, SIN letters, objects); they are compared with
    ``==`` and never interpreted.

    >>> styles = NativeStyles(first="chess", second="shogi")
    >>> styles.resolve(Epin.parse("K^")), styles.resolve(Epin.parse("p'"))
    ('chess', 'chess')
    """

    __slots__ = {
        "first": "The native style of the first side (uppercase letters).",
        "second": "The native style of the second side (lowercase letters).",
    }

    first: StyleT
    second: StyleT

    def __init__(self, first: StyleT, second: StyleT) -> None:
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)

    def of_side(self, side: Side | str) -> StyleT:
        """The native style of a side."""
        return self.second if member(Side, side, "side") is Side.SECOND else self.first

    def resolve(self, piece: Epin) -> StyleT:
        """The concrete style of a piece: its side's native style when the piece is
        native, the opposite side's when it is derived."""
        if type(piece) is not Epin:
            raise TypeError(f"piece must be an Epin, not {type(piece).__name__}")
        second = piece.pin.is_second ^ piece.is_derived
        return self.second if second else self.first

    def epin(self, pin: Pin, style: StyleT) -> Epin:
        """The Epin of a piece of concrete ``style``: derived exactly when ``style`` is
        not its side's native style.  When both sides share a native style the piece is
        native (no marker): P and P' then mean the same piece.  ValueError for a style
        that is neither side's."""
        if type(pin) is not Pin:
            raise TypeError(f"pin must be a Pin, not {type(pin).__name__}")
        own = self.of_side(pin.side)
        if style == own:
            return Epin(pin)
        if style == (self.first if pin.is_second else self.second):
            return Epin(pin, True)
        raise ValueError(f"style {style!a} is neither side's native style")

    def __eq__(self, other: object) -> bool:
        if type(other) is not NativeStyles:
            return NotImplemented
        return (self.first, self.second) == (other.first, other.second)

    def __hash__(self) -> int:
        return hash((NativeStyles, self.first, self.second))

    def __repr__(self) -> str:
        return f"NativeStyles(first={self.first!r}, second={self.second!r})"

    def __reduce__(self) -> tuple[type[NativeStyles[StyleT]], tuple[StyleT, StyleT]]:
        # Rebuilt by the constructor: the default pickling sets each slot by setattr,
        # which an immutable object refuses (copy and deepcopy pickle the same way).
        return (NativeStyles, (self.first, self.second))

    def __setattr__(self, *_: object) -> NoReturn:
        raise AttributeError("NativeStyles objects are immutable")

    __delattr__ = __setattr__


NativeStyles.__module__ = "sashite_epin"  # documented and pickled under the package's name
