"""Pin: the value object of a PIN token.  Its 312 instances are built once, at import,
from the core's formatting of every code; every way of getting a Pin returns one of
them, so ``is`` and ``==`` agree and equality is identity."""

from __future__ import annotations

# operator.index, from the C module the operator module wraps: importing operator itself
# would cost more than this module.
from _operator import index as operator_index

from . import _boards, _tables
from ._boards import Boards
from ._core import TokenArray, core
from ._layout import (
    CODE_LIMIT,
    LETTER_SHIFT,
    RANK_DIMINISHED,
    RANK_ENHANCED,
    RANK_MASK,
    RANK_NORMAL,
    RANK_SHIFT,
    SIDE_BIT,
    TERMINAL_BIT,
    all_codes,
    compose,
)
from ._token import Token, final

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Literal

    from ._enums import Side, State

_PREFIX: Final = {RANK_DIMINISHED: "-", RANK_ENHANCED: "+", RANK_NORMAL: ""}


def as_static(function: Any) -> Any:
    """A core function as a class attribute that is called without binding (a builtin
    function, type(len), never binds; the types module would cost an import)."""
    return function if isinstance(function, type(len)) else staticmethod(function)


def abbr_index(abbr: object) -> int:
    """0..25 for "A".."Z"; TypeError / ValueError for anything else."""
    if not isinstance(abbr, str):
        raise TypeError(f"abbr must be str, not {type(abbr).__name__}")
    if str.__len__(abbr) != 1 or not 65 <= ord(abbr) <= 90:
        raise ValueError(f"abbr must be one letter 'A'..'Z', not {str.__repr__(abbr)}")
    return ord(abbr) - 65


# Side and State are enums, imported when first needed (see _enums.py): by these
# functions, or by the first read of a Pin's side or state (Pin.__getattr__).
def side_bit(side: object) -> int:
    """0 for the first side, 1 for the second; TypeError / ValueError otherwise."""
    from ._enums import Side, member

    return 1 if member(Side, side, "side") is Side.SECOND else 0


def state_rank(state: object) -> int:
    from ._enums import State, member

    fill_sides_and_states()
    return STATE_OF.index(member(State, state, "state"))


STATE_OF: list[State] = []  # by rank, set with the Pins' sides and states
FILLED: list[bool] = []  # [True] once every Pin has its side and state


def fill_sides_and_states() -> None:
    """Set side and state on every Pin, once.  Two threads may both set them (the
    values are the same); FILLED says so only when all are set."""
    from ._enums import Side, State

    if FILLED:
        return
    ranked = {
        RANK_DIMINISHED: State.DIMINISHED,
        RANK_ENHANCED: State.ENHANCED,
        RANK_NORMAL: State.NORMAL,
    }
    states = [ranked[rank] for rank in range(len(ranked))]
    pins = [pin for pin in _PINS if pin is not None]
    sides = [Side.SECOND if pin.code & SIDE_BIT else Side.FIRST for pin in pins]
    any(map(Pin.__dict__["side"].__set__, pins, sides))
    rank_of = [(pin.code & RANK_MASK) >> RANK_SHIFT for pin in pins]
    any(map(Pin.__dict__["state"].__set__, pins, [states[rank] for rank in rank_of]))
    STATE_OF[:] = states
    FILLED[:] = [True]


