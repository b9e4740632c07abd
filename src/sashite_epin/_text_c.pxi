# Scanning tokens written back to back in a longer text (FEEN placements and hands):
# part of the compiled core (included by _core_c.pyx), on top of scan_prefix.  Its twin
# is _text_py.py.

from cpython.list cimport PyList_Append
from cpython.unicode cimport PyUnicode_Substring
from libc.stdint cimport uint64_t

cdef extern from "_split.h" nogil:
    void token_masks64 "sashite_token_masks64"(
        const unsigned char* p, uint64_t* letters, uint64_t* modifiers, uint64_t* carets,
        uint64_t* apostrophes)

DEF LOOKAHEAD = 8    # bytes past a 64-byte block a token starting in it may reach
DEF TOKEN_BATCH = 256  # tokens tokenize takes from scan_many at a time


cdef Py_ssize_t scan_many(const unsigned char* p, Py_ssize_t n, bint epin,
                          unsigned short* codes, Py_ssize_t* starts, Py_ssize_t room,
                          Py_ssize_t* stop, int* reason) noexcept nogil:
    """The tokens of p[0..n-1], back to back or between other bytes (see _core_c.pxd).

    64 bytes at a time, token starts come from class masks and the order of the
    classes is checked with bit operations, so no token waits on the previous one's
    length.  The masks only accept what the greedy scan accepts (a '^' right after a
    letter, a "'" right after a letter or an accepted '^', a modifier right before a
    letter); a block where any of that fails, and the rest of the text, go through
    the greedy scan itself, which finds the first failure and its reason.  A SIMD
    kernel (_kernels.h, the one parse_many reads bytes with) takes the whole blocks it
    can first, decoding each token from its letter's record index; this loop reads
    on from where it stopped."""
    cdef Py_ssize_t k = 0, b = 0, resume = 0, at, t, used
    cdef unsigned char tail[64 + LOOKAHEAD]
    cdef const unsigned char* q
    cdef const ScanTables* tables
    cdef uint64_t letters, modifiers, carets, apostrophes, before_letter, bad, token_starts
    cdef uint64_t carry_letter = 0, carry_caret = 0, carry_modifier = 0, next_letter
    cdef int modified, terminal, derived, code
    cdef unsigned char kind
    reason[0] = 0
    if scan_blocks != NULL:  # a SIMD kernel takes the whole blocks it can first
        k = scan_blocks(p, n, epin, code_of_index, codes, starts, room, &b, &resume)
        if b > 0:  # the classes of the byte before block b
            kind = byte_class[p[b - 1]]
            carry_letter, carry_caret = kind == K_LETTER, kind == K_CARET
            carry_modifier = kind == K_PLUS or kind == K_MINUS
    while b < n:
        if n - b >= 64 + LOOKAHEAD:
            q = p + b
        else:  # the last bytes, padded with 0 (no token character)
            memset(tail, 0, sizeof(tail))
            memcpy(tail, p + b, n - b)
            q = tail
        token_masks64(q, &letters, &modifiers, &carets, &apostrophes)
        if not epin:
            apostrophes = 0  # not PIN's: an "other" byte
        before_letter = (letters << 1) | carry_letter  # bit i: byte i-1 is a letter
        next_letter = byte_class[q[64]] == K_LETTER  # the byte after the block
        bad = ((carets & ~before_letter)
               | (apostrophes & ~(before_letter | (carets << 1) | carry_caret))
               | (modifiers & ~((letters >> 1) | (next_letter << 63))))
        if bad:
            break
        token_starts = modifiers | (letters & ~((modifiers << 1) | carry_modifier))
        while token_starts:
            if k == room:
                stop[0] = resume
                return k
            at = ctz64(token_starts)
            token_starts &= token_starts - 1
            # No branch on the token's shape (random in real text): flags from
            # comparisons, the rank by arithmetic.
            modified = (modifiers >> at) & 1
            t = at + modified  # the letter
            terminal = q[t + 1] == 0x5E
            derived = (q[t + 1 + terminal] == 0x27) & epin
            # Bit 1 of '+' (0x2B) is 1 = RANK_ENHANCED, of '-' (0x2D) 0 = RANK_DIMINISHED.
            code = letter_bits(q[t]) | compose_code(
                0, 0, RANK_NORMAL - modified * (RANK_NORMAL - ((q[at] >> 1) & 1)),
                terminal, derived)
            codes[k] = <unsigned short>code
            starts[k] = b + at
            k += 1
            resume = b + t + 1 + terminal + derived
        carry_letter, carry_caret, carry_modifier = letters >> 63, carets >> 63, modifiers >> 63
        b += 64
    else:
        stop[0] = n
        return k
    # The greedy scan, from the end of the last token taken: exact, with the reason.
    tables = scan_tables()
    at = resume
    while at < n:
        kind = tables.byte_class[p[at]]
        if kind == K_OTHER or (kind == K_APOS and not epin):
            at += 1
            continue
        if k == room:
            stop[0] = at
            return k
        code = scan_with(tables, p + at, n - at, epin, &used)
        if code < 0:
            stop[0], reason[0] = at, -code
            return k
        codes[k], starts[k] = <unsigned short>code, at
        k += 1
        at += used
    stop[0] = n
    return k


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
    """ParseError for no token at pos, naming what stands there (prefix_reason's
    attempt: the twin's attempt)."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
    cdef Py_ssize_t end = pos + attempt_length(p + pos, n - pos, epin) if pos < n else n
    raise _ParseError(s[pos:end], _reason_text(reason, notation_of(epin)),
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
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s), base = 0, run = 0, stop, found, j, at
    cdef bytes keep = byte_copy(s)
    cdef const unsigned char* p = text_of(s, keep)
    cdef list result = []
    cdef unsigned short codes[TOKEN_BATCH]
    cdef Py_ssize_t starts[TOKEN_BATCH]
    cdef Py_ssize_t last = -1  # where the last token starts
    cdef Py_ssize_t checked = 0  # where pending signals were last checked
    cdef int reason = 0
    while True:
        with nogil:
            found = scan_many(p + base, n - base, epin, codes, starts, TOKEN_BATCH,
                              &stop, &reason)
        for j in range(found):
            at = base + starts[j]
            if run < at:  # the characters outside the alphabet before this token
                PyList_Append(result, PyUnicode_Substring(s, run, at))
            PyList_Append(result, table_object(codes[j], epin))
            last = at
            run = at + token_length[codes[j]]
        if reason:
            at = base + stop
            # The C API's rule (a stray marker judged with the token before it), so an
            # engine names the same reason as this.
            fail_at(s, p, at, stop_reason(p, n, at, last, epin), epin)
        base += stop
        if base >= n:
            break
        # Ctrl-C stops a long text: a list entry per token makes a byte cost ten times
        # what the bulk paths spend, so a sixteenth of their piece between checks.
        if base - checked >= piece_size // 16:
            checked = base
            PyErr_CheckSignals()
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
