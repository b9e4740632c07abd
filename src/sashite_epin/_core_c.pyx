# cython: language_level=3, embedsignature=True, binding=False
"""Compiled core: scans PIN / EPIN tokens byte by byte into integer codes.

Grammar (PIN 1.0.0 §4.2, EPIN 1.0.0 §5), always matched against the *whole* input::

    pin            ::= [ state-modifier ] letter [ terminal-marker ] ;
    epin           ::= pin [ derivation-marker ] ;
    state-modifier ::= "+" | "-" ;
    letter         ::= "A" … "Z" | "a" … "z" ;
    terminal-marker   ::= "^" ;
    derivation-marker ::= "'" ;

    PIN  \\A[-+]?[A-Za-z]\\^?\\z     (312 tokens)
    EPIN \\A[-+]?[A-Za-z]\\^?'?\\z   (624 tokens)

How: every byte has a class (``byte_class``, 256 entries); a token of 1-4 characters
is the sequence of its classes, its *shape* (12 bits).  ``classify`` -- a small DFA,
the only place here that knows the grammar -- is run once per shape at import to fill
``pin_shapes`` / ``epin_shapes``; scanning a token is then a few table loads and no
data-dependent branch, which is what bulk speed needs (random tokens defeat branch
predictors).  The pure-Python twin ``_core_py.py`` must give the same results and the
same reasons; the tests prove it.
"""

cimport cython
from cpython.ref cimport PyObject
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, PyUnicode_READ

cdef extern from "Python.h":
    bint PyUnicode_IS_COMPACT_ASCII(object o)

from sashite_epin import _errors
from sashite_epin._errors import ParseError, reason_text

IMPLEMENTATION = "cython"

# ---------------------------------------------------------------------------------
# Tables, built once at import from the grammar.

cdef unsigned char byte_class[256]
cdef unsigned short pin_shapes[SHAPE_COUNT]
cdef unsigned short epin_shapes[SHAPE_COUNT]
# The same shapes read as the start of a longer text: the longest token they begin
# with (entry | its length << PREFIX_SHIFT), or the reason none starts there.
cdef unsigned short pin_prefixes[SHAPE_COUNT]
cdef unsigned short epin_prefixes[SHAPE_COUNT]


cdef int misplaced(int k, bint epin, bint at_letter) noexcept nogil:
    """The reason for a character of class k standing where the grammar forbids it."""
    if k == K_PLUS or k == K_MINUS:
        return R_STATE_MODIFIER
    if k == K_CARET:
        return R_TERMINAL_MARKER
    if epin and k == K_APOS:
        return R_DERIVATION_MARKER
    if at_letter or k == K_LETTER:
        return R_ONE_LETTER
    return R_UNEXPECTED


cdef unsigned short classify(const unsigned char* k, int n, bint epin) noexcept nogil:
    """The grammar as a DFA over the classes k[0..n-1] (1 <= n <= 4): a shape entry
    (VALID | letter position << 8 | code's low 4 bits) or a reason identifier."""
    cdef int i = 0, rank = 2, terminal = 0, derived = 0, letter_at
    if k[0] == K_PLUS:
        rank = 1
        i = 1
    elif k[0] == K_MINUS:
        rank = 0
        i = 1
    if i == n:
        return R_ONE_LETTER
    if k[i] != K_LETTER:
        return misplaced(k[i], epin, True)
    letter_at = i
    i += 1
    if i < n and k[i] == K_CARET:
        terminal = 1
        i += 1
    if epin and i < n and k[i] == K_APOS:
        derived = 1
        i += 1
    if i < n:
        return misplaced(k[i], epin, False)
    return SHAPE_VALID | (letter_at << 8) | (rank << 2) | (terminal << 1) | derived


