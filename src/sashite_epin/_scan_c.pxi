# The grammar and the scanning of one token: part of the compiled core (included by
# _core_c.pyx).  Its twin is _scan_py.py.  How the tables work: docs/design.md, "The
# compiled scanner".

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, PyUnicode_READ

cdef extern from "Python.h":
    bint PyUnicode_IS_COMPACT_ASCII(object o)

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
    (SHAPE_VALID | letter position << 8 | the code's rank, terminal and derived bits)
    or a reason identifier.  The only place in the compiled core that knows the
    grammar."""
    cdef int i = 0, rank = RANK_NORMAL, terminal = 0, derived = 0, letter_at
    if k[0] == K_PLUS:
        rank = RANK_ENHANCED
        i = 1
    elif k[0] == K_MINUS:
        rank = RANK_DIMINISHED
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
    return (SHAPE_VALID | (SHAPE_LETTER_AT if letter_at else 0)
            | compose_code(0, 0, rank, terminal, derived))


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


cdef void build_scan_tables() noexcept nogil:
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


build_scan_tables()


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
    return code_of_entry(p, entry)


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
    if not code_is_valid(code):
        return -1
    rank = code_rank(code)
    if rank != RANK_NORMAL:
        out[0] = b'-' if rank == RANK_DIMINISHED else b'+'
        n = 1
    out[n] = code_letter(code)
    n += 1
    if code_terminal(code):
        out[n] = b'^'
        n += 1
    if code_derived(code):
        out[n] = b"'"
        n += 1
    return n