def real_bool(value: object, name: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{name} must be True or False (a bool), not {type(value).__name__}")
    return value


def table_index(code: object, table: tuple[Any, ...], what: str) -> int:
    """A code as an int that names an entry of ``table``; TypeError / ValueError."""
    if isinstance(code, bool):
        raise TypeError(f"{what} code must be an int, not bool")
    value = operator_index(code)  # type: ignore[arg-type]  # TypeError if not integral
    if not 0 <= value < CODE_LIMIT or table[value] is None:
        raise ValueError(f"no {what} has code {value!a}")
    return value


PARSE_MANY_DOC = """Parse many {notation} tokens at once into a TokenArray (records + objects).

``tokens``, one token per entry unless said otherwise:

- a list or tuple of str (fastest of the Python containers), any other iterable
  of str (read in chunks, never materialised whole);
- an Arrow string column: any object exporting the Arrow PyCapsule interface
  (pyarrow Array / ChunkedArray / one-column Table, polars Series, pandas
  Series with an Arrow-backed dtype, DuckDB and nanoarrow results), of type
  utf8, large_utf8, string_view or a dictionary of them, read in place;
- a 1-dimensional numpy array of dtype S, U, object or StringDType, or a
  pandas object Series;
- a bytes-like object (bytes, bytearray, memoryview, mmap) of tokens separated
  by runs of ASCII whitespace, as ``bytes.split()`` splits.

Missing values (None, NaN, pandas.NA, Arrow nulls) are invalid entries with the
reason "missing value"; any other non-str item is a TypeError naming its index, a
column whose dtype holds no strings (a pandas int64 Series) a TypeError naming it.
``errors="raise"``: the first invalid entry raises ParseError with ``.index``
(and for bytes input ``.position``, its byte offset, and ``.line``);
``errors="mark"``: invalid entries are kept as zero records (``None`` when
indexed), their indices are in ``result.invalid`` and ``result.errors()``
keeps what each one was.

A pandas Series, Index or one-column DataFrame keeps its index: ``result.labels``,
the rows of ``to_pandas()``, and ``ParseError.label`` beside ``.index``.
"""


TOKENIZE_MANY_DOC = """The {notation} tokens of many texts at once (a column of FEEN placements,
one position a row), in order, as one TokenArray: what ``{kind}.tokenize`` gives for
each text, without a Python object per token.

``texts``: a list or tuple of str (fastest), or any container of texts parse_many
reads: a pandas Series, Index or one-column DataFrame or their arrays (Categorical
too), an Arrow string column (pyarrow, polars, DuckDB), a numpy array of dtype U,
object or StringDType, any iterable of str.  None, NaN and pandas.NA are missing rows:
they hold no token (``missing_rows`` lists them).  A column of anything but strings
(bytes too) is a TypeError naming its dtype.

The result says where each token came from: ``offsets`` (its character offset in its
text, as ``tokenize`` counts), ``rows`` (its text's number) and ``row_offsets`` (per
text, Arrow-style: text i's tokens are entries ``row_offsets[i]`` up to
``row_offsets[i + 1]``), each an array('q').  What lies between tokens is not read.
``errors="raise"``: a text ``tokenize`` refuses raises its ParseError with ``.index``
(the row) and ``.position`` (the offset); ``errors="mark"``: that row holds one entry
marked invalid instead of its tokens, at that offset, with its reason in
``errors()``, which names it by its row too (``.index`` and ``.row``; the entry is in
``invalid``).  ``strict=True`` refuses a text as ``{kind}.tokenize(text, strict=True)``
does: also where a character stands between tokens that FEEN's piece placement does
not allow there (anything but a digit or ``/``: whitespace, a line break, a comma, a
non-ASCII letter).  A pandas input's index labels each token with its row's label.
"""

BOARDS_DOC = """The boards of many FEEN piece placements at once (a column of positions, one
a row), read strictly in {notation} as FEEN writes them: tokens, a decimal count of
empty squares, ``/`` between ranks and ``//`` between layers, nothing else.  A Boards
whose ``squares()`` is a 2-D numpy int16 array, one row a text, its squares in text
order (the token's code, CODE_NONE for an empty square and for the padding past a
shorter board); ``rank_lengths()``, ``separators()`` and ``rank_offsets()`` give each
row's shape, ``placements()`` the texts back.

``texts``: every container tokenize_many reads (a list or tuple of str, fastest; a
pandas, Arrow or numpy column; any iterable of str).  A board holds at most 65536
squares.  ``errors="raise"``: a text that is no placement, or a missing row (None, NaN,
pandas.NA, a null), raises its ParseError with ``.index`` (the row), ``.position``
(the character offset) and ``.reason``; ``errors="mark"``: that row has no square (all
CODE_NONE) and no rank, and ``errors()`` lists it (a missing row: Reason.MISSING).
"""


@final
class Pin(Token):
    """A PIN token: abbreviation, side, state and terminal status (PIN 1.0.0)."""

    __slots__ = {
        "_ascii": "The token as ASCII bytes.",
        "_token": "The token as a str.",
        "abbr": 'The abbreviation, the letter in uppercase: ``"A"`` to ``"Z"``.',
        "code": "The compact code (0..CODE_LIMIT-1), in FEEN's canonical order.",
        "is_terminal": "Whether the piece is terminal (``^``).",
        "letter": "The letter as written, its case giving the side.",
        "side": "The Side: FIRST for an uppercase letter, SECOND for a lowercase one.",
        "state": "The State: NORMAL, ENHANCED (``+``) or DIMINISHED (``-``).",
    }

    abbr: str
    side: Side
    state: State
    is_terminal: bool
    letter: str
    code: int
    _token: str
    _ascii: bytes

    def __new__(
        cls,
        abbr: str,
        side: Side | str = "first",
        state: State | str = "normal",
        terminal: bool = False,
    ) -> Pin:
        code = compose(
            abbr_index(abbr),
            side_bit(side),
            state_rank(state),
            real_bool(terminal, "terminal"),
            0,
        )
        return _PINS[code]  # type: ignore[no-any-return]

    # -- parsing: the core's functions themselves (their docstrings are the contracts
    # help() shows); the stubs give type checkers the Pin-typed signatures.
    if TYPE_CHECKING:

        @staticmethod
        def parse(s: str) -> Pin: ...
        @staticmethod
        def safe_parse(s: object) -> Pin | None: ...
        @staticmethod
        def is_valid(s: object) -> bool: ...
        @staticmethod
        def scan(s: str, pos: int = 0) -> tuple[Pin, int]: ...
        @staticmethod
        def tokenize(s: str, *, strict: bool = False) -> list[Pin | str]: ...

    else:
        # Builtins (compiled core) are not descriptors: stored bare, they are called with
        # no binding step; the twin's plain functions need staticmethod.
        parse = as_static(core.parse_pin)
        safe_parse = as_static(core.safe_parse_pin)
        is_valid = as_static(core.is_valid_pin)
        scan = as_static(core.scan_pin)
        tokenize = as_static(core.tokenize_pin)

    @staticmethod
    def parse_many(tokens: object, *, errors: Literal["raise", "mark"] = "raise") -> TokenArray:
        # The docstring is PARSE_MANY_DOC's, set below: Epin's says the same for EPIN.
        return _tables.parse_many(tokens, False, errors)

    @staticmethod
    def tokenize_many(
        texts: object, *, errors: Literal["raise", "mark"] = "raise", strict: bool = False
    ) -> TokenArray:
        # The docstring is TOKENIZE_MANY_DOC's, set below: Epin's says the same for EPIN.
        return _tables.tokenize_many(texts, False, errors, strict)

    @staticmethod
    def boards(texts: object, *, errors: str = "raise") -> Boards:
        # The docstring is BOARDS_DOC's, set below.
        return _boards.boards(texts, False, errors)

    @staticmethod
    def from_codes(codes: object) -> TokenArray:
        """A TokenArray of the Pins whose codes these are (what ``TokenArray.codes()``
        gives, or any iterable of ints); CODE_NONE (-1) marks an entry invalid (0xFFFF too)."""
        return core.from_codes(codes, False)

    @staticmethod
    def from_code(code: int) -> Pin:
        """The Pin whose ``code`` this is; ValueError for a code no Pin has."""
        return _PINS[table_index(code, _PINS, "PIN")]  # type: ignore[no-any-return]

    # -- accessors ----------------------------------------------------------------
    @property
    def prefix(self) -> str:
        """The state modifier as written: ``"+"``, ``"-"`` or ``""``."""
        return _PREFIX[(self.code & RANK_MASK) >> RANK_SHIFT]

    @property
    def suffix(self) -> str:
        """The terminal marker as written: ``"^"`` or ``""``."""
        return "^" if self.code & TERMINAL_BIT else ""

    @property
    def is_normal(self) -> bool:
        """Whether the state is normal (no modifier)."""
        return (self.code & RANK_MASK) >> RANK_SHIFT == RANK_NORMAL

    @property
    def is_enhanced(self) -> bool:
        """Whether the state is enhanced (``+``)."""
        return (self.code & RANK_MASK) >> RANK_SHIFT == RANK_ENHANCED

    @property
    def is_diminished(self) -> bool:
        """Whether the state is diminished (``-``)."""
        return (self.code & RANK_MASK) >> RANK_SHIFT == RANK_DIMINISHED

    @property
    def is_first(self) -> bool:
        """Whether the piece belongs to the first side (uppercase letter)."""
        return not self.code & SIDE_BIT

    @property
    def is_second(self) -> bool:
        """Whether the piece belongs to the second side (lowercase letter)."""
        return bool(self.code & SIDE_BIT)

    # -- transformations: new codes, the same interned objects ----------------------
    def _with_rank(self, rank: int) -> Pin:
        return _PINS[(self.code & ~RANK_MASK) | (rank << RANK_SHIFT)]  # type: ignore[no-any-return]

    def enhance(self) -> Pin:
        """The same piece in the enhanced state (``+``)."""
        return self._with_rank(RANK_ENHANCED)

    def diminish(self) -> Pin:
        """The same piece in the diminished state (``-``)."""
        return self._with_rank(RANK_DIMINISHED)

    def normalize(self) -> Pin:
        """The same piece in the normal state (no modifier)."""
        return self._with_rank(RANK_NORMAL)

    def flip(self) -> Pin:
        """The same piece for the other side (the letter's case swapped)."""
        return _PINS[self.code ^ SIDE_BIT]  # type: ignore[no-any-return]

    def terminal(self) -> Pin:
        """The same piece, terminal (``^``)."""
        return _PINS[self.code | TERMINAL_BIT]  # type: ignore[no-any-return]

    def non_terminal(self) -> Pin:
        """The same piece, not terminal."""
        return _PINS[self.code & ~TERMINAL_BIT]  # type: ignore[no-any-return]

    def with_abbr(self, abbr: str) -> Pin:
        """The same attributes with another abbreviation, ``"A"`` to ``"Z"``."""
        return _PINS[(self.code & ~(-1 << LETTER_SHIFT)) | (abbr_index(abbr) << LETTER_SHIFT)]  # type: ignore[no-any-return]

    def with_side(self, side: Side | str) -> Pin:
        """The same piece for ``side`` (a Side or its value)."""
        return _PINS[(self.code & ~SIDE_BIT) | (side_bit(side) * SIDE_BIT)]  # type: ignore[no-any-return]

    def with_state(self, state: State | str) -> Pin:
        """The same piece in ``state`` (a State or its value)."""
        return self._with_rank(state_rank(state))

    def with_terminal(self, terminal: bool) -> Pin:
        """The same piece, terminal or not (``terminal`` must be a bool)."""
        if real_bool(terminal, "terminal"):
            return self.terminal()
        return self.non_terminal()

    # -- comparisons of one attribute -----------------------------------------------
    def same_abbr(self, other: Pin) -> bool:
        """Whether ``other`` has the same abbreviation."""
        return self.abbr == other.abbr

    def same_side(self, other: Pin) -> bool:
        """Whether ``other`` belongs to the same side."""
        return not (self.code ^ other.code) & SIDE_BIT

    def same_state(self, other: Pin) -> bool:
        """Whether ``other`` is in the same state."""
        return not (self.code ^ other.code) & RANK_MASK

    def same_terminal(self, other: Pin) -> bool:
        """Whether ``other`` has the same terminal status."""
        return self.is_terminal is other.is_terminal

    # -- the object protocol ----------------------------------------------------------
    if not TYPE_CHECKING:  # type checkers would take every attribute for one

        def __getattr__(self, name):
            # Only called when an attribute is missing: side and state are set on every
            # Pin the first time one is read (their enums are imported then).
            if name in ("side", "state"):
                fill_sides_and_states()  # (or another thread has just done it)
                return object.__getattribute__(self, name)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"Pin({self._token!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Pin.from_code, (self.code,))


Pin.parse_many.__doc__ = PARSE_MANY_DOC.format(notation="PIN")
Pin.tokenize_many.__doc__ = TOKENIZE_MANY_DOC.format(notation="PIN", kind="Pin")
Pin.boards.__doc__ = BOARDS_DOC.format(notation="PIN")


def fill_slots(cls: type, codes: list[int], columns: dict[str, list[Any]]) -> tuple[Any, ...]:
    """The table of interned objects of ``cls``: one per code, its slots set column by
    column through their descriptors (the import builds 936 objects: a loop of
    ``object.__setattr__`` calls took three times as long), None between the codes."""
    objects: list[Any] = list(map(object.__new__, [cls] * len(codes)))
    for name, values in columns.items():
        any(map(cls.__dict__[name].__set__, objects, values))  # __set__ returns None
    table: list[Any] = [None] * CODE_LIMIT
    for code, made in zip(codes, objects, strict=True):
        table[code] = made
    return tuple(table)


def _build() -> tuple[Any, ...]:  # Pin at every code, None between
    # Read from the code's bits directly: this runs at import, and a decompose() tuple
    # per code cost a third of it.
    codes = all_codes(derived=False)
    tokens = [core.format_code(code) for code in codes]
    return fill_slots(
        Pin,
        codes,
        {
            "abbr": [chr(65 + (code >> LETTER_SHIFT)) for code in codes],
            "is_terminal": [bool(code & TERMINAL_BIT) for code in codes],
            "letter": [
                chr((97 if code & SIDE_BIT else 65) + (code >> LETTER_SHIFT)) for code in codes
            ],
            "code": codes,
            "_token": tokens,
            "_ascii": [token.encode("ascii") for token in tokens],
        },
    )


_PINS: Final = _build()
