"""The grammar and the scanning of one token, pure Python: the twin of ``_scan_c.pxi``.

A plain character scanner, written to be read rather than to be fast: it is the oracle
the compiled core's tables are tested against, so it shares nothing with them but the
reason numbers and the code layout (docs/design.md, "Why a twin").  Characters are
compared by code point, never with ``str.isalpha`` / ``isupper`` (which accept
non-ASCII letters).
"""

from __future__ import annotations

from . import _messages as reasons
from ._layout import (
    RANK_DIMINISHED,
    RANK_ENHANCED,
    RANK_NORMAL,
    all_codes,
    compose,
    decompose,
    is_code,
)

# The characters a token is made of besides its letter: what tokenize does not pass over.
MARKERS = {False: frozenset("+-^"), True: frozenset("+-^'")}
PREFIXES = {RANK_DIMINISHED: "-", RANK_ENHANCED: "+", RANK_NORMAL: ""}


def is_letter(char: str) -> bool:
    return "A" <= char <= "Z" or "a" <= char <= "z"


def in_alphabet(char: str, epin: bool) -> bool:
    """Whether ``char`` can be part of a token of the notation."""
    return is_letter(char) or char in MARKERS[epin]


LINE_BREAKS = frozenset("\n\r")
SPACES = frozenset(" \t\x0b\x0c")


def reason_of(s: str, epin: bool, whole: bool = True) -> int:
    """The reason the non-empty ``s`` is not a token: the first rule it breaks, in the
    order Reason documents (``whole``: a whole token, whose length is checked first;
    otherwise the attempt at a token where scanning found none).  The reasons of short
    strings are remembered: a column repeats its few wrong tokens, and judging one
    costs twenty times looking it up."""
    if len(s) > _REMEMBERED_LENGTH:
        return _judge(s, epin, whole)
    key = (s, epin, whole)
    reason = _reasons.get(key)
    if reason is None:
        if len(_reasons) >= _REMEMBERED:
            _reasons.clear()
        reason = _reasons[key] = _judge(s, epin, whole)
    return reason


_REMEMBERED = 4096  # reasons at most, then forgotten all at once
_REMEMBERED_LENGTH = 16  # characters
_reasons: dict[tuple[str, bool, bool], int] = {}


def _judge(s: str, epin: bool, whole: bool) -> int:
    n = len(s)
    if n == 0:
        return reasons.EMPTY
    if whole and n > (4 if epin else 3):
        return reasons.TOO_LONG
    if any(c in LINE_BREAKS for c in s):
        return reasons.LINE_BREAK
    if any(c in SPACES for c in s):
        return reasons.WHITESPACE
    letters = [i for i, c in enumerate(s) if is_letter(c)]
    if not letters:
        return reasons.NOT_A_LETTER
    if len(letters) > 1:
        return reasons.MORE_THAN_ONE_LETTER
    if any(not is_letter(c) and c not in "+-^'" for c in s):
        return reasons.OTHER_CHARACTER
    if not epin and "'" in s:
        return reasons.DERIVATION_IN_PIN
    modifiers = [i for i, c in enumerate(s) if c in "+-"]
    apostrophes = [i for i, c in enumerate(s) if c == "'"]
    carets = [i for i, c in enumerate(s) if c == "^"]
    if len(modifiers) > 1:
        return reasons.MULTIPLE_STATE_MODIFIERS
    if modifiers and modifiers[0] != 0:
        return reasons.MODIFIER_NOT_FIRST
    if len(apostrophes) > 1:
        return reasons.MULTIPLE_DERIVATION_MARKERS
    if apostrophes and apostrophes[0] != n - 1:
        return reasons.DERIVATION_NOT_LAST
    if len(carets) > 1:
        return reasons.MULTIPLE_TERMINAL_MARKERS
    if carets and carets[0] != letters[0] + 1:
        return reasons.TERMINAL_NOT_AFTER_LETTER
    raise AssertionError(f"{s!r} breaks no rule: it is a token")


