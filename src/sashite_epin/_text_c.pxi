# Scanning tokens written back to back in a longer text (FEEN placements and hands):
# part of the compiled core (included by _core_c.pyx), on top of scan_prefix.  Its twin
# is _text_py.py.

from cpython.list cimport PyList_Append
from cpython.unicode cimport PyUnicode_Substring


cdef bytes byte_copy(str s):
    """None when s is compact ASCII (its data is read as is), else s narrowed to one
    byte per character (see narrow)."""
    cdef bytes copy
    if PyUnicode_IS_COMPACT_ASCII(s):
        return None
    copy = PyBytes_FromStringAndSize(NULL, PyUnicode_GET_LENGTH(s))
    narrow(s, PyUnicode_GET_LENGTH(s), <unsigned char*>PyBytes_AS_STRING(copy))
    return copy


cdef inline const unsigned char* text_of(str s, bytes copy) noexcept:
    return <const unsigned char*>(PyUnicode_DATA(s) if copy is None else PyBytes_AS_STRING(copy))


cdef Py_ssize_t checked_pos(str s, object pos) except -1:
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
    if isinstance(pos, bool) or not isinstance(pos, int):
        raise TypeError(f"pos must be an int, not {type(pos).__name__}")
    if not 0 <= pos <= n:
        raise ValueError(f"pos {pos} is outside 0..{n}")
    return pos


cdef str checked_text(object s, bint epin):
    if not isinstance(s, str):
        raise TypeError(f"{notation_of(epin)} text must be str, not {type(s).__name__}")
    return <str>s


cdef int fail_at(str s, const unsigned char* p, Py_ssize_t pos, int reason, bint epin) except -1:
    """ParseError for no token at pos, naming what was tried: the letter slot's prefix."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
    cdef Py_ssize_t end = n
    if pos < n:
        end = pos + (2 if byte_class[p[pos]] in (K_PLUS, K_MINUS) else 1)
    raise _ParseError(s[pos:min(end, n)], _reason_text(reason, notation_of(epin)),
                      notation_of(epin), None, pos)


cdef object scan_at(object text, object pos, bint epin):
    cdef str s = checked_text(text, epin)
    cdef Py_ssize_t start = checked_pos(s, pos), used
    cdef bytes keep = byte_copy(s)
    cdef const unsigned char* p = text_of(s, keep)
    cdef int code = scan_prefix(p + start, PyUnicode_GET_LENGTH(s) - start, epin, &used)
    if code < 0:
        fail_at(s, p, start, -code, epin)
    return (table_object(code, epin), start + used)


cdef list tokenize(object text, bint epin):
    cdef str s = checked_text(text, epin)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s), i = 0, run = 0, used
    cdef bytes keep = byte_copy(s)
    cdef const unsigned char* p = text_of(s, keep)
    cdef list result = []
    cdef unsigned char k
    cdef int code
    while i < n:
        k = byte_class[p[i]]
        if k == K_OTHER or (k == K_APOS and not epin):  # not the notation's alphabet
            i += 1
            continue
        if run < i:
            PyList_Append(result, PyUnicode_Substring(s, run, i))
        code = scan_prefix(p + i, n - i, epin, &used)
        if code < 0:
            fail_at(s, p, i, -code, epin)
        PyList_Append(result, table_object(code, epin))
        i += used
        run = i
    if run < n:
        PyList_Append(result, PyUnicode_Substring(s, run, n))
    return result


def scan_pin(s, pos=0):
    """The PIN token starting at ``s[pos]`` (greedy) and where it ends: ``(Pin, end)``.
    ParseError (with ``.position``) if none starts there; ValueError for a ``pos``
    outside ``0..len(s)``."""
    return scan_at(s, pos, False)


def scan_epin(s, pos=0):
    """The EPIN token starting at ``s[pos]`` (greedy) and where it ends: ``(Epin, end)``.
    ParseError (with ``.position``) if none starts there; ValueError for a ``pos``
    outside ``0..len(s)``."""
    return scan_at(s, pos, True)


def tokenize_pin(s):
    """The PIN tokens of ``s`` in order, written back to back or not, as Pin objects;
    the runs of characters outside PIN's alphabet between them (digits, ``/``) are kept
    as ``str`` items.  ParseError (with ``.position``) where a token character starts
    no token."""
    return tokenize(s, False)


def tokenize_epin(s):
    """The EPIN tokens of ``s`` in order, written back to back or not, as Epin objects;
    the runs of characters outside EPIN's alphabet between them (digits, ``/``) are
    kept as ``str`` items.  ParseError (with ``.position``) where a token character
    starts no token."""
    return tokenize(s, True)