cdef void build_tables() noexcept nogil:
    cdef int b, shape, i, n
    cdef unsigned char k[4]
    for b in range(256):
        byte_class[b] = K_OTHER
    for b in range(ord('A'), ord('Z') + 1):
        byte_class[b] = K_LETTER
        byte_class[b + 32] = K_LETTER
    byte_class[ord('+')] = K_PLUS
    byte_class[ord('-')] = K_MINUS
    byte_class[ord('^')] = K_CARET
    byte_class[ord("'")] = K_APOS
    for shape in range(SHAPE_COUNT):
        n = 4
        for i in range(4):
            k[i] = (shape >> (3 * i)) & 7
            if k[i] == K_ABSENT and n == 4:
                n = i
        # Shapes no token has (absent then present, or nothing at all) stay 0.
        pin_shapes[shape] = 0
        epin_shapes[shape] = 0
        if n == 0 or shape != (shape & ((1 << (3 * n)) - 1)) | absent_tail(n):
            continue
        epin_shapes[shape] = classify(k, n, True)
        if n <= 3:
            pin_shapes[shape] = classify(k, n, False)
        epin_prefixes[shape] = longest_prefix(k, n, True)
        pin_prefixes[shape] = longest_prefix(k, n, False)


cdef unsigned short longest_prefix(const unsigned char* k, int n, bint epin) noexcept nogil:
    """Greedy scanning from the DFA alone: the longest prefix of k[0..n-1] that is a
    token (the grammar has no token that is a prefix of a longer invalid start, so
    longest is greedy), or, when none is, the reason of the letter slot's prefix."""
    cdef int length
    cdef unsigned short entry
    for length in range(min(n, 3 + epin), 0, -1):
        entry = classify(k, length, epin)
        if entry & SHAPE_VALID:
            return entry | (length << PREFIX_SHIFT)
    return classify(k, min(n, 2 if k[0] == K_PLUS or k[0] == K_MINUS else 1), epin)


build_tables()

# The reason identifiers are the twin's (_errors); a mismatch must not import.
if (R_EMPTY, R_TOO_LONG, R_ONE_LETTER, R_STATE_MODIFIER, R_TERMINAL_MARKER,
        R_DERIVATION_MARKER, R_UNEXPECTED) != (
        _errors.EMPTY, _errors.TOO_LONG, _errors.ONE_LETTER, _errors.STATE_MODIFIER,
        _errors.TERMINAL_MARKER, _errors.DERIVATION_MARKER, _errors.UNEXPECTED):
    raise ImportError("sashite_epin._core_c: reason identifiers disagree with _errors")

# ---------------------------------------------------------------------------------
# Scanning one token (the C-level calls; see _core_c.pxd).

