# cython: language_level=3, embedsignature=True, binding=False
"""Compiled core: scans PIN / EPIN tokens byte by byte into integer codes.

This module is the single-token Python API on top of its parts, included below: the
grammar and its tables (_scan_c.pxi), the interned objects (_objects_c.pxi), the result
type (_array_c.pxi), the bulk readers (_bulk_c.pxi) and back-to-back scanning
(_text_c.pxi).  The pure-Python twin _core_py.py has the same parts as modules, the
same public names (those of _core_c.pyi) and the same docstrings; the tests prove that
both give the same results and reasons.  The grammar, the tables and the code layout
are described once, in docs/design.md.
"""

cimport cython

from sashite_epin import _errors, _layout, _marks, _messages
from sashite_epin._errors import ParseError as _ParseError
from sashite_epin._errors import reason_text as _reason_text

IMPLEMENTATION = "cython"

include "_scan_c.pxi"
include "_placement_c.pxi"
include "_objects_c.pxi"


# The reason numbers and the code layout are defined twice, here in C (_core_c.pxd)
# and in Python (_errors, _layout): a disagreement must not import.
cdef dict c_layout():
    return {
        "CODE_LIMIT": CODE_LIMIT, "CODE_NONE": CODE_NONE, "LETTER_SHIFT": LETTER_SHIFT,
        "SIDE_SHIFT": SIDE_SHIFT,
        "RANK_SHIFT": RANK_SHIFT, "TERMINAL_SHIFT": TERMINAL_SHIFT,
        "DERIVED_SHIFT": DERIVED_SHIFT, "LETTER_MASK": LETTER_MASK, "SIDE_BIT": SIDE_BIT,
        "RANK_MASK": RANK_MASK,
        "TERMINAL_BIT": TERMINAL_BIT, "DERIVED_BIT": DERIVED_BIT,
        "RANK_DIMINISHED": RANK_DIMINISHED, "RANK_ENHANCED": RANK_ENHANCED,
        "RANK_NORMAL": RANK_NORMAL, "STATE_NORMAL": STATE_NORMAL,
        "STATE_ENHANCED": STATE_ENHANCED, "STATE_DIMINISHED": STATE_DIMINISHED,
        "RECORD_SIZE": RECORD_SIZE,
    }


if c_layout() != _layout.AGREED:
    raise ImportError("sashite_epin._core_c: the code layout disagrees with _layout.py")
if ((R_EMPTY, R_TOO_LONG, R_LINE_BREAK, R_WHITESPACE, R_NOT_A_LETTER, R_MORE_THAN_ONE_LETTER,
     R_OTHER_CHARACTER, R_DERIVATION_IN_PIN, R_MULTIPLE_STATE_MODIFIERS, R_MODIFIER_NOT_FIRST,
     R_MULTIPLE_DERIVATION_MARKERS, R_DERIVATION_NOT_LAST, R_MULTIPLE_TERMINAL_MARKERS,
     R_TERMINAL_NOT_AFTER_LETTER, R_MISSING, R_EMPTY_RANK, R_LEADING_ZERO,
     R_TOO_MANY_SEPARATORS, R_RUN_TOO_LONG, R_NO_ROOM, R_NOT_A_CODE, R_COUNT, PIN_MAX_LENGTH,
     EPIN_MAX_LENGTH, PIN_TOKEN_COUNT, EPIN_TOKEN_COUNT)
        != (_messages.EMPTY, _messages.TOO_LONG, _messages.LINE_BREAK,
            _messages.WHITESPACE, _messages.NOT_A_LETTER, _messages.MORE_THAN_ONE_LETTER,
            _messages.OTHER_CHARACTER, _messages.DERIVATION_IN_PIN,
            _messages.MULTIPLE_STATE_MODIFIERS, _messages.MODIFIER_NOT_FIRST,
            _messages.MULTIPLE_DERIVATION_MARKERS, _messages.DERIVATION_NOT_LAST,
            _messages.MULTIPLE_TERMINAL_MARKERS, _messages.TERMINAL_NOT_AFTER_LETTER,
            _messages.MISSING, _messages.EMPTY_RANK, _messages.LEADING_ZERO,
            _messages.TOO_MANY_SEPARATORS, _messages.RUN_TOO_LONG, _messages.NO_ROOM,
            _messages.NOT_A_CODE,
            _messages.REASON_COUNT,
            _errors.PIN_MAX_LENGTH, _errors.EPIN_MAX_LENGTH, _errors.PIN_TOKEN_COUNT,
            _errors.EPIN_TOKEN_COUNT)):
    raise ImportError("sashite_epin._core_c: reason identifiers disagree with _messages.py")


