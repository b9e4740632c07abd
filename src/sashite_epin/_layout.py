"""The compact integer code of a token and the 5-byte record: their layout, in one place.

A code packs a token's attributes so that codes sort in FEEN's canonical order for
hand items (by letter; uppercase before lowercase; ``-`` before ``+`` before none;
non-terminal before terminal; native before derived)::

    bits 9..5  letter index, 0 (A) .. 25 (Z)
    bit  4     side: 0 first (uppercase), 1 second (lowercase)
    bits 3..2  state rank: 0 diminished (-), 1 enhanced (+), 2 normal; 3 never occurs
    bit  1     terminal (^)
    bit  0     derived (') -- always 0 in a PIN code

Every code is below ``CODE_LIMIT`` (832), so it can index a flat table. A PIN code is
the EPIN code of the same token without ``'``: ``epin.pin.code == epin.code & ~1``.

A record is five unsigned bytes, in the order ``letter, side, state, terminal,
derived``: the uppercase letter's ASCII code, 0/1 side, state 0 normal / 1 enhanced /
2 diminished, 0/1 terminal, 0/1 derived.  ``state == 2 - rank``.
"""

from __future__ import annotations

from typing import Final

LETTER_SHIFT: Final = 5
SIDE_BIT: Final = 0x10
RANK_SHIFT: Final = 2
RANK_MASK: Final = 0x0C
TERMINAL_BIT: Final = 0x02
DERIVED_BIT: Final = 0x01

RANK_DIMINISHED: Final = 0
RANK_ENHANCED: Final = 1
RANK_NORMAL: Final = 2

CODE_LIMIT: Final = 26 << LETTER_SHIFT  # 832

# Record field values for the state (the DESIGN "Records" numbering).
RECORD_STATE_NORMAL: Final = 0
RECORD_STATE_ENHANCED: Final = 1
RECORD_STATE_DIMINISHED: Final = 2

# PEP 3118 format of one record: five named unsigned bytes.
RECORD_FORMAT: Final = "T{B:letter:B:side:B:state:B:terminal:B:derived:}"
RECORD_SIZE: Final = 5
RECORD_FIELDS: Final = ("letter", "side", "state", "terminal", "derived")


def compose(index: int, second: int, rank: int, terminal: int, derived: int) -> int:
    """Pack attribute numbers (already validated) into a code."""
    return (
        (index << LETTER_SHIFT) | (second << 4) | (rank << RANK_SHIFT) | (terminal << 1) | derived
    )


def is_code(code: int) -> bool:
    """Whether ``code`` is the code of some EPIN token."""
    return 0 <= code < CODE_LIMIT and (code & RANK_MASK) != RANK_MASK


def all_codes(derived: bool = True) -> list[int]:
    """Every valid code in increasing (= canonical) order; PIN codes when not derived."""
    step = 1 if derived else 2
    return [c for c in range(0, CODE_LIMIT, step) if is_code(c)]
