# Scanning tokens written back to back in a longer text (FEEN placements and hands):
# part of the compiled core (included by _core_c.pyx), on top of scan_prefix.  Its twin
# is _text_py.py.

from cpython.list cimport PyList_Append
from cpython.buffer cimport PyBUF_READ
from cpython.memoryview cimport PyMemoryView_FromMemory
from cpython.unicode cimport PyUnicode_Substring
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc

cdef extern from "_split.h" nogil:
    void token_masks64 "sashite_token_masks64"(
        const unsigned char* p, uint64_t* letters, uint64_t* modifiers, uint64_t* carets,
        uint64_t* apostrophes)

cdef extern from "_strict.h" nogil:
    # The index of the first byte of p[0..n-1] a strict placement does not allow (no
    # token's byte, no digit, no "/"), or n; read in the bytes kernel's instructions.
    Py_ssize_t strict_stray_in "sashite_strict_stray"(const unsigned char* p, Py_ssize_t n,
                                                      int epin, int kernel)


cdef inline Py_ssize_t strict_stray(const unsigned char* p, Py_ssize_t n,
                                    bint epin) noexcept nogil:
    return strict_stray_in(p, n, epin, bytes_kernel_id)

DEF LOOKAHEAD = 8    # bytes past a 64-byte block a token starting in it may reach
DEF TOKEN_BATCH = 256  # tokens tokenize takes from scan_many at a time
DEF ROWS_BATCH = 2048  # and tokenize_many: fewer calls, each ending in its scalar loop
# tokenize_many copies its texts a piece at a time and scans the piece: one small enough
# to be in the core's own cache (L2) when the scan reads it, and little memory.
DEF TEXT_PIECE = 1 << 17
# After a refused text (under mark), the texts that end within DENSE bytes are read by
# the greedy scan alone: a block loop set up anew at each of many close failures cost
# ten short valid texts, and a longer text is worth the set-up.
DEF DENSE = 128
# ... and short: a longer text (a placement) goes to the block loop, whose set-up it
# pays for (the greedy scan reads a byte at a time).
DEF DENSE_TEXT = 16
# Refused short texts remembered per call (a column of typos repeats them): slots of a
# direct-mapped table, each a text of up to SHORT_TEXT bytes and how it fails.
DEF REFUSED_SLOTS = 4096
DEF SHORT_TEXT = 7


cdef Py_ssize_t scan_many(const unsigned char* p, Py_ssize_t n, bint epin,
                          unsigned short* codes, Py_ssize_t* starts, Py_ssize_t room,
                          Py_ssize_t* stop, int* reason) noexcept nogil:
    """The tokens of p[0..n-1], back to back or between other bytes (see _core_c.pxd).

    64 bytes at a time, token starts come from class masks and the order of the
    classes is checked with bit operations, so no token waits on the previous one's
    length.  The masks only accept what the greedy scan accepts (a '^' right after a
    letter, a "'" right after a letter or an accepted '^', a modifier right before a
    letter); in a block where any of that fails, the rest of the text from the token
    that may hold the first failing byte goes through the greedy scan itself, which
    finds the first failure and its reason.  A SIMD kernel (_kernels.h, the one
    parse_many reads bytes with) takes the whole blocks it can first, decoding each
    token from its letter's record index; this loop reads on from where it stopped."""
    return scan_tokens(p, n, epin, codes, starts, room, stop, reason, True)


cdef inline Py_ssize_t scan_tokens(const unsigned char* p, Py_ssize_t n, bint epin,
                                   unsigned short* codes, Py_ssize_t* starts, Py_ssize_t room,
                                   Py_ssize_t* stop, int* reason, bint blocks) noexcept nogil:
    """scan_many; blocks: whether the SIMD kernel reads first (not where tokenize_many's
    rows kernel just stopped in a block it refuses, which that kernel would refuse at
    once, for the set-up of a call)."""
    cdef Py_ssize_t k = 0, b = 0, resume = 0, at, t
    cdef unsigned char tail[64 + LOOKAHEAD]
    cdef const unsigned char* q
    cdef uint64_t letters, modifiers, carets, apostrophes, before_letter, bad, token_starts
    cdef uint64_t carry_letter = 0, carry_caret = 0, carry_modifier = 0, next_letter
    cdef int modified, terminal, derived, code
    cdef unsigned char kind
    reason[0] = 0
    if scan_blocks != NULL and blocks:  # a SIMD kernel takes the whole blocks it can first
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
        token_starts = modifiers | (letters & ~((modifiers << 1) | carry_modifier))
        if bad:
            # The tokens before the one that may hold the first bad byte are read here:
            # each lies wholly before it, where the masks are exact.  The greedy scan
            # then starts at that token (a refused row's failure costs its token, not
            # the tokens of the block before it, one at a time).
            token_starts &= (bad & (~bad + 1)) - 1
            if token_starts:
                token_starts ^= <uint64_t>1 << top64(token_starts)
        while token_starts:
            if k == room:
                stop[0] = resume
                # A "^" (or EPIN's "'") right after the last token is a failure, judged
                # with that token: say it now, as the next call could not see the token.
                if resume < n and (byte_class[p[resume]] == K_CARET
                                   or (epin and byte_class[p[resume]] == K_APOS)):
                    reason[0] = stop_reason(p, n, resume, starts[k - 1], epin)
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
        if bad:
            break
        carry_letter, carry_caret, carry_modifier = letters >> 63, carets >> 63, modifiers >> 63
        b += 64
    else:
        stop[0] = n
        return k
    # The greedy scan, from the end of the last token taken: exact, with the reason.
    return greedy_many(p, n, epin, codes, starts, room, resume, k, stop, reason)


