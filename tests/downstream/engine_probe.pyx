# cython: language_level=3
"""A third party's module: cimports the installed sashite_epin's public C-level API (the
test suite compiles it in a temporary folder, against the installed package only)."""

from libc.stdlib cimport free, malloc
from libc.time cimport clock, CLOCKS_PER_SEC
from sashite_epin cimport (CODE_LIMIT, R_MULTIPLE_TERMINAL_MARKERS, Record, ScanTables, code_abbr,
                           code_derived, code_is_valid, code_record, format_token,
                           reason_text, record_code, scan_many, scan_prefix, scan_tables,
                           scan_token, scan_with, stop_reason)


def whole(bytes token, bint epin):
    cdef const unsigned char* p = token
    cdef Py_ssize_t n = len(token)
    cdef int code
    with nogil:
        code = scan_token(p, n, epin)
    return code


def split(bytes text, bint epin):
    """Greedy scan of back-to-back tokens: [(code, used), ...] until a failure
    (its (-reason, 0) is the last item)."""
    cdef const unsigned char* p = text
    cdef Py_ssize_t n = len(text), pos = 0, used
    cdef int code
    out = []
    while pos < n:
        with nogil:
            code = scan_prefix(p + pos, n - pos, epin, &used)
        out.append((code, used))
        if code < 0:
            break
        pos += used
    return out


def formatted(int code):
    cdef char buf[4]
    cdef int n = format_token(code, buf)
    return None if n < 0 else buf[:n]


def record(int code):
    cdef unsigned char r[5]
    if not code_is_valid(code):
        return None
    code_record(code, r)
    return bytes(r[:5]), chr(code_abbr(code)), code_derived(code)


def reason(int number, bint epin):
    """The C text of a reason number (or a negative scan result), None for NULL."""
    cdef const char* text = reason_text(number, epin)
    return None if text == NULL else text.decode("ascii")


def records_of(result):
    """A TokenArray read as a typed memoryview of Records (no copy): each entry's
    (letter, side, state, terminal, derived) and its code (-1 for an invalid entry)."""
    cdef const Record[::1] records = result
    cdef Py_ssize_t i
    out = []
    for i in range(records.shape[0]):
        out.append(((records[i].letter, records[i].side, records[i].state,
                     records[i].terminal, records[i].derived),
                    record_code(<const unsigned char*>&records[i])))
    return out


def constants():
    return CODE_LIMIT, R_MULTIPLE_TERMINAL_MARKERS


def scan_speed(bytes text, int rounds):
    """ns per token of scan_prefix over back-to-back tokens (the C-level figure)."""
    cdef const unsigned char* p = text
    cdef Py_ssize_t n = len(text), pos, used, tokens = 0
    cdef long checksum = 0
    cdef int _round
    cdef double start
    with nogil:
        start = clock()
        for _round in range(rounds):
            pos = 0
            while pos < n:
                checksum += scan_prefix(p + pos, n - pos, True, &used)
                pos += used if used else 1
                tokens += 1
        start = (clock() - start) / CLOCKS_PER_SEC
    return start * 1e9 / tokens, checksum


def scan_speed_inline(bytes text, int rounds):
    """scan_speed with scan_with inlined into this loop."""
    cdef const unsigned char* p = text
    cdef const ScanTables* t = scan_tables()
    cdef Py_ssize_t n = len(text), pos, used, tokens = 0
    cdef long checksum = 0
    cdef int _round
    cdef double start
    with nogil:
        start = clock()
        for _round in range(rounds):
            pos = 0
            while pos < n:
                checksum += scan_with(t, p + pos, n - pos, True, &used)
                pos += used if used else 1
                tokens += 1
        start = (clock() - start) / CLOCKS_PER_SEC
    return start * 1e9 / tokens, checksum


def scan_speed_independent(bytes text, int rounds):
    """ns per scan_with call when the token starts are known (no call waits on the
    previous one's length): the cost of scanning one token."""
    cdef const unsigned char* p = text
    cdef const ScanTables* t = scan_tables()
    cdef Py_ssize_t n = len(text), pos = 0, used, count = 0, i
    cdef Py_ssize_t* starts = <Py_ssize_t*>malloc(sizeof(Py_ssize_t) * (n + 1))
    cdef long checksum = 0
    cdef int _round
    cdef double start
    if starts == NULL:
        raise MemoryError()
    while pos < n:
        starts[count] = pos
        scan_with(t, p + pos, n - pos, True, &used)
        pos += used if used else 1
        count += 1
    with nogil:
        start = clock()
        for _round in range(rounds):
            for i in range(count):
                checksum += scan_with(t, p + starts[i], n - starts[i], True, &used) + used
        start = (clock() - start) / CLOCKS_PER_SEC
    free(starts)
    return start * 1e9 / (count * rounds), checksum


def split_many(bytes text, bint epin, Py_ssize_t room):
    """scan_many over the whole text, room tokens per call: ([(code, start), ...],
    failure position or None, reason)."""
    cdef const unsigned char* p = text
    cdef Py_ssize_t n = len(text), base = 0, stop, found, j
    cdef unsigned short* codes = <unsigned short*>malloc(sizeof(unsigned short) * room)
    cdef Py_ssize_t* starts = <Py_ssize_t*>malloc(sizeof(Py_ssize_t) * room)
    cdef int reason = 0
    out = []
    try:
        while True:
            found = scan_many(p + base, n - base, epin, codes, starts, room, &stop, &reason)
            out.extend((codes[j], base + starts[j]) for j in range(found))
            if reason:
                return out, base + stop, reason
            base += stop
            if base >= n:
                return out, None, 0
    finally:
        free(codes)
        free(starts)


def scan_many_speed(bytes text, int rounds):
    """ns per token of scan_many over back-to-back tokens, room for all of them."""
    cdef const unsigned char* p = text
    cdef Py_ssize_t n = len(text), stop, found = 0
    cdef unsigned short* codes = <unsigned short*>malloc(sizeof(unsigned short) * n)
    cdef Py_ssize_t* starts = <Py_ssize_t*>malloc(sizeof(Py_ssize_t) * n)
    cdef int reason, _round
    cdef double start
    with nogil:
        start = clock()
        for _round in range(rounds):
            found += scan_many(p, n, True, codes, starts, n, &stop, &reason)
        start = (clock() - start) / CLOCKS_PER_SEC
    free(codes)
    free(starts)
    return start * 1e9 / found, found // rounds


def tokenize_failure(bytes text, bint epin):
    """What tokenize reads, through scan_many and stop_reason: ([code, ...], stop,
    reason) with stop None when the whole text is tokens and what lies between."""
    cdef const unsigned char* p = text
    cdef Py_ssize_t n = len(text), found, stop, j, previous = -1
    cdef int reason = 0
    cdef unsigned short* codes = <unsigned short*>malloc((n + 1) * sizeof(unsigned short))
    cdef Py_ssize_t* starts = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
    try:
        with nogil:
            found = scan_many(p, n, epin, codes, starts, n + 1, &stop, &reason)
        if found:
            previous = starts[found - 1]
        out = [codes[j] for j in range(found)]
        if not reason:
            return out, None, 0
        return out, stop, stop_reason(p, n, stop, previous, epin)
    finally:
        free(codes)
        free(starts)
