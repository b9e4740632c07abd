"""The compact integer code of a token and its 5-byte record: the Python definition.

The C definition is the inline helpers of ``_core_c.pxd``; the compiled core refuses to
import if any constant here disagrees with its own.  See ``docs/design.md`` ("Codes and
records") for why the layout is what it is.

A code packs a token so that codes sort in FEEN's canonical hand order::

    bits 9..5  letter index, 0 (A) .. 25 (Z)
    bit  4     side: 0 first (uppercase), 1 second (lowercase)
    bits 3..2  rank: 0 diminished (-), 1 enhanced (+), 2 normal; 3 never occurs
    bit  1     terminal (^)
    bit  0     derived (') -- always 0 in a PIN code

The *rank* orders the states (``-`` before ``+`` before none); it is not the record's
``state`` field, which numbers them 0 normal, 1 enhanced, 2 diminished
(``state == 2 - rank``).

A record is five unsigned bytes ``letter, side, state, terminal, derived``: the
uppercase letter's ASCII code, side 0/1, state as above, 0/1, 0/1.  The zero record
stands for an entry marked invalid.
"""

from __future__ import annotations

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

LETTER_SHIFT: Final = 5
SIDE_SHIFT: Final = 4
RANK_SHIFT: Final = 2
TERMINAL_SHIFT: Final = 1
DERIVED_SHIFT: Final = 0

LETTER_MASK: Final = 31 << LETTER_SHIFT
SIDE_BIT: Final = 1 << SIDE_SHIFT
RANK_MASK: Final = 3 << RANK_SHIFT
TERMINAL_BIT: Final = 1 << TERMINAL_SHIFT
DERIVED_BIT: Final = 1 << DERIVED_SHIFT

RANK_DIMINISHED: Final = 0
RANK_ENHANCED: Final = 1
RANK_NORMAL: Final = 2

CODE_LIMIT: Final = 26 << LETTER_SHIFT  # 832
# No code: an empty square of a placement (the C API's scan_placement, Epin.boards), an
# entry marked invalid (record_code).  Below every code, and an int16 as boards hold it.
CODE_NONE: Final = -1

# The record's state field.
STATE_NORMAL: Final = 0
STATE_ENHANCED: Final = 1
STATE_DIMINISHED: Final = 2

# PEP 3118 format of one record: five named unsigned bytes.
RECORD_FORMAT: Final = "T{B:letter:B:side:B:state:B:terminal:B:derived:}"
RECORD_SIZE: Final = 5
RECORD_FIELDS: Final = ("letter", "side", "state", "terminal", "derived")

# Every constant the compiled core checks against its own at import.
AGREED: Final = {
    "CODE_LIMIT": CODE_LIMIT,
    "CODE_NONE": CODE_NONE,
    "LETTER_SHIFT": LETTER_SHIFT,
    "SIDE_SHIFT": SIDE_SHIFT,
    "RANK_SHIFT": RANK_SHIFT,
    "TERMINAL_SHIFT": TERMINAL_SHIFT,
    "DERIVED_SHIFT": DERIVED_SHIFT,
    "LETTER_MASK": LETTER_MASK,
    "SIDE_BIT": SIDE_BIT,
    "RANK_MASK": RANK_MASK,
    "TERMINAL_BIT": TERMINAL_BIT,
    "DERIVED_BIT": DERIVED_BIT,
    "RANK_DIMINISHED": RANK_DIMINISHED,
    "RANK_ENHANCED": RANK_ENHANCED,
    "RANK_NORMAL": RANK_NORMAL,
    "STATE_NORMAL": STATE_NORMAL,
    "STATE_ENHANCED": STATE_ENHANCED,
    "STATE_DIMINISHED": STATE_DIMINISHED,
    "RECORD_SIZE": RECORD_SIZE,
}


def compose(index: int, second: int, rank: int, terminal: int, derived: int) -> int:
    """Pack attribute numbers (already validated) into a code."""
    return (
        (index << LETTER_SHIFT)
        | (second << SIDE_SHIFT)
        | (rank << RANK_SHIFT)
        | (terminal << TERMINAL_SHIFT)
        | (derived << DERIVED_SHIFT)
    )


def decompose(code: int) -> tuple[int, int, int, int, int]:
    """``(index, second, rank, terminal, derived)`` of a code: ``compose``'s inverse."""
    return (
        code >> LETTER_SHIFT,
        (code >> SIDE_SHIFT) & 1,
        (code & RANK_MASK) >> RANK_SHIFT,
        (code >> TERMINAL_SHIFT) & 1,
        (code >> DERIVED_SHIFT) & 1,
    )


def is_code(code: int) -> bool:
    """Whether ``code`` is the code of some EPIN token."""
    return 0 <= code < CODE_LIMIT and (code & RANK_MASK) != RANK_MASK


def all_codes(derived: bool = True) -> list[int]:
    """Every valid code in increasing (= canonical) order; PIN codes when not derived."""
    step = 1 if derived else 2
    return [c for c in range(0, CODE_LIMIT, step) if c & RANK_MASK != RANK_MASK]  # is_code


def state_of_rank(rank: int) -> int:
    """The record's state number of a rank (the numbering runs the other way)."""
    return RANK_NORMAL - rank


def rank_of_state(state: int) -> int:
    """The rank of a record's state number."""
    return RANK_NORMAL - state


def record_of_code(code: int) -> bytes:
    """The 5-byte record of a valid code."""
    index, second, rank, terminal, derived = decompose(code)
    return bytes((65 + index, second, state_of_rank(rank), terminal, derived))


def code_of_record(record: bytes) -> int:
    """The code of a record; -1 for the zero record of an invalid (marked) entry.  Not
    a check: a record that no code has gives a number ``record_of_code`` disagrees with."""
    letter, second, state, terminal, derived = record[:RECORD_SIZE]
    if letter == 0:
        return -1
    return compose(letter - 65, second, rank_of_state(state), terminal, derived)