def attempt(s: str, pos: int, epin: bool) -> str:
    """What stands at ``s[pos]`` where scanning finds no token: the markers there, the
    letter after them if any and the markers after it (at most 8 characters), or the
    one character there if it belongs to no token."""
    end, i = min(len(s), pos + 8), pos
    while i < end and s[i] in MARKERS[epin]:
        i += 1
    if i < end and is_letter(s[i]):
        i += 1
        while i < end and s[i] in MARKERS[epin] - {"+", "-"}:
            i += 1
    return s[pos : max(i, pos + 1)]


def stray_reason(s: str, token_start: int, pos: int, epin: bool) -> int:
    """tokenize's reason for a "^" or "'" at ``pos`` right after the token that starts
    at ``token_start``: that token and the markers from ``pos`` judged together
    (``K^`` then ``^``: multiple terminal markers)."""
    end = pos
    while end < len(s) and s[end] in MARKERS[epin] - {"+", "-"}:
        end += 1
    return reason_of(s[token_start:end], epin, whole=False)


def between_reason(s: str, token_start: int, pos: int, epin: bool) -> int:
    """strict tokenize's reason for the character at ``pos``, which no token holds and
    FEEN does not allow between tokens (no digit, no "/"): that character judged alone
    (whitespace, line break, not a letter), except PIN's "'" right after the token
    that starts at ``token_start``, judged with it (derivation marker in a PIN token),
    as stray_reason judges a marker there."""
    if not epin and s[pos] == "'" and token_start >= 0:
        code, length = scan_prefix(s, token_start, epin)
        if code >= 0 and token_start + length == pos:
            return reason_of(s[token_start : pos + 1], epin, whole=False)
    return reason_of(s[pos], epin, whole=False)


def scan(s: str, epin: bool) -> int:
    """The code of the whole token ``s`` (an exact str), or minus the reason it is not
    one."""
    n = len(s)
    if n == 0 or n > (4 if epin else 3):
        return -reason_of(s, epin)
    i = 0
    rank = RANK_NORMAL
    if s[0] == "+":
        rank, i = RANK_ENHANCED, 1
    elif s[0] == "-":
        rank, i = RANK_DIMINISHED, 1
    if i == n:
        return -reason_of(s, epin)
    char = s[i]
    if "A" <= char <= "Z":
        second, index = 0, ord(char) - 65
    elif "a" <= char <= "z":
        second, index = 1, ord(char) - 97
    else:
        return -reason_of(s, epin)
    i += 1
    terminal = derived = 0
    if i < n and s[i] == "^":
        terminal, i = 1, i + 1
    if epin and i < n and s[i] == "'":
        derived, i = 1, i + 1
    if i < n:
        return -reason_of(s, epin)
    return compose(index, second, rank, terminal, derived)


def scan_prefix(s: str, pos: int, epin: bool) -> tuple[int, int]:
    """Greedy scan of the token starting at ``s[pos]``: ``(code, length)``, or
    ``(-reason, 0)``.  The longest prefix that is a whole token, looked up among the
    tokens ``scan`` accepts, so it can never disagree with single-token parsing; the
    reason, where none is, judged once."""
    if pos >= len(s):
        return -reasons.EMPTY, 0
    codes = _TOKEN_CODES[epin]
    for length in range(min(len(s) - pos, 4 if epin else 3), 0, -1):
        code = codes.get(s[pos : pos + length])
        if code is not None:
            return code, length
    return -reason_of(attempt(s, pos, epin), epin, whole=False), 0


def _token_codes(epin: bool) -> dict[str, int]:
    """Every token ``scan`` accepts and its code: the formatted codes, each scanned."""
    codes = {format_code(code): code for code in all_codes(epin)}
    assert all(scan(token, epin) == code for token, code in codes.items())
    return codes


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


_TOKEN_CODES = {epin: _token_codes(epin) for epin in (False, True)}
