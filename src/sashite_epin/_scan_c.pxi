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


cdef unsigned short classify(const unsigned char* k, int n, bint epin) noexcept nogil:
    """The grammar as a DFA over the classes k[0..n-1] (1 <= n <= 4): a shape entry
    (SHAPE_VALID | letter position << 8 | the code's rank, terminal and derived bits),
    or 0 for no token (reason_of says why).  With reason_of, the only place in the
    compiled core that knows the grammar."""
    cdef int i = 0, rank = RANK_NORMAL, terminal = 0, derived = 0, letter_at
    if k[0] == K_PLUS:
        rank = RANK_ENHANCED
        i = 1
    elif k[0] == K_MINUS:
        rank = RANK_DIMINISHED
        i = 1
    if i == n or k[i] != K_LETTER:
        return 0
    letter_at = i
    i += 1
    if i < n and k[i] == K_CARET:
        terminal = 1
        i += 1
    if epin and i < n and k[i] == K_APOS:
        derived = 1
        i += 1
    if i < n:
        return 0
    return (SHAPE_VALID | (SHAPE_LETTER_AT if letter_at else 0)
            | compose_code(0, 0, rank, terminal, derived))


cdef unsigned short longest_prefix(const unsigned char* k, int n, bint epin) noexcept nogil:
    """Greedy scanning from the DFA alone: the longest prefix of k[0..n-1] that is a
    token (the grammar has no token that is a prefix of a longer invalid start, so
    longest is greedy), or 0 when none is (prefix_reason says why)."""
    cdef int length
    cdef unsigned short entry
    for length in range(min(n, 3 + epin), 0, -1):
        entry = classify(k, length, epin)
        if entry & SHAPE_VALID:
            return entry | (length << PREFIX_SHIFT)
    return 0


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


# Why a whole text of 1 to 4 bytes is no token, by the classes of its bytes as
# reason_of reads them (a letter, each marker, a line break, a space, anything else:
# eight, three bits a byte) and its length: reason_of's answer looked up, not worked
# out (a column of typos asks it for every other entry).  Built from reason_of itself.
cdef unsigned char reason_class[256]
cdef unsigned char whole_reasons[2][4][4096]  # [epin][length - 1][classes]


cdef void build_reason_tables() noexcept nogil:
    cdef int b, n, shape, i, epin
    cdef unsigned char sample[4]
    cdef const char* samples = b"K+-^'\n #"  # one byte of each class, in class order
    for b in range(256):
        reason_class[b] = 7
    for i in range(7):
        reason_class[<unsigned char>samples[i]] = i
    for b in range(ord('A'), ord('Z') + 1):
        reason_class[b] = reason_class[b + 32] = 0
    reason_class[13] = 5
    reason_class[9] = reason_class[11] = reason_class[12] = 6
    for epin in range(2):
        for n in range(1, 5):
            for shape in range(1 << (3 * n)):
                for i in range(n):
                    sample[i] = samples[(shape >> (3 * i)) & 7]
                whole_reasons[epin][n - 1][shape] = reason_of(sample, n, epin, True)