cdef int scan_token(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil:
    """The code of the whole token p[0..n-1], or minus the reason it is not one."""
    cdef unsigned short entry
    cdef int shape
    if n <= 0:
        return -R_EMPTY
    if n > 3 + epin:
        return -R_TOO_LONG
    shape = byte_class[p[0]]
    shape |= (byte_class[p[1]] if n > 1 else K_ABSENT) << 3
    shape |= (byte_class[p[2]] if n > 2 else K_ABSENT) << 6
    shape |= (byte_class[p[3]] if n > 3 else K_ABSENT) << 9
    entry = epin_shapes[shape] if epin else pin_shapes[shape]
    if not entry & SHAPE_VALID:
        return -<int>entry
    return code_of(p, entry)


cdef ScanTables tables
tables.byte_class = &byte_class[0]
tables.pin_prefixes = &pin_prefixes[0]
tables.epin_prefixes = &epin_prefixes[0]


cdef const ScanTables* scan_tables() noexcept nogil:
    return &tables


cdef int scan_prefix(const unsigned char* p, Py_ssize_t n, bint epin,
                     Py_ssize_t* used) noexcept nogil:
    return scan_with(&tables, p, n, epin, used)


cdef int scan_str(object s, bint epin) noexcept:
    """scan_token over a str: code points, never a subclass's methods."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
    cdef unsigned char buf[4]
    if PyUnicode_IS_COMPACT_ASCII(s):
        return scan_token(<const unsigned char*>PyUnicode_DATA(s), n, epin)
    if n > 4 or n == 0:
        return scan_token(NULL, n, epin)
    narrow(s, n, buf)
    return scan_token(buf, n, epin)


cdef void narrow(object s, Py_ssize_t n, unsigned char* out) noexcept:  # str or subclass
    """The first n characters of a non-ASCII str as one byte each: ASCII as itself,
    anything else as 0x80, a byte of class K_OTHER (no token holds it)."""
    cdef int kind = PyUnicode_KIND(s)
    cdef void* data = PyUnicode_DATA(s)
    cdef Py_ssize_t i
    cdef Py_UCS4 cp
    for i in range(n):
        cp = PyUnicode_READ(kind, data, i)
        out[i] = <unsigned char>cp if cp < 0x80 else 0x80


cdef int format_token(int code, char* out) noexcept nogil:
    """Write the token of a valid code into out (room for 4 bytes); its length, or -1."""
    cdef int n = 0, rank
    if code < 0 or code >= CODE_LIMIT or (code & 0x0C) == 0x0C:
        return -1
    rank = (code >> 2) & 3
    if rank != 2:
        out[0] = b'-' if rank == 0 else b'+'
        n = 1
    out[n] = (0x61 if code & 0x10 else 0x41) + (code >> 5)
    n += 1
    if code & 2:
        out[n] = b'^'
        n += 1
    if code & 1:
        out[n] = b"'"
        n += 1
    return n

# ---------------------------------------------------------------------------------
# Python-level calls (the twin has the same ones).

cdef PyObject* pin_objects[CODE_LIMIT]
cdef PyObject* epin_objects[CODE_LIMIT]
cdef tuple kept = ()  # owns the references behind the two arrays
cdef bint registered = False


def register(pins, epins):
    """Give the core the interned objects, indexed by code (None at unused codes)."""
    global kept, registered
    pins, epins = tuple(pins), tuple(epins)
    if len(pins) != CODE_LIMIT or len(epins) != CODE_LIMIT:
        raise ValueError(f"tables must have {CODE_LIMIT} entries")
    kept = (pins, epins)
    for i in range(CODE_LIMIT):
        pin_objects[i] = <PyObject*>pins[i]
        epin_objects[i] = <PyObject*>epins[i]
    registered = True


cdef str notation_of(bint epin):
    return "EPIN" if epin else "PIN"


cdef int checked_code(object s, bint epin) except -1:
    cdef int code
    if not isinstance(s, str):
        raise TypeError(f"{notation_of(epin)} token must be str, not {type(s).__name__}")
    code = scan_str(s, epin)
    if code < 0:
        raise ParseError(s, reason_text(-code, notation_of(epin)), notation_of(epin))
    return code


cdef inline object table_object(int code, bint epin):
    if not registered:
        raise RuntimeError("sashite_epin core used before its tables were registered")
    return <object>(epin_objects[code] if epin else pin_objects[code])


def pin_code(s):
    """The code of a PIN token; TypeError for a non-str, ParseError when invalid."""
    return checked_code(s, False)


def epin_code(s):
    """The code of an EPIN token; TypeError for a non-str, ParseError when invalid."""
    return checked_code(s, True)


def parse_pin(s):
    return table_object(checked_code(s, False), False)


def parse_epin(s):
    return table_object(checked_code(s, True), True)


def safe_parse_pin(s):
    cdef int code
    if not isinstance(s, str):
        return None
    code = scan_str(s, False)
    return None if code < 0 else table_object(code, False)


def safe_parse_epin(s):
    cdef int code
    if not isinstance(s, str):
        return None
    code = scan_str(s, True)
    return None if code < 0 else table_object(code, True)


def is_valid_pin(s):
    return isinstance(s, str) and scan_str(s, False) >= 0


def is_valid_epin(s):
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


# ---------------------------------------------------------------------------------
include "_bulk_c.pxi"
include "_text_c.pxi"