cdef inline Py_ssize_t greedy_many(const unsigned char* p, Py_ssize_t n, bint epin,
                                   unsigned short* codes, Py_ssize_t* starts, Py_ssize_t room,
                                   Py_ssize_t at, Py_ssize_t k, Py_ssize_t* stop,
                                   int* reason) noexcept nogil:
    """scan_many's greedy scan, from at, its tokens written from k: one token at a time,
    exact, with the reason where it stops (tokenize's: stop_reason).  Returns the new
    k."""
    cdef const ScanTables* tables = scan_tables()
    cdef Py_ssize_t used
    cdef unsigned char kind
    cdef int code
    reason[0] = 0
    while at < n:
        kind = tables.byte_class[p[at]]
        if kind == K_OTHER or (kind == K_APOS and not epin):
            at += 1
            continue
        code = scan_with(tables, p + at, n - at, epin, &used)
        if code < 0:
            # tokenize's reason: a stray marker is judged with the token before it, so
            # the scan goes on to see it before it stops for room (below)
            stop[0] = at
            reason[0] = stop_reason(p, n, at, starts[k - 1] if k > 0 else -1, epin)
            return k
        if k == room:
            stop[0] = at
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


cdef bint checked_strict(object strict) except -1:
    if type(strict) is not bool:
        raise TypeError(f"strict must be True or False (a bool), not {type(strict).__name__}")
    return strict is True


cdef int between_reason(const unsigned char* p, Py_ssize_t n, Py_ssize_t pos,
                        Py_ssize_t previous, bint epin) noexcept nogil:
    """strict tokenize's reason for p[pos], which no token holds and a placement does
    not allow between tokens (strict_stray's byte): that byte judged alone (whitespace,
    line break, not a letter), except PIN's "'" right after the token at previous,
    judged with it (derivation marker in a PIN token).  The twin's between_reason."""
    cdef Py_ssize_t used = 0
    if (not epin and p[pos] == 0x27 and 0 <= previous < pos
            and scan_prefix(p + previous, n - previous, epin, &used) >= 0
            and previous + used == pos):
        return reason_of(p + previous, pos + 1 - previous, epin, False)
    return reason_of(p + pos, 1, epin, False)


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