cdef inline int whole_reason(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil:
    """reason_of(p, n, epin, True), from the table for 1 to 4 bytes."""
    cdef int shape = 0, i
    if n <= 0 or n > 4:
        return reason_of(p, n, epin, True)
    for i in range(n):
        shape |= reason_class[p[i]] << (3 * i)
    return whole_reasons[epin][n - 1][shape]


cdef int reason_of(const unsigned char* p, Py_ssize_t n, bint epin,
                   bint whole) noexcept nogil:
    """Why p[0..n-1] is not a token: the first rule it breaks, in the order of
    sashite_epin.Reason (whole: a whole token, whose length alone decides TOO_LONG, so
    a long one is not read; otherwise scanning's attempt at a token).  Only called
    once the tables have said "no token"; the twin's reason_of is the same rule."""
    cdef Py_ssize_t i, modifier_at = -1, apostrophe_at = -1
    cdef int letters = 0, modifiers = 0, carets = 0, apostrophes = 0
    cdef bint line_break = False, space = False, other = False
    cdef unsigned char b, k
    if n <= 0:
        return R_EMPTY
    if whole and n > 3 + epin:
        return R_TOO_LONG
    for i in range(n):
        b = p[i]
        k = byte_class[b]
        if k == K_LETTER:
            letters += 1
        elif k == K_PLUS or k == K_MINUS:
            modifiers += 1
            modifier_at = i if modifier_at < 0 else modifier_at
        elif k == K_CARET:
            carets += 1
        elif k == K_APOS:
            apostrophes += 1
            apostrophe_at = i if apostrophe_at < 0 else apostrophe_at
        elif b == 10 or b == 13:
            line_break = True
        elif b == 32 or b == 9 or b == 11 or b == 12:
            space = True
        else:
            other = True
    if line_break:
        return R_LINE_BREAK
    if space:
        return R_WHITESPACE
    if letters == 0:
        return R_NOT_A_LETTER
    if letters > 1:
        return R_MORE_THAN_ONE_LETTER
    if other:
        return R_OTHER_CHARACTER
    if not epin and apostrophes:
        return R_DERIVATION_IN_PIN
    if modifiers > 1:
        return R_MULTIPLE_STATE_MODIFIERS
    if modifiers and modifier_at != 0:
        return R_MODIFIER_NOT_FIRST
    if apostrophes > 1:
        return R_MULTIPLE_DERIVATION_MARKERS
    if apostrophes and apostrophe_at != n - 1:
        return R_DERIVATION_NOT_LAST
    if carets > 1:
        return R_MULTIPLE_TERMINAL_MARKERS
    # What is left of a string that is no token: one letter, at most one of each marker,
    # the modifier first and the "'" last, so the "^" is not right after the letter.
    return R_TERMINAL_NOT_AFTER_LETTER


build_reason_tables()


cdef Py_ssize_t attempt_length(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil:
    """How much of p scanning's failure there names (the twin's attempt): the markers,
    the letter after them if any and the markers after it, at most 8 bytes; or 1."""
    cdef Py_ssize_t i = 0, end = n if n < 8 else 8
    cdef unsigned char k
    while i < end:
        k = byte_class[p[i]]
        if not (k == K_PLUS or k == K_MINUS or k == K_CARET or (epin and k == K_APOS)):
            break
        i += 1
    if i < end and byte_class[p[i]] == K_LETTER:
        i += 1
        while i < end and (byte_class[p[i]] == K_CARET
                           or (epin and byte_class[p[i]] == K_APOS)):
            i += 1
    return i if i > 0 or n <= 0 else 1


cdef int prefix_reason(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil:
    return reason_of(p, attempt_length(p, n, epin), epin, False)


cdef int stop_reason(const unsigned char* p, Py_ssize_t n, Py_ssize_t stop,
                     Py_ssize_t previous, bint epin) noexcept nogil:
    """The reason tokenize gives where no token starts at p[stop]: a stray marker right
    after the token at previous is judged with that token (the twin's stray_reason),
    anything else by what stands at stop alone (prefix_reason)."""
    cdef Py_ssize_t used = 0, end
    cdef unsigned char k
    if 0 <= previous < stop < n:
        k = byte_class[p[stop]]
        if ((k == K_CARET or k == K_APOS) and scan_prefix(p + previous, n - previous, epin,
                                                          &used) >= 0
                and previous + used == stop):
            end = stop
            while end < n and (byte_class[p[end]] == K_CARET
                               or (epin and byte_class[p[end]] == K_APOS)):
                end += 1
            return reason_of(p + previous, end - previous, epin, False)
    return prefix_reason(p + stop, n - stop, epin) if stop < n else R_EMPTY


cdef int scan_token(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil:
    """The code of the whole token p[0..n-1], or minus the reason it is not one."""
    cdef unsigned short entry
    cdef int shape
    if n <= 0 or n > 3 + epin:
        return -reason_of(p, n, epin, True)
    shape = byte_class[p[0]]
    shape |= (byte_class[p[1]] if n > 1 else K_ABSENT) << 3
    shape |= (byte_class[p[2]] if n > 2 else K_ABSENT) << 6
    shape |= (byte_class[p[3]] if n > 3 else K_ABSENT) << 9
    entry = epin_shapes[shape] if epin else pin_shapes[shape]
    if not entry & SHAPE_VALID:
        return -whole_reason(p, n, epin)
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
