"""Epin: the value object of an EPIN token, a Pin plus the derivation flag.  Its 624
instances are built once, at import; every way of getting an Epin returns one of them."""

from __future__ import annotations

from . import _boards, _tables
from ._boards import Boards
from ._core import TokenArray, core
from ._layout import DERIVED_BIT, all_codes
from ._pin import (
    _PINS,
    BOARDS_DOC,
    PARSE_MANY_DOC,
    TOKENIZE_MANY_DOC,
    Pin,
    as_static,
    fill_slots,
    real_bool,
    table_index,
)
from ._token import Token, final

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Literal


@final
class Epin(Token):
    """An EPIN token: a PIN token and whether the piece's style is derived (EPIN 1.0.0)."""

    __slots__ = {
        "_ascii": "The token as ASCII bytes.",
        "_token": "The token as a str.",
        "code": "The compact code (0..CODE_LIMIT-1), in FEEN's canonical order.",
        "is_derived": "Whether the piece's style is derived (``'``), not native.",
        "pin": "The Pin component: abbreviation, side, state, terminal status.",
    }

    pin: Pin
    is_derived: bool
    code: int
    _token: str
    _ascii: bytes

    def __new__(cls, pin: Pin, derived: bool = False) -> Epin:
        if type(pin) is not Pin:
            raise TypeError(f"pin must be a Pin, not {type(pin).__name__}")
        return _EPINS[pin.code | real_bool(derived, "derived")]  # type: ignore[no-any-return]

    # -- parsing: the core's functions themselves (see Pin) ---------------------------
    if TYPE_CHECKING:

        @staticmethod
        def parse(s: str) -> Epin: ...
        @staticmethod
        def safe_parse(s: object) -> Epin | None: ...
        @staticmethod
        def is_valid(s: object) -> bool: ...
        @staticmethod
        def scan(s: str, pos: int = 0) -> tuple[Epin, int]: ...
        @staticmethod
        def tokenize(s: str, *, strict: bool = False) -> list[Epin | str]: ...

    else:
        parse = as_static(core.parse_epin)
        safe_parse = as_static(core.safe_parse_epin)
        is_valid = as_static(core.is_valid_epin)
        scan = as_static(core.scan_epin)
        tokenize = as_static(core.tokenize_epin)

    @staticmethod
    def parse_many(tokens: object, *, errors: Literal["raise", "mark"] = "raise") -> TokenArray:
        # The docstring is PARSE_MANY_DOC's, set below.
        return _tables.parse_many(tokens, True, errors)

    @staticmethod
    def tokenize_many(
        texts: object, *, errors: Literal["raise", "mark"] = "raise", strict: bool = False
    ) -> TokenArray:
        # The docstring is TOKENIZE_MANY_DOC's, set below.
        return _tables.tokenize_many(texts, True, errors, strict)

    @staticmethod
    def boards(texts: object, *, errors: str = "raise") -> Boards:
        # The docstring is BOARDS_DOC's, set below.
        return _boards.boards(texts, True, errors)

    @staticmethod
    def from_codes(codes: object) -> TokenArray:
        """A TokenArray of the Epins whose codes these are (what ``TokenArray.codes()``
        gives, or any iterable of ints); CODE_NONE (-1) marks an entry invalid (0xFFFF too)."""
        return core.from_codes(codes, True)

    @staticmethod
    def from_code(code: int) -> Epin:
        """The Epin whose ``code`` this is; ValueError for a code no Epin has."""
        return _EPINS[table_index(code, _EPINS, "EPIN")]  # type: ignore[no-any-return]

    @property
    def is_native(self) -> bool:
        """Whether the piece's style is native (no derivation marker)."""
        return not self.is_derived

    # -- transformations (EPIN §9.3): idempotent, the same interned objects -----------
    def derive(self) -> Epin:
        """The same piece with a derived style (``'``)."""
        return _EPINS[self.code | DERIVED_BIT]  # type: ignore[no-any-return]

    def native(self) -> Epin:
        """The same piece with its native style (no marker)."""
        return _EPINS[self.code & ~DERIVED_BIT]  # type: ignore[no-any-return]

    def with_pin(self, pin: Pin) -> Epin:
        """Another Pin component, the same derivation."""
        return Epin(pin, self.is_derived)

    def with_derived(self, derived: bool) -> Epin:
        """The same Pin, derived or native (``derived`` must be a bool)."""
        return self.derive() if real_bool(derived, "derived") else self.native()

    def same_derived(self, other: Epin) -> bool:
        """Whether ``other`` has the same derivation status."""
        return self.is_derived is other.is_derived

    # -- the object protocol ------------------------------------------------------------
    def __repr__(self) -> str:
        return f"Epin({self._token!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Epin.from_code, (self.code,))


Epin.parse_many.__doc__ = PARSE_MANY_DOC.format(notation="EPIN")
Epin.tokenize_many.__doc__ = TOKENIZE_MANY_DOC.format(notation="EPIN", kind="Epin")
Epin.boards.__doc__ = BOARDS_DOC.format(notation="EPIN")


def _build() -> tuple[Any, ...]:  # Epin at every code, None between
    codes = all_codes(derived=True)
    tokens = [core.format_code(code) for code in codes]
    return fill_slots(
        Epin,
        codes,
        {
            "pin": [_PINS[code & ~DERIVED_BIT] for code in codes],
            "is_derived": [bool(code & DERIVED_BIT) for code in codes],
            "code": codes,
            "_token": tokens,
            "_ascii": [token.encode("ascii") for token in tokens],
        },
    )


_EPINS: Final = _build()
core.register(_PINS, _EPINS)