cdef list tokenize(object text, bint epin, object strict):
    cdef str s = checked_text(text, epin)
    cdef bint is_strict = checked_strict(strict)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s), base = 0, run = 0, stop, found, j, at
    cdef Py_ssize_t end = n  # where the scan ends: under strict, the first stray byte
    cdef bytes keep = byte_copy(s)
    cdef const unsigned char* p = text_of(s, keep)
    cdef list result = []
    cdef unsigned short codes[TOKEN_BATCH]
    cdef Py_ssize_t starts[TOKEN_BATCH]
    cdef Py_ssize_t last = -1  # where the last token starts
    cdef Py_ssize_t checked = 0  # where pending signals were last checked
    cdef int reason = 0
    if is_strict:
        with nogil:
            end = strict_stray(p, n, epin)
    while True:
        with nogil:
            found = scan_many(p + base, end - base, epin, codes, starts, TOKEN_BATCH,
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
        if base >= end:
            break
        # Ctrl-C stops a long text: a list entry per token makes a byte cost ten times
        # what the bulk paths spend, so a sixteenth of their piece between checks.
        if base - checked >= piece_size // 16:
            checked = base
            PyErr_CheckSignals()
    if end < n:  # the scan read up to it without a failure: the stray byte's
        fail_at(s, p, end, between_reason(p, n, end, last, epin), epin)
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


def tokenize_pin(s, *, strict=False):
    """The PIN tokens of ``s`` in order, written back to back or not, as Pin objects;
    the runs of characters outside PIN's alphabet between them (digits, ``/``) are kept
    as ``str`` items.  ParseError (with ``.position``) where a token character starts
    no token; with ``strict=True`` also where any character but a digit or ``/``
    stands between tokens (FEEN's piece placement)."""
    return tokenize(s, False, strict)


def tokenize_epin(s, *, strict=False):
    """The EPIN tokens of ``s`` in order, written back to back or not, as Epin objects;
    the runs of characters outside EPIN's alphabet between them (digits, ``/``) are
    kept as ``str`` items.  ParseError (with ``.position``) where a token character
    starts no token; with ``strict=True`` also where any character but a digit or
    ``/`` stands between tokens (FEEN's piece placement)."""
    return tokenize(s, True, strict)


# -- many texts at once: the bulk form of tokenize -----------------------------------------

def tokenize_many(texts, bint epin, errors="raise", strict=False):
    """The tokens of every text of a list or tuple (None, NaN and pandas.NA: a missing
    row) or of an Arrow string column (an object with ``__arrow_c_array__`` or
    ``__arrow_c_stream__``: a null is a missing row), in order, as one TokenArray whose
    ``offsets``, ``row_offsets`` and ``rows`` say where each came from; strict: as
    tokenize's; see Pin.tokenize_many / Epin.tokenize_many."""
    cdef bint mark, is_strict
    cdef ArrowChunks column
    if errors == "raise":
        mark = False
    elif errors == "mark":
        mark = True
    else:
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
    is_strict = checked_strict(strict)
    know_missing_types()  # what may run Python code, before any item is read
    if not isinstance(texts, (list, tuple)):
        if hasattr(type(texts), "__arrow_c_array__") or hasattr(type(texts), "__arrow_c_stream__"):
            column = arrow_column(texts)  # held until the rows are read
            return tokenize_rows(arrow_texts(column), epin, mark, is_strict)
        raise TypeError(f"tokenize_many reads a list or tuple of str or an Arrow string "
                        f"column here, not {type(texts).__name__}")
    # Read under the list's own lock where threads run free (see parse_many).
    with cython.critical_section(texts):
        return tokenize_rows(list_texts(texts), epin, mark, is_strict)


cdef extern from "_pyarray.h":
    bint pyarray_layout_ok "sashite_pyarray_layout_ok"(object a, void* item0)
    void* pyarray_resize "sashite_pyarray_resize"(object a, Py_ssize_t items,
                                                  Py_ssize_t itemsize) except NULL
    void pyarray_set_size "sashite_pyarray_set_size"(object a, Py_ssize_t items)

cdef int pyarray_layout = -1  # whether _pyarray.h reads array.array right; -1: not asked


cdef bint offsets_in_place():
    """Whether offsets are written into their array('q') itself (_pyarray.h), asked of
    a real array the first time."""
    global pyarray_layout
    if pyarray_layout < 0:
        probe = new_array("q", (1, 2, 3))
        pyarray_layout = pyarray_layout_ok(probe, <void*><size_t>probe.buffer_info()[0])
    return pyarray_layout


def use_arrays_in_place(bint on):
    """Tests: write tokenize_many's offsets into their arrays in place where the core
    can (the compiled one, when _pyarray.h reads array.array right), or build them
    aside and copy them in; returns the setting before."""
    global pyarray_layout
    before = offsets_in_place()
    pyarray_layout = -1  # asked again: a setting turned off can be turned back on
    pyarray_layout = on and offsets_in_place()
    return before


cdef struct RowFailure:  # a text tokenize refuses: where, and why
    Py_ssize_t at      # in the text
    int reason
    Py_ssize_t length  # what stands there (attempt_length), under mark


cdef struct Refusals:  # tokenize_rows' refused rows under mark, as columns until asked
    int64_t* indices      # each one's entry
    int64_t* ends         # where its text ends in texts
    int64_t* positions    # its offset in its row
    unsigned char* reasons
    Py_ssize_t count, room
    unsigned char* texts  # what stands there (UTF-8), back to back
    Py_ssize_t used, text_room


cdef inline int refuse(Refusals* r, Py_ssize_t k, int reason, const unsigned char* text,
                       Py_ssize_t length, Py_ssize_t position, bint slack) noexcept nogil:
    """Entry k marked: its row refused at position for reason, text what stands there
    (attempt_length's bytes); no Python object until the error is asked for.  slack: 8
    bytes may be read from text whatever length says (a piece's, with its slack).  -1:
    out of memory."""
    cdef Py_ssize_t i = r.count
    if (i == r.room or r.used + length + 8 > r.text_room) and refusals_room(r, 1, length) < 0:
        return -1
    if slack and length <= 8:  # one word, not a call (most texts refused are short)
        memcpy(r.texts + r.used, text, 8)
    else:
        memcpy(r.texts + r.used, text, length)
    r.used += length
    r.indices[i], r.ends[i], r.positions[i], r.reasons[i] = k, r.used, position, reason
    r.count = i + 1
    return 0


cdef int refusals_room(Refusals* r, Py_ssize_t marks, Py_ssize_t length) noexcept nogil:
    """Room in r for marks more marks and length + 8 bytes more of text; -1: out of
    memory.  The columns share one block, and the texts have another, both through
    _memory.h: a call on a column like the last one reuses their memory (fresh memory
    is page faults, more than the scan: a refused row costs as little as a valid one)."""
    cdef unsigned char* block
    cdef void* more
    cdef Py_ssize_t room
    if r.count + marks > r.room:
        room = max(r.room * 2 + 4096, r.count + marks)
        block = <unsigned char*>records_alloc(25 * room)
        if block == NULL:
            return -1
        if r.count:
            memcpy(block, r.indices, 8 * r.count)
            memcpy(block + 8 * room, r.ends, 8 * r.count)
            memcpy(block + 16 * room, r.positions, 8 * r.count)
            memcpy(block + 24 * room, r.reasons, r.count)
        records_free(r.indices)
        r.indices, r.ends = <int64_t*>block, <int64_t*>(block + 8 * room)
        r.positions, r.reasons = <int64_t*>(block + 16 * room), block + 24 * room
        r.room = room
    if r.used + length + 8 > r.text_room:
        r.text_room = max(2 * r.text_room, r.used + length) + 4096
        more = records_realloc(r.texts, r.text_room)
        if more == NULL:
            return -1
        r.texts = <unsigned char*>more
    return 0


cdef void refusals_free(Refusals* r) noexcept:
    records_free(r.indices)  # the block of every column
    records_free(r.texts)


cdef object int64_column(const int64_t* values, Py_ssize_t n):
    """An array('q') of values[0 .. n - 1]: copied once, into the array, where the core
    writes arrays in place (_pyarray.h), else through bytes."""
    if offsets_in_place():
        column = new_array("q")
        memcpy(pyarray_resize(column, n, 8), values, 8 * n)
        return column
    return array_of_bytes("q", PyBytes_FromStringAndSize(<const char*>values, 8 * n))


cdef void set_refusals(TokenArray result, Refusals* r):
    """The refused rows' marks on the result: their indices, and (token, reason, offset,
    None) each as _marks.MarkedTexts reads them, columns until asked."""
    result._invalid = int64_column(r.indices, r.count)
    result._rejected = _marks.MarkedTexts(
        PyBytes_FromStringAndSize(<char*>r.texts, r.used), int64_column(r.ends, r.count),
        PyBytes_FromStringAndSize(<char*>r.reasons, r.count),
        int64_column(r.positions, r.count))


cdef struct Grown:  # tokenize_rows' output and work space, grown as texts are read
    unsigned char* records   # records_alloc's: the result takes it as it is
    int64_t* offsets         # the items of offsets_array where it is written in place
    PyObject* offsets_array  # the result's array('q') of them (its owner holds it), or NULL
    unsigned short codes[ROWS_BATCH]  # scan_many's, a batch at a time
    Py_ssize_t starts[ROWS_BATCH]
    Py_ssize_t capacity      # tokens
    unsigned char* text      # a piece of texts, each followed by a "/"
    Py_ssize_t text_room
    int64_t* row_start       # where each text of the piece starts in it, and its end
    Py_ssize_t row_room
    Refusals* refused        # under mark: the refused texts' marks, written as met
    bint out_of_memory       # set when a mark found no room
    # Under mark, short texts refused close together (see short_key): each slot's key,
    # and its failure (at | reason << 8 | length << 16); NULL until the first is met
    uint64_t* refused_keys
    uint32_t* refused_how


cdef void* grown(void* p, Py_ssize_t size) noexcept nogil:
    return realloc(p, size if size > 0 else 1)


cdef int grow(Grown* g, Py_ssize_t need) except -1:
    """Room for need tokens at least (doubling); MemoryError when out of memory.  The
    records through _memory.h, whose spare block a call on a column of the same size
    reuses (fresh memory is page faults, more than the scan)."""
    cdef Py_ssize_t capacity = max(need, 2 * g.capacity)
    cdef void* p
    if need <= g.capacity:
        return 0
    p = records_realloc(g.records, 5 * capacity + SLACK)
    if p == NULL:
        raise MemoryError()
    g.records = <unsigned char*>p
    if g.offsets_array != NULL:
        p = pyarray_resize(<object>g.offsets_array, capacity, 8)
    else:
        p = grown(g.offsets, 8 * capacity)
        if p == NULL:
            raise MemoryError()
    g.offsets = <int64_t*>p
    g.capacity = capacity
    return 0


cdef Py_ssize_t scan_batches(Grown* g, Py_ssize_t k, const unsigned char* p, Py_ssize_t n,
                             bint epin, Py_ssize_t* stop, int* reason,
                             Py_ssize_t* last) noexcept nogil:
    """scan_many over p[0..n-1] a batch of tokens at a time: each token's record and
    start (its offset in p) appended from k; returns the new k, *stop where it stopped
    (n, or a failure: *reason set), *last the start of the last token (-1: none)."""
    cdef Py_ssize_t base = 0, found, at, j
    reason[0] = 0
    last[0] = -1
    while True:
        found = scan_many(p + base, n - base, epin, g.codes, g.starts, ROWS_BATCH, &at,
                          reason)
        for j in range(found):
            g.offsets[k + j] = base + g.starts[j]
            memcpy(g.records + 5 * (k + j), record_of[g.codes[j]], 8)
        if found:
            last[0] = base + g.starts[found - 1]
        k += found
        base += at
        if reason[0] or base >= n:
            stop[0] = base
            return k


cdef Py_ssize_t scan_rows(Grown* g, Py_ssize_t k, Py_ssize_t pos, Py_ssize_t used,
                          bint epin, bint greedy, Py_ssize_t* r, int64_t* row_offsets,
                          Py_ssize_t* stop, int* reason) noexcept nogil:
    """scan_batches for scan_piece: the tokens of g.text[pos..used-1], each token's
    record, row (row_offsets, from row *r on) and offset in its row written in the same
    pass over a batch, while the batch is in cache; *stop where the scan stopped
    (relative to pos), *reason as scan_many's.  A kernel with a rows loop (_kernels.h)
    writes all three in its own block loop first; scan_many goes on from the end of the
    last token it wrote.  greedy: the greedy scan alone, which costs no set-up, where
    failures come close together (a block loop would stop at each)."""
    cdef Py_ssize_t base = 0, found, at, j, s, row = r[0], resume
    cdef int64_t next_row, row_at
    cdef const unsigned char* p = g.text + pos
    cdef Py_ssize_t n = used - pos
    cdef bint blocks = True
    if rows_blocks != NULL and not greedy:
        k = rows_blocks(g.text, used, pos, epin, records_by_index, g.row_start, &row,
                        row_offsets, g.records, g.offsets, k, &resume)
        base = resume - pos
        blocks = False  # it stopped in a block it refuses, or where no block is left
    next_row, row_at = g.row_start[row + 1], g.row_start[row]
    reason[0] = 0
    while True:
        if greedy:
            found = greedy_many(p + base, n - base, epin, g.codes, g.starts, ROWS_BATCH, 0, 0,
                                &at, reason)
        else:
            found = scan_tokens(p + base, n - base, epin, g.codes, g.starts, ROWS_BATCH, &at,
                                reason, blocks)
            blocks = True
        for j in range(found):
            memcpy(g.records + 5 * (k + j), record_of[g.codes[j]], 8)
            s = pos + base + g.starts[j]  # in the piece
            while s >= next_row:
                row += 1
                row_offsets[row] = k + j
                row_at, next_row = next_row, g.row_start[row + 1]
            g.offsets[k + j] = s - row_at
        k += found
        base += at
        if reason[0] or base >= n:
            stop[0] = base
            r[0] = row
            return k


cdef Py_ssize_t scan_piece(Grown* g, Py_ssize_t k, Py_ssize_t rows, bint epin, bint mark,
                           bint strict, int64_t* row_offsets, Py_ssize_t* failed_row,
                           RowFailure* failure) noexcept nogil:
    """The texts of g.text (rows of them, each followed by a "/", which starts no
    token and ends none, so no token crosses two texts) in one scan at the bulk speed,
    each token then given its row and its offset in it.  Where the scan stops, the text
    it stopped in fails there: the scan is exact (the greedy scan names the first
    failure, and no token or stray marker reaches across a "/"), so the reason is
    judged in that text alone without reading it again.  Returns the new k;
    *failed_row >= 0 when a text failed (failure set), row_offsets filled up to it.
    Under mark a refused text is one zero record at its offset of failure, its mark in
    g.refused, and the scan goes on with the next text in the same piece; a short text
    close after a failure is looked up among the short texts refused before (the same
    bytes fail the same way), and remembered when it fails.  strict: the scan ends at
    the first byte a placement does not allow (strict_stray's, found ahead of it: the
    texts' separators are "/"), where its text fails unless it failed before."""
    cdef Py_ssize_t r = 0, pos = 0, used = g.row_start[rows], stop, at, last, end
    cdef Py_ssize_t dense_end = 0, slot = -1
    cdef Py_ssize_t stray = -1 if strict else used  # the next stray byte at or after pos
    cdef uint64_t key = 0
    cdef int reason
    failed_row[0] = -1
    row_offsets[0] = k
    while pos < used:
        if stray < pos:  # strict, and the last one passed: the next (used: none)
            stray = pos + strict_stray(g.text + pos, used - pos, epin)
        while g.row_start[r + 1] <= pos:  # texts passed without a token hold none
            r += 1
            row_offsets[r] = k
        end = g.row_start[r + 1]
        slot = -1
        if end <= dense_end and end - pos <= DENSE_TEXT:  # short, close after a failure
            if mark and pos == g.row_start[r] and 0 < end - 1 - pos <= SHORT_TEXT:
                key = short_key(g.text + pos, end - 1 - pos)
                slot = <Py_ssize_t>((key * <uint64_t>0x9E3779B97F4A7C15) >> 52)
                if g.refused_keys != NULL and g.refused_keys[slot] == key:
                    k = refused_run(g, k, rows, used, &r, &pos, &dense_end, row_offsets)
                    if g.out_of_memory:  # the caller raises MemoryError
                        return k
                    continue
            # the greedy scan
            k = scan_rows(g, k, pos, min(end, stray), epin, True, &r, row_offsets, &stop,
                          &reason)
            if not reason and stray >= end:
                pos = end
                continue
        else:
            k = scan_rows(g, k, pos, stray, epin, False, &r, row_offsets, &stop, &reason)
            if not reason and stray >= used:
                break
        at = pos + stop  # in text r or a later one
        while at >= g.row_start[r + 1]:
            r += 1
            row_offsets[r] = k
        # The text's tokens before the failure are dropped; the last of them starts
        # where its offset says (a stray marker is judged with it).
        last = g.offsets[k - 1] if k > row_offsets[r] else -1
        failure.at = at - g.row_start[r]
        if reason:
            failure.reason = stop_reason(g.text + g.row_start[r],
                                         g.row_start[r + 1] - 1 - g.row_start[r], failure.at,
                                         last, epin)
        else:  # the scan ended at the stray byte (strict) with no failure before it
            failure.reason = between_reason(g.text + g.row_start[r],
                                            g.row_start[r + 1] - 1 - g.row_start[r],
                                            failure.at, last, epin)
        k = row_offsets[r]
        if not mark:
            failed_row[0] = r
            return k
        failure.length = attempt_length(g.text + at, g.row_start[r + 1] - 1 - at, epin)
        if slot >= 0:
            remember_refused(g, slot, key, failure)
        k = refused_row(g, k, r, row_offsets, failure)
        if g.out_of_memory:
            return k
        pos = g.row_start[r + 1]
        r += 1
        dense_end = at + DENSE  # where the next failure would make failures dense
    while r < rows:  # texts after the last token hold none
        r += 1
        row_offsets[r] = k
    return k


cdef inline uint64_t short_key(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """A text of 1 to SHORT_TEXT bytes as one word: its bytes, and its length in the top
    byte (so no key is 0, an empty slot's).  Reads 8 bytes: the piece keeps 8 of slack."""
    cdef uint64_t word
    memcpy(&word, p, 8)
    return (word & ((<uint64_t>1 << (8 * n)) - 1)) | (<uint64_t>n << 56)


cdef inline bint remember_refused(Grown* g, Py_ssize_t slot, uint64_t key,
                                  const RowFailure* failure) noexcept nogil:
    """A short text's failure kept in its slot (the table made at the first); False
    where no memory was left for the table (nothing is remembered then)."""
    if g.refused_keys == NULL:
        g.refused_keys = <uint64_t*>calloc(REFUSED_SLOTS, 8)
        g.refused_how = <uint32_t*>calloc(REFUSED_SLOTS, 4)
        if g.refused_keys == NULL or g.refused_how == NULL:
            free(g.refused_keys)
            free(g.refused_how)
            g.refused_keys = g.refused_how = NULL
            return False
    g.refused_keys[slot] = key
    g.refused_how[slot] = (<uint32_t>failure.at | <uint32_t>failure.reason << 8
                           | <uint32_t>failure.length << 16)
    return True


cdef Py_ssize_t refused_run(Grown* g, Py_ssize_t k, Py_ssize_t rows, Py_ssize_t used,
                            Py_ssize_t* r_, Py_ssize_t* pos_, Py_ssize_t* dense_end_,
                            int64_t* row_offsets) noexcept nogil:
    """scan_piece's texts from *r_ (at *pos_, its start), a short one found among those
    refused before: each refused again as it was, while the next is too, in one loop
    over locals (a column of the same typos is mostly this): room for a mark for each
    text left in the piece is made first, so the loop only writes.  Returns the new k."""
    cdef Py_ssize_t r = r_[0], pos = pos_[0], end, n, slot, at, length
    cdef Py_ssize_t dense_end = dense_end_[0]
    cdef Refusals* refused = g.refused
    cdef const int64_t* row_start = g.row_start
    cdef const unsigned char* text = g.text
    cdef const uint64_t* keys = g.refused_keys
    cdef const uint32_t* hows = g.refused_how
    cdef unsigned char* records = g.records
    cdef int64_t* offsets = g.offsets
    cdef int64_t* indices
    cdef int64_t* ends
    cdef int64_t* positions
    cdef unsigned char* reasons
    cdef unsigned char* texts
    cdef Py_ssize_t count, written
    cdef uint64_t key
    cdef uint32_t how
    if refusals_room(refused, rows - r, 8 * (rows - r)) < 0:
        g.out_of_memory = True
        return k
    indices, ends, positions = refused.indices, refused.ends, refused.positions
    reasons, texts = refused.reasons, refused.texts
    count, written = refused.count, refused.used
    end = row_start[r + 1]
    n = end - 1 - pos
    while True:
        key = short_key(text + pos, n)
        slot = <Py_ssize_t>((key * <uint64_t>0x9E3779B97F4A7C15) >> 52)
        if keys[slot] != key:
            break
        how = hows[slot]
        at, length = how & 0xFF, how >> 16
        memset(records + 5 * k, 0, 5)
        offsets[k] = at
        memcpy(texts + written, text + pos + at, 8)  # length <= 8: one word
        written += length
        indices[count], ends[count], positions[count] = k, written, at
        reasons[count] = (how >> 8) & 0xFF
        count += 1
        k += 1
        r += 1
        row_offsets[r] = k
        dense_end = pos + at + DENSE
        pos = end
        if pos >= used:
            break
        end = row_start[r + 1]
        n = end - 1 - pos
        if end > dense_end or not 0 < n <= SHORT_TEXT:
            break
    refused.count, refused.used = count, written
    r_[0], pos_[0], dense_end_[0] = r, pos, dense_end
    return k


cdef inline Py_ssize_t refused_row(Grown* g, Py_ssize_t k, Py_ssize_t r,
                                   int64_t* row_offsets, RowFailure* failure) noexcept nogil:
    """Text r refused (under mark): one zero record at k, at its offset of failure,
    its mark in g.refused (what stands there copied); row_offsets of the next text set.
    Returns the new k."""
    memset(g.records + 5 * k, 0, 5)
    g.offsets[k] = failure.at
    if refuse(g.refused, k, failure.reason, g.text + g.row_start[r] + failure.at,
              failure.length, failure.at, True) < 0:
        g.out_of_memory = True
    row_offsets[r + 1] = k + 1
    return k + 1


cdef inline Py_ssize_t safe_cut(const unsigned char* p, Py_ssize_t c, bint epin) noexcept nogil:
    """A place at c or up to 7 bytes before it where a text can be cut with no token
    crossing it: a byte that continues no token (not a "^", nor EPIN's "'") and is not
    a letter after a modifier.  Where the 8 bytes are all such, a failure lies before
    c in any case (no token holds more than one "^" and one "'"): c."""
    cdef Py_ssize_t i
    cdef unsigned char kind, before
    for i in range(c, c - 8, -1):
        kind = byte_class[p[i]]
        if kind == K_CARET or (epin and kind == K_APOS):
            continue
        before = byte_class[p[i - 1]]
        if kind == K_LETTER and (before == K_PLUS or before == K_MINUS):
            continue
        return i
    return c


cdef Py_ssize_t scan_long_row(Grown* g, Py_ssize_t k, const unsigned char* p, Py_ssize_t n,
                              bint epin, bint strict, Py_ssize_t window,
                              RowFailure* failure) except -2:
    """tokenize over a text read alone (one longer than a piece, or not ASCII), window
    bytes at a time, each window cut where no token crosses (safe_cut): the output grows
    with the tokens found, not the text's length, and Ctrl-C stops it between windows.
    Its tokens are appended from record k, offsets from the text's start; returns the new
    k, or -1 with failure set (where, and the reason by the C API's rule, the one
    tokenize names, judged over the whole text).  strict: each window's scan ends at
    its first stray byte (strict_stray's), where the text fails if it did not before."""
    cdef Py_ssize_t base = 0, end, stop, last = -1, window_last, kk, j, stray
    cdef int reason
    while True:
        end = n if n - base <= window else safe_cut(p, base + window, epin)
        stray = end
        grow(g, k + (end - base) + 1)
        with nogil:
            if strict:
                stray = base + strict_stray(p + base, end - base, epin)
            kk = scan_batches(g, k, p + base, stray - base, epin, &stop, &reason,
                              &window_last)
            if base:
                for j in range(k, kk):
                    g.offsets[j] += base
        if window_last >= 0:
            last = base + window_last
        if reason:
            failure.at = base + stop
            failure.reason = stop_reason(p, n, base + stop, last, epin)
            return -1
        if stray < end:
            failure.at, failure.reason = stray, between_reason(p, n, stray, last, epin)
            return -1
        k = kk
        if end >= n:
            return k
        base = end
        PyErr_CheckSignals()


# Tokens the output has room for before the first piece: as many as the texts have
# characters (no token is shorter), up to this; more grows by doubling as pieces ask.
DEF RESERVED_TOKENS = 1 << 24


cdef TokenArray tokenize_rows(RowTexts texts, bint epin, bint mark, bint strict):
    """tokenize on each row of texts (_texts_c.pxi), its tokens in one run of records;
    no Python object per token.  The texts are read a piece at a time: the ASCII ones
    (FEEN is ASCII) copied back to back, "/" between, and scanned as one text; a
    longer one or any other alone, a window at a time.  A text tokenize refuses is a
    ParseError naming the row (``index``) and the offset (``position``), or under mark
    one marked entry for the row, at that offset.  strict: as tokenize's."""
    cdef Grown g
    cdef Py_ssize_t rows = texts.rows, i = 0, first, n, k = 0, used, failed, at, end, kk
    cdef int kind = TEXT_MISSING  # set by the first texts.text() of each piece
    cdef const unsigned char* p
    cdef bytes keep
    cdef RowFailure failure
    cdef Refusals refused
    cdef TokenArray result
    cdef bytes row_bytes = None
    cdef int64_t* row_offsets
    cdef void* more
    cdef Py_ssize_t text_piece = min(piece_size, TEXT_PIECE)
    cdef Py_ssize_t window = max(text_piece, 64)
    memset(&g, 0, sizeof(g))
    memset(&refused, 0, sizeof(refused))
    g.refused = &refused
    missing = []
    offsets, ranges = new_array("q"), new_array("q")
    if offsets_in_place():
        g.offsets_array = <PyObject*>offsets
        row_offsets = <int64_t*>pyarray_resize(ranges, rows + 1, 8)  # new: ours alone
    else:
        row_bytes = PyBytes_FromStringAndSize(NULL, 8 * (rows + 1))
        row_offsets = <int64_t*>PyBytes_AS_STRING(row_bytes)  # new: ours alone
    try:
        # Room for the tokens at once, as the pieces ask it (no token is shorter than a
        # character; each text's "/" counted): growing as the texts are read copied
        # the records and offsets at each doubling.  The pages never written are never
        # faulted in; past RESERVED_TOKENS the pieces grow it (a long text with few
        # tokens would reserve 13 bytes of address space a character).
        grow(&g, min(texts.length() + rows + 1, RESERVED_TOKENS))
        while i < rows:
            if i:  # Ctrl-C stops a long column
                PyErr_CheckSignals()
                texts.check()
            # A piece: ASCII texts (and missing ones, empty) up to TEXT_PIECE bytes
            # (piece_size if smaller), or one other or longer text alone.
            first, used = i, 0
            while i < rows and used < text_piece:
                kind = texts.text(i, &p, &n)
                if kind == TEXT_STOP and i == first:
                    texts.stop(i)
                # Rows are judged in order: a row that cannot be read waits for the rows
                # before it (a refused one among them is the error), read again after.
                if kind == TEXT_OTHER or kind == TEXT_STOP or (kind == TEXT_BYTES
                                                               and n > text_piece):
                    break
                if kind == TEXT_MISSING:
                    missing.append(i)
                    n = 0
                if used + n + 1 + 8 > g.text_room:  # 8 bytes of slack: short_key
                    g.text_room = 2 * (used + n + 1) + 4096
                    more = grown(g.text, g.text_room)
                    if more == NULL:
                        raise MemoryError()
                    g.text = <unsigned char*>more
                if i - first + 2 > g.row_room:
                    g.row_room = 2 * (i - first + 2) + 256
                    more = grown(g.row_start, 8 * g.row_room)
                    if more == NULL:
                        raise MemoryError()
                    g.row_start = <int64_t*>more
                g.row_start[i - first] = used
                if n:
                    memcpy(g.text + used, p, n)
                # After each text a "/": no token's byte, so no token crosses two texts,
                # and one a strict placement allows, so strict_stray reads a piece whole.
                g.text[used + n] = 0x2F
                used += n + 1
                i += 1
            if i > first:
                g.row_start[i - first] = used
                grow(&g, k + used)
                with nogil:
                    k = scan_piece(&g, k, i - first, epin, mark, strict, row_offsets + first,
                                   &failed, &failure)
                if g.out_of_memory:
                    raise MemoryError()
                if failed >= 0:  # raised
                    at = g.row_start[failed] + failure.at
                    end = at + attempt_length(g.text + at, g.row_start[failed + 1] - 1 - at, epin)
                    row_failed(&g, k, first + failed, epin, False, &failure,
                               (<bytes>g.text[at:end]).decode("ascii"), &refused)
                continue
            # A text alone: longer than a piece (read where it is: a list's str is held
            # by owner while signals run their handlers) or not ASCII (its characters
            # narrowed to bytes).
            row_offsets[i] = k
            keep = None
            if kind == TEXT_BYTES:
                owner = texts.row_holder(i)
            else:
                owner = texts.other_text(i)
                if owner is None:  # an Arrow row that is not UTF-8
                    k = not_utf8(&g, k, i, epin, mark, strict, texts.not_text,
                                 texts.not_text_at, window, &failure, &refused)
                    i += 1
                    continue
                n = PyUnicode_GET_LENGTH(owner)
                keep = byte_copy(owner)
                p = text_of(owner, keep)
            kk = scan_long_row(&g, k, p, n, epin, strict, window, &failure)
            if kk >= 0:
                k = kk
            else:
                end = failure.at + attempt_length(p + failure.at, n - failure.at, epin)
                k = row_failed(&g, k, i, epin, mark, &failure,
                               (<bytes>p[failure.at:end]).decode("latin-1")
                               if keep is None and owner is None
                               else owner[failure.at:end], &refused)
            i += 1
        row_offsets[rows] = k
        grow(&g, 1)  # a result of no token still has its (slack) records
        result = TokenArray.__new__(TokenArray)
        result.records, result.count, result.epin = g.records, k, epin
        g.records = NULL  # the result's now
        if refused.count:
            set_refusals(result, &refused)
        if g.offsets_array != NULL:  # written in place: its length is the tokens'
            pyarray_set_size(offsets, k)
        else:
            offsets.frombytes(PyMemoryView_FromMemory(<char*>g.offsets, 8 * k, PyBUF_READ))
        if row_bytes is not None:
            ranges.frombytes(row_bytes)
        result._layout = (offsets, ranges, new_array("q", missing),
                          None)  # no row labels yet
        return result
    finally:
        records_free(g.records)
        if g.offsets_array == NULL:  # else the array's, freed with it
            free(g.offsets)
        free(g.text)
        free(g.row_start)
        free(g.refused_keys)
        free(g.refused_how)
        refusals_free(&refused)


cdef Py_ssize_t not_utf8(Grown* g, Py_ssize_t k, Py_ssize_t row, bint epin, bint mark,
                         bint strict, const unsigned char* text, Py_ssize_t bad, Py_ssize_t window,
                         RowFailure* failure, Refusals* refused) except -2:
    """An Arrow row whose bytes are not UTF-8 from text[bad] on: judged up to that byte
    (read where it lies when ASCII, else decoded and narrowed), then failing there as
    parse_many fails such an entry (its U+FFFD is no letter) unless a token before it
    failed first; the row's ParseError or mark, as row_failed."""
    cdef str before = None
    cdef bytes keep = None
    cdef const unsigned char* p = text
    cdef Py_ssize_t n = bad, end
    if not all_ascii(text, bad):
        before = PyUnicode_DecodeUTF8(<const char*>text, bad, NULL)
        n = PyUnicode_GET_LENGTH(before)
        keep = byte_copy(before)
        p = text_of(before, keep)
    if scan_long_row(g, k, p, n, epin, strict, window, failure) >= 0:
        failure.at, failure.reason = n, R_NOT_A_LETTER
        token = "\ufffd"
    else:
        end = failure.at + attempt_length(p + failure.at, n - failure.at, epin)
        token = ((<bytes>p[failure.at:end]).decode("ascii") if before is None
                 else before[failure.at:end])
    return row_failed(g, k, row, epin, mark, failure, token, refused)


cdef Py_ssize_t row_failed(Grown* g, Py_ssize_t k, Py_ssize_t row, bint epin, bint mark,
                           const RowFailure* failure, str token, Refusals* refused) except -2:
    """A text tokenize refuses: ParseError (raise), or one marked entry for its row at
    k, where it failed (mark); returns the new k."""
    cdef bytes text
    if not mark:
        raise _ParseError(token, _reason_text(failure.reason, notation_of(epin)),
                          notation_of(epin), row, failure.at, row=row)
    memset(g.records + 5 * k, 0, 5)
    g.offsets[k] = failure.at
    text = token.encode("utf-8", "surrogatepass")
    if refuse(refused, k, failure.reason, <const unsigned char*>PyBytes_AS_STRING(text),
              len(text), failure.at, False) < 0:
        raise MemoryError()
    return k + 1


def rows_of(row_offsets):
    """Each token's row, from the rows' token ranges (rows + 1 entries)."""
    cdef Py_ssize_t rows = len(row_offsets) - 1
    cdef const int64_t* ranges = <const int64_t*>array_address(row_offsets)
    cdef bytes data
    cdef int64_t* out
    if rows < 0:
        return new_array("q")
    # Written into its array in place where the core can (_pyarray.h): built aside and
    # copied in, the array cost twenty times the filling (fresh pages, twice).
    if offsets_in_place():
        result = new_array("q")
        out = <int64_t*>pyarray_resize(result, ranges[rows], 8)  # new: ours alone
        with nogil:
            fill_rows(out, ranges, rows)
        return result
    data = PyBytes_FromStringAndSize(NULL, 8 * ranges[rows])
    out = <int64_t*>PyBytes_AS_STRING(data)  # new: ours alone
    with nogil:
        fill_rows(out, ranges, rows)
    return array_of_bytes("q", data)
