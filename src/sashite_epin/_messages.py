"""The ways a string fails to be a token: their numbers (the C API's ``R_*``, what the
cores' scanners return the negative of) and their messages, in the specs' words
(PIN 1.0.0 §6.2, EPIN 1.0.0 §9.4).  Written here once: the Reason enum
(_reason.py), ParseError's messages and the C API's texts all read them."""

from __future__ import annotations

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# Reason's member of each name has it as its value.
EMPTY: Final = 1
TOO_LONG: Final = 2
LINE_BREAK: Final = 3
WHITESPACE: Final = 4
NOT_A_LETTER: Final = 5
MORE_THAN_ONE_LETTER: Final = 6
OTHER_CHARACTER: Final = 7
DERIVATION_IN_PIN: Final = 8
MULTIPLE_STATE_MODIFIERS: Final = 9
MODIFIER_NOT_FIRST: Final = 10
MULTIPLE_DERIVATION_MARKERS: Final = 11
DERIVATION_NOT_LAST: Final = 12
MULTIPLE_TERMINAL_MARKERS: Final = 13
TERMINAL_NOT_AFTER_LETTER: Final = 14
MISSING: Final = 15
# A FEEN piece placement's own faults (the C API's scan_placement / format_placement
# and Epin.boards): what lies between its tokens, and the caller's room.
EMPTY_RANK: Final = 16
LEADING_ZERO: Final = 17
TOO_MANY_SEPARATORS: Final = 18
RUN_TOO_LONG: Final = 19
NO_ROOM: Final = 20
NOT_A_CODE: Final = 21
# One more than the highest reason: a table of REASON_COUNT entries indexed by reason
# number holds every reason (entry 0: none).
REASON_COUNT: Final = 22

# The message of reason number n, at n - 1.
MESSAGES: Final = (
    "empty",
    "too long",
    "contains a line break",
    "whitespace",
    "not a letter",
    "more than one letter",
    "unexpected character",
    "derivation marker in a PIN token",
    "multiple state modifiers (only one modifier is allowed)",
    "modifier must be a prefix",
    "multiple derivation markers",
    "derivation marker must be last",
    "multiple terminal markers (only one marker is allowed)",
    "wrong order (terminal marker must be a suffix)",
    "missing value",
    "empty rank",
    "empty-square count with a leading zero",
    "more than two '/' in a row",
    "run of empty squares longer than the room",
    "more squares or ranks than the room",
    "not a token code",
)

# What a tokenize_many result whose rows or offsets were changed since is told (its
# selections, sums and exports refuse them).
LYING_LAYOUT = "a result's rows and offsets do not describe its entries"