# The reason texts for C callers, encoded once from _messages, where they are written.
cdef const char* c_reason_texts[2][R_COUNT]
cdef list kept_reason_texts = []  # owns the bytes c_reason_texts points into


cdef void fill_reason_texts() except *:
    cdef bytes text
    for epin in range(2):
        for reason in range(1, R_COUNT):
            text = _messages.MESSAGES[reason - 1].encode("ascii")
            kept_reason_texts.append(text)
            c_reason_texts[epin][reason] = text


fill_reason_texts()


cdef const char* reason_text(int reason, bint epin) noexcept nogil:
    if reason < 0:
        reason = -reason
    if reason >= R_COUNT:
        return NULL
    return c_reason_texts[1 if epin else 0][reason]


cdef str notation_of(bint epin):
    return "EPIN" if epin else "PIN"


cdef int checked_code(object s, bint epin) except -1:
    cdef int code
    if not isinstance(s, str):
        raise TypeError(f"{notation_of(epin)} token must be str, not {type(s).__name__}")
    code = scan_str(s, epin)
    if code < 0:
        raise _ParseError(s, _reason_text(-code, notation_of(epin)), notation_of(epin))
    return code


def pin_code(s):
    """The code of a PIN token; TypeError for a non-str, ParseError when invalid."""
    return checked_code(s, False)


def epin_code(s):
    """The code of an EPIN token; TypeError for a non-str, ParseError when invalid."""
    return checked_code(s, True)


def parse_pin(s):
    """The Pin of a PIN token: ParseError (a ValueError) if ``s`` is not one, TypeError
    if it is not a str."""
    return table_object(checked_code(s, False), False)


def parse_epin(s):
    """The Epin of an EPIN token: ParseError (a ValueError) if ``s`` is not one,
    TypeError if it is not a str."""
    return table_object(checked_code(s, True), True)


def safe_parse_pin(s):
    """The Pin of a PIN token, or None for anything else; never raises."""
    cdef int code
    if not isinstance(s, str):
        return None
    code = scan_str(s, False)
    return None if code < 0 else table_object(code, False)


def safe_parse_epin(s):
    """The Epin of an EPIN token, or None for anything else; never raises."""
    cdef int code
    if not isinstance(s, str):
        return None
    code = scan_str(s, True)
    return None if code < 0 else table_object(code, True)


def is_valid_pin(s):
    """Whether ``s`` is a PIN token (a str matching the whole grammar); never raises."""
    return isinstance(s, str) and scan_str(s, False) >= 0


def is_valid_epin(s):
    """Whether ``s`` is an EPIN token (a str matching the whole grammar); never raises."""
    return isinstance(s, str) and scan_str(s, True) >= 0


def format_code(code):
    """The EPIN token of a code (a PIN code gives its PIN token); ValueError if invalid."""
    cdef char out[4]
    cdef int n = -1
    if isinstance(code, int) and 0 <= code < CODE_LIMIT:
        n = format_token(code, out)
    if n < 0:
        raise ValueError(f"not a token code: {code!r}")
    return out[:n].decode("ascii")


include "_array_c.pxi"
include "_bulk_c.pxi"
include "_arrow_c.pxi"
include "_export_c.pxi"
include "_texts_c.pxi"
include "_text_c.pxi"
include "_boards_c.pxi"
