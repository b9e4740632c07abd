"""The grammar and the scanning of one token, pure Python: the twin of ``_scan_c.pxi``.

A plain character scanner, written to be read rather than to be fast: it is the oracle
the compiled core's tables are tested against, so it shares nothing with them but the
reason numbers and the code layout (docs/design.md, "Why a twin").  Characters are
compared by code point, never with ``str.isalpha`` / ``isupper`` (which accept
non-ASCII letters).
"""

from __future__ import annotations

from . import _errors as reasons
from ._layout import RANK_DIMINISHED, RANK_ENHANCED, RANK_NORMAL, compose, decompose, is_code

# The characters a token is made of besides its letter: what tokenize does not pass over.
MARKERS = {False: frozenset("+-^"), True: frozenset("+-^'")}
PREFIXES = {RANK_DIMINISHED: "-", RANK_ENHANCED: "+", RANK_NORMAL: ""}


def is_letter(char: str) -> bool:
    return "A" <= char <= "Z" or "a" <= char <= "z"


def in_alphabet(char: str, epin: bool) -> bool:
    """Whether ``char`` can be part of a token of the notation."""
    return is_letter(char) or char in MARKERS[epin]


def misplaced(char: str, epin: bool, at_letter: bool) -> int:
    """The reason for ``char`` standing where the grammar does not allow it."""
    if char == "+" or char == "-":
        return reasons.STATE_MODIFIER
    if char == "^":
        return reasons.TERMINAL_MARKER
    if epin and char == "'":
        return reasons.DERIVATION_MARKER
    if at_letter or is_letter(char):
        return reasons.ONE_LETTER
    return reasons.UNEXPECTED


def scan(s: str, epin: bool) -> int:
    """The code of the whole token ``s`` (an exact str), or minus the reason it is not
    one."""
    n = len(s)
    if n == 0:
        return -reasons.EMPTY
    if n > (4 if epin else 3):
        return -reasons.TOO_LONG
    i = 0
    rank = RANK_NORMAL
    if s[0] == "+":
        rank, i = RANK_ENHANCED, 1
    elif s[0] == "-":
        rank, i = RANK_DIMINISHED, 1
    if i == n:
        return -reasons.ONE_LETTER
    char = s[i]
    if "A" <= char <= "Z":
        second, index = 0, ord(char) - 65
    elif "a" <= char <= "z":
        second, index = 1, ord(char) - 97
    else:
        return -misplaced(char, epin, at_letter=True)
    i += 1
    terminal = derived = 0
    if i < n and s[i] == "^":
        terminal, i = 1, i + 1
    if epin and i < n and s[i] == "'":
        derived, i = 1, i + 1
    if i < n:
        return -misplaced(s[i], epin, at_letter=False)
    return compose(index, second, rank, terminal, derived)


def scan_prefix(s: str, pos: int, epin: bool) -> tuple[int, int]:
    """Greedy scan of the token starting at ``s[pos]``: ``(code, length)``, or
    ``(-reason, 0)``.  The longest prefix that is a whole token, found with ``scan``,
    so it can never disagree with single-token parsing."""
    if pos >= len(s):
        return -reasons.EMPTY, 0
    for length in range(min(len(s) - pos, 4 if epin else 3), 0, -1):
        code = scan(s[pos : pos + length], epin)
        if code >= 0:
            return code, length
    slot = 2 if s[pos] in "+-" else 1  # the letter slot decides the reason
    return scan(s[pos : pos + slot], epin), 0


def format_code(code: int) -> str:
    """The EPIN token of a code (a PIN code gives its PIN token); ValueError if invalid."""
    if not isinstance(code, int) or not is_code(code):
        raise ValueError(f"not a token code: {code!r}")
    index, second, rank, terminal, derived = decompose(code)
    return (
        PREFIXES[rank]
        + chr((97 if second else 65) + index)
        + ("^" if terminal else "")
        + ("'" if derived else "")
    )
