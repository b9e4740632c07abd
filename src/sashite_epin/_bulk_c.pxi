# Bulk parsing and the TokenArray result: part of the compiled core (included by
# _core_c.pyx, so the scanning tables stay private C arrays that inline).  The twin
# is _bulk_py.py.

from cpython.buffer cimport (PyBUF_FORMAT, PyBUF_RECORDS_RO, PyBUF_WRITABLE,
                             PyBuffer_IsContiguous, PyBuffer_Release, PyObject_CheckBuffer,
                             PyObject_GetBuffer)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from cpython cimport array
from libc.stdlib cimport free, malloc, realloc
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset

import array as py_array

cdef extern from "Python.h":
    # Pointer forms of the str macros: the list loop touches items without refcounting.
    bint str_check "PyUnicode_Check"(PyObject* o)
    bint str_is_exact "PyUnicode_CheckExact"(PyObject* o)
    bint str_is_compact_ascii "PyUnicode_IS_COMPACT_ASCII"(PyObject* o)
    Py_ssize_t str_length "PyUnicode_GET_LENGTH"(PyObject* o)
    void* str_data "PyUnicode_DATA"(PyObject* o)
    PyObject** PySequence_Fast_ITEMS(object o)

cdef extern from "_split.h" nogil:
    uint64_t sep_mask64 "sashite_sep_mask64"(const unsigned char* p)
    uint64_t sep_mask_tail "sashite_sep_mask_tail"(const unsigned char* p, int n)
    uint64_t load64 "sashite_load64"(const unsigned char* p)
    int ctz64 "sashite_ctz64"(uint64_t x)
    int popcount64 "sashite_popcount64"(uint64_t x)

# Slack after the last record: a record is written as one 8-byte store.
DEF SLACK = 8
cdef const char* RECORD_FORMAT = b"T{B:letter:B:side:B:state:B:terminal:B:derived:}"

cdef unsigned char record_of[1024][8]         # the 5-byte record of each code (0 beyond)
cdef unsigned short keep_mask[6]              # shape bits a token of length 0..4, 5+ keeps
cdef unsigned short absent_fill[6]            # ... and the K_ABSENT classes after its end
cdef unsigned char token_bytes[CODE_LIMIT][4]  # the token of each code, and its length
cdef unsigned char token_length[CODE_LIMIT]
cdef PyObject* token_strs[CODE_LIMIT]

# Whole-token check for the bulk loops: a token's first bytes, read as one integer with
# the bytes past its length masked off, must equal key_of[code] for the code its bytes
# suggest (guess_code).  key_of comes from format_token, so this only confirms what the
# grammar already accepted; anything else (an invalid token, a long one) goes to
# scan_token, which decides and gives the reason.
cdef uint64_t length_mask[8]            # keeps bytes 0..n-1 of a load (n < 5)
cdef uint64_t key_of[1024]              # any 10-bit guess indexes these two
cdef unsigned char length_of[1024]      # 0 where no token: never matches
cdef list kept_strs = []


cdef void build_bulk_tables() noexcept nogil:
    cdef int code, b
    for b in range(6):
        # Lengths 0 and 5+ get class 7 at position 0: a shape no token has (entry 0).
        keep_mask[b] = (1 << (3 * b)) - 1 if 1 <= b <= 4 else 0
        absent_fill[b] = absent_tail(b) if 1 <= b <= 4 else 7
    memset(record_of, 0, sizeof(record_of))
    for code in range(CODE_LIMIT):
        token_length[code] = 0
        if code_is_valid(code):
            token_length[code] = format_token(code, <char*>token_bytes[code])
            code_record(code, record_of[code])
    build_keys()


cdef void build_keys() noexcept nogil:
    cdef unsigned char padded[8]
    cdef int code, n
    for n in range(8):
        memset(padded, 0, 8)
        memset(padded, 0xFF, n if n < 5 else 0)
        length_mask[n] = load64(padded)
    for code in range(1024):
        memset(padded, 0, 8)
        length_of[code] = 0
        if code < CODE_LIMIT:
            length_of[code] = token_length[code]
            memcpy(padded, token_bytes[code], token_length[code])
        key_of[code] = load64(padded)


cdef inline int lookup_code(const unsigned char* q, Py_ssize_t n, int forbidden) noexcept nogil:
    """The code of the n-byte token at q (8 bytes readable there), or -1: then ask
    scan_token.  forbidden: code bits the notation lacks (1, derived, for PIN)."""
    cdef Py_ssize_t nn = n if n < 8 else 7
    cdef uint64_t key = load64(q) & length_mask[nn]
    cdef int code = guess_code(q, nn)
    if key_of[code] != key or length_of[code] != n or code & forbidden:
        return -1
    return code


cdef inline int guess_code(const unsigned char* q, Py_ssize_t nn) noexcept nogil:
    """The code q[0..nn-1] would have if it were a token (q[0] below 'A': a '+'/'-'
    first), arithmetic only; any 10-bit value, checked against key_of by the caller."""
    cdef int modified = q[0] < 0x40
    cdef int letter = q[modified]
    cdef int rank = 2 - modified * (2 - ((q[0] >> 1) & 1))  # '+' 0x2B -> 1, '-' 0x2D -> 0
    cdef int terminal = q[modified + 1] == 0x5E
    cdef int derived = q[nn - 1] == 0x27
    return ((((letter & 0x1F) - 1) << 5) | (((letter >> 5) & 1) << 4) | (rank << 2)
            | (terminal << 1) | derived) & 1023


cdef inline int code_of_record(const unsigned char* r) noexcept nogil:
    """The code of a record, or -1 for the zero record of an invalid (marked) entry."""
    if r[0] == 0:
        return -1
    return ((r[0] - 65) << 5) | (r[1] << 4) | ((2 - r[2]) << 2) | (r[3] << 1) | r[4]


cdef inline int fast_code(unsigned char b0, unsigned char b1, unsigned char b2,
                          unsigned char b3, Py_ssize_t n, bint epin) noexcept nogil:
    """scan_token without a data-dependent branch, for the bulk loops: b0..b3 are the
    token's first bytes (anything past its end), n its length.  The code, or -1."""
    cdef Py_ssize_t nn = n if n < 5 else 5
    cdef unsigned int shape = (byte_class[b0] | (byte_class[b1] << 3)
                               | (byte_class[b2] << 6) | (byte_class[b3] << 9))
    cdef unsigned short entry
    cdef unsigned char letter
    shape = (shape & keep_mask[nn]) | absent_fill[nn]
    entry = epin_shapes[shape] if epin else pin_shapes[shape]
    letter = b1 if entry & 0x100 else b0
    if not entry & SHAPE_VALID:
        return -1
    return (((letter & 0x1F) - 1) << 5) | (((letter >> 5) & 1) << 4) | (entry & 0x0F)


build_bulk_tables()
for _code in range(CODE_LIMIT):
    _token = format_code(_code) if code_is_valid(_code) else None
    kept_strs.append(_token)
    token_strs[_code] = <PyObject*>_token


cdef struct Failure:
    Py_ssize_t index    # which token
    Py_ssize_t start    # where it starts (bytes) or its element (arrays)
    Py_ssize_t length
    int reason


cdef struct IndexList:  # invalid indices under errors="mark", grown without the GIL
    Py_ssize_t* items
    Py_ssize_t count
    Py_ssize_t room


cdef int index_list_add(IndexList* lst, Py_ssize_t index) noexcept nogil:
    cdef Py_ssize_t* grown
    if lst.count == lst.room:
        lst.room = lst.room * 2 + 16
        grown = <Py_ssize_t*>realloc(lst.items, lst.room * sizeof(Py_ssize_t))
        if grown == NULL:
            return -1
        lst.items = grown
    lst.items[lst.count] = index
    lst.count += 1
    return 0


cdef object index_array(IndexList* lst):
    cdef array.array result = py_array.array("q", [0]) * lst.count
    cdef Py_ssize_t i
    for i in range(lst.count):
        result.data.as_longlongs[i] = lst.items[i]
    return result


@cython.final
cdef class TokenArray:
    """The result of ``parse_many``: one 5-byte record per token.

    ``len()``, indexing and iteration give the interned Pin / Epin objects (``None`` at
    an entry marked invalid); the buffer protocol exports the records as a structured
    array with uint8 fields ``letter, side, state, terminal, derived`` (zero-copy with
    ``numpy.asarray``).  ``tokens()``, ``to_bytes()`` and ``codes()`` format back.
    """

    cdef unsigned char* records
    cdef Py_ssize_t count
    cdef bint epin
    cdef object _invalid
    cdef Py_ssize_t view_shape[1]
    cdef Py_ssize_t view_strides[1]

    def __cinit__(self):
        self.records = NULL
        self.count = 0
        self._invalid = EMPTY_INDICES

    def __dealloc__(self):
        free(self.records)

    @property
    def notation(self):
        """``"PIN"`` or ``"EPIN"``."""
        return "EPIN" if self.epin else "PIN"

    @property
    def invalid(self):
        """Indices of the entries marked invalid (``errors="mark"``), an array('q')."""
        return self._invalid

    def __len__(self):
        return self.count

    cdef object entry(self, Py_ssize_t i):
        cdef int code = code_of_record(self.records + 5 * i)
        return None if code < 0 else table_object(code, self.epin)

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return self.take(range(self.count)[index])
        i = index
        if i < 0:
            i += self.count
        if not 0 <= i < self.count:
            raise IndexError("TokenArray index out of range")
        return self.entry(i)

    cdef TokenArray take(self, object indices):
        cdef Py_ssize_t k = 0, i
        cdef TokenArray part = new_token_array(len(indices), self.epin)
        marked = []
        for i in indices:
            memcpy(part.records + 5 * k, self.records + 5 * i, 5)
            if self.records[5 * i] == 0:
                marked.append(k)
            k += 1
        if marked:
            part._invalid = py_array.array("q", marked)
        return part

    def __iter__(self):
        cdef Py_ssize_t i
        for i in range(self.count):
            yield self.entry(i)

    def __getbuffer__(self, Py_buffer* view, int flags):
        if flags & PyBUF_WRITABLE:
            raise BufferError("TokenArray is read-only")
        self.view_shape[0] = self.count
        self.view_strides[0] = 5
        view.buf = self.records
        view.obj = self
        view.len = 5 * self.count
        view.readonly = 1
        view.itemsize = 5
        view.format = <char*>RECORD_FORMAT if flags & PyBUF_FORMAT else NULL
        view.ndim = 1
        view.shape = self.view_shape
        view.strides = self.view_strides
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer* view):
        pass

    cdef int first_marked(self) except -2:
        if len(self._invalid):
            raise ValueError(f"entry {self._invalid[0]} is invalid: nothing to format")
        return 0

    def tokens(self):
        """The tokens as a list of str (ValueError if any entry is marked invalid)."""
        cdef Py_ssize_t i
        cdef PyObject* token
        self.first_marked()
        result = PyList_New(self.count)
        for i in range(self.count):
            token = token_strs[code_of_record(self.records + 5 * i)]
            Py_INCREF(<object>token)
            PyList_SET_ITEM(result, i, <object>token)
        return result

    def to_bytes(self, sep=b"\n"):
        """The tokens joined by ``sep`` (bytes): what parse_many read, for single separators."""
        cdef const unsigned char[::1] separator = (
            sep if isinstance(sep, bytes) else memoryview(sep).cast("B"))
        cdef Py_ssize_t sep_len = separator.shape[0], total = 0, i
        cdef int code
        cdef char* out
        self.first_marked()
        if self.count == 0:
            return b""
        for i in range(self.count):
            total += token_length[code_of_record(self.records + 5 * i)]
        total += sep_len * (self.count - 1)
        result = PyBytes_FromStringAndSize(NULL, total)
        out = PyBytes_AS_STRING(result)
        with nogil:
            join_tokens(self.records, self.count, &separator[0] if sep_len else NULL, sep_len, out)
        return result

    def codes(self):
        """The codes as an array('H'); 0xFFFF at entries marked invalid."""
        cdef array.array result = py_array.array("H", [0]) * self.count
        cdef Py_ssize_t i
        cdef int code
        for i in range(self.count):
            code = code_of_record(self.records + 5 * i)
            result.data.as_ushorts[i] = 0xFFFF if code < 0 else code
        return result

    def sorted(self):
        """A new TokenArray of the same tokens in code order, which is FEEN's canonical
        hand order (a counting sort: O(n)); ValueError if any entry is marked invalid."""
        cdef Py_ssize_t i, start = 0, count[CODE_LIMIT]
        cdef int code
        cdef TokenArray result
        self.first_marked()
        result = new_token_array(self.count, self.epin)
        memset(count, 0, sizeof(count))
        with nogil:
            for i in range(self.count):
                count[code_of_record(self.records + 5 * i)] += 1
            for code in range(CODE_LIMIT):
                for i in range(start, start + count[code]):
                    memcpy(result.records + 5 * i, record_of[code], 8)
                start += count[code]
        return result

    def __eq__(self, other):
        if not isinstance(other, TokenArray):
            return NotImplemented
        cdef TokenArray that = other
        return (self.epin == that.epin and self.count == that.count
                and (<bytes>self.records[:5 * self.count])
                == (<bytes>that.records[:5 * that.count]))

    __hash__ = None

    def __repr__(self):
        shown = ", ".join(repr(None if e is None else str(e)) for e in self[:4])
        more = ", ..." if self.count > 4 else ""
        return f"<TokenArray {self.notation} [{shown}{more}] ({self.count} tokens)>"

    def __reduce__(self):
        return (rebuild_token_array, (self.epin, bytes(self)))


cdef object EMPTY_INDICES = py_array.array("q")


cdef void join_tokens(const unsigned char* records, Py_ssize_t count,
                      const unsigned char* sep, Py_ssize_t sep_len, char* out) noexcept nogil:
    cdef Py_ssize_t i
    cdef int code
    for i in range(count):
        code = code_of_record(records + 5 * i)
        memcpy(out, token_bytes[code], token_length[code])
        out += token_length[code]
        if i + 1 < count:
            if sep_len == 1:
                out[0] = sep[0]
            else:
                memcpy(out, sep, sep_len)
            out += sep_len


cdef TokenArray new_token_array(Py_ssize_t count, bint epin):
    cdef TokenArray result = TokenArray.__new__(TokenArray)
    result.records = <unsigned char*>malloc(5 * count + SLACK)
    if result.records == NULL:
        raise MemoryError()
    result.count = count
    result.epin = epin
    return result


def rebuild_token_array(bint epin, bytes records):
    """Unpickling: records are checked, never trusted."""
    cdef Py_ssize_t count = len(records) // 5, i
    cdef TokenArray result
    cdef const unsigned char* r = records
    if len(records) % 5:
        raise ValueError("records must be a multiple of 5 bytes")
    result = new_token_array(count, epin)
    marked = []
    for i in range(count):
        code = code_of_record(r + 5 * i)
        if code < 0 and r[5 * i + 1 : 5 * i + 5] == b"\0\0\0\0":
            marked.append(i)
        elif not (code_is_valid(code) and (epin or not code & 1)
                  and memcmp5(record_of[code], r + 5 * i)):
            raise ValueError(f"record {i} is not a valid {'EPIN' if epin else 'PIN'} record")
    memcpy(result.records, r, 5 * count)
    if marked:
        result._invalid = py_array.array("q", marked)
    return result


cdef inline bint memcmp5(const unsigned char* a, const unsigned char* b) noexcept nogil:
    return a[0] == b[0] and a[1] == b[1] and a[2] == b[2] and a[3] == b[3] and a[4] == b[4]


# ---------------------------------------------------------------------------------
# parse_many


def parse_many(tokens, bint epin, errors="raise"):
    """Parse many tokens at once into a TokenArray; see Pin.parse_many / Epin.parse_many."""
    cdef bint mark
    if errors == "raise":
        mark = False
    elif errors == "mark":
        mark = True
    else:
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!r}")
    if isinstance(tokens, (list, tuple)):
        return parse_sequence(tokens, epin, mark)
    if isinstance(tokens, str):
        raise TypeError("parse_many takes many tokens (a list of str, a bytes-like object "
                        "or a numpy array), not one str")
    if PyObject_CheckBuffer(tokens):
        return parse_buffer(tokens, epin, mark)
    try:
        items = list(tokens)
    except TypeError:
        raise TypeError("parse_many takes a list of str, a bytes-like object or a numpy "
                        f"array, not {type(tokens).__name__}") from None
    return parse_sequence(items, epin, mark)


cdef TokenArray parse_sequence(object seq, bint epin, bint mark):
    # No Python code runs inside the loop (no allocation, no callbacks), so the items
    # cannot change under it while the GIL is held.
    cdef Py_ssize_t count = len(seq), i
    cdef PyObject** items = PySequence_Fast_ITEMS(seq)
    cdef PyObject* item
    cdef TokenArray result = new_token_array(count, epin)
    cdef unsigned char* out = result.records
    cdef IndexList marked = IndexList(NULL, 0, 0)
    cdef int code
    cdef const unsigned char* p
    cdef Py_ssize_t n, start = 0
    # Fast loop: exact, compact-ASCII str items that are valid tokens.  Reads are
    # clamped to the str's own NUL terminator, so a short token is never over-read.
    for start in range(count):
        item = items[start]
        if not (str_is_exact(item) and str_is_compact_ascii(item)):
            break
        n = str_length(item)
        p = <const unsigned char*>str_data(item)
        code = fast_code(p[0], p[1 if n > 1 else n], p[2 if n > 2 else n],
                         p[3 if n > 3 else n], n, epin)
        if code < 0:
            break
        memcpy(out + 5 * start, record_of[code], 8)
    else:
        return result
    # Precise loop, from the first item the fast loop left: every error and reason.
    try:
        for i in range(start, count):
            item = items[i]
            if not str_check(item):
                raise TypeError(f"item {i} is {type(<object>item).__name__}, not str")
            if str_is_compact_ascii(item):
                code = scan_token(<const unsigned char*>str_data(item), str_length(item), epin)
            else:
                code = scan_str(<object>item, epin)
            if code >= 0:
                memcpy(out + 5 * i, record_of[code], 8)
                continue
            if not mark:
                raise ParseError(<object>item, reason_text(-code, notation_of(epin)),
                                 notation_of(epin), i)
            memset(out + 5 * i, 0, 5)
            if index_list_add(&marked, i) < 0:
                raise MemoryError()
        if marked.count:
            result._invalid = index_array(&marked)
    finally:
        free(marked.items)
    return result


cdef TokenArray parse_buffer(object obj, bint epin, bint mark):
    cdef Py_buffer view
    cdef bytes fmt
    PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO)
    try:
        fmt = view.format if view.format != NULL else b"B"
        if fmt[-1:] in (b"s", b"w"):
            return parse_fixed_width(&view, fmt[-1:] == b"w", fmt, epin, mark)
        if view.itemsize != 1 or fmt.lstrip(b"@=<>!") not in (b"B", b"b", b"c"):
            raise TypeError(f"parse_many reads bytes, or numpy arrays of dtype S or U; "
                            f"not a buffer of format {fmt.decode('ascii', 'replace')!r}")
        if not PyBuffer_IsContiguous(&view, b'C'):
            raise ValueError("parse_many needs a contiguous bytes buffer "
                             "(copy it first, e.g. bytes(view))")
        return parse_bytes(<const unsigned char*>view.buf, view.len, epin, mark)
    finally:
        PyBuffer_Release(&view)


cdef inline uint64_t block_mask(const unsigned char* p, Py_ssize_t size,
                                Py_ssize_t b) noexcept nogil:
    """Separator mask of the 64 bytes from b (past the end: separators)."""
    return sep_mask64(p + b) if size - b >= 64 else sep_mask_tail(p + b, <int>(size - b))


cdef Py_ssize_t count_tokens(const unsigned char* p, Py_ssize_t size) noexcept nogil:
    """How many runs of non-space bytes p[0..size-1] holds: a popcount of token starts
    (a non-separator after a separator) per 64-byte block."""
    cdef Py_ssize_t b = 0, count = 0
    cdef uint64_t word, carry = 0   # carry: the block's last byte was inside a token
    while b < size:
        word = ~block_mask(p, size, b)
        count += popcount64(word & ~((word << 1) | carry))
        carry = word >> 63
        b += 64
    return count


cdef int split_and_scan(const unsigned char* p, Py_ssize_t size, Py_ssize_t count,
                        bint epin, bint mark, unsigned char* out, Failure* failure,
                        IndexList* marked) noexcept nogil:
    """Scan the count whitespace-separated tokens of p into out; 1 on a failure to
    report (failure filled), 2 when p no longer holds count tokens, -1 when out of
    memory, 0 otherwise.

    count comes from count_tokens, and nothing holds the buffer still between the two
    passes (another thread may write into a bytearray, another process into a mapped
    file): out has room for count records only, so that is checked, never assumed.

    Two stages per 64-byte block: separator masks give every token start and end at
    once (bit tricks, no per-byte branch); then each token is decoded on its own, so
    consecutive tokens do not wait on each other.  A start with no end yet (a token
    crossing blocks) waits in starts[0] for the next block."""
    cdef Py_ssize_t b = 0, k = 0, s, n, safe = size - 8, pending = -1
    cdef Py_ssize_t starts[34]  # at most 32 starts in 64 bytes, plus a pending one
    cdef int code, taken, have, forbidden = 0 if epin else 1
    cdef uint64_t word, begins, ends, carry = 0
    while b < size or (b == size and carry):  # the extra block ends a token at size
        word = ~block_mask(p, size, b)        # bit set: inside a token
        begins = word & ~((word << 1) | carry)
        ends = ~word & ((word << 1) | carry)  # the separator right after a token
        carry = word >> 63
        have = 0
        if pending >= 0:
            starts[0] = pending
            have = 1
        while begins:
            starts[have] = b + ctz64(begins)
            have += 1
            begins &= begins - 1
        taken = 0
        while ends:
            if k == count:
                return 2
            s = starts[taken]
            taken += 1
            n = b + ctz64(ends) - s
            ends &= ends - 1
            code = lookup_code(p + s, n, forbidden) if s <= safe else -1
            if code < 0:
                code = scan_token(p + s, n, epin)
                if code < 0:
                    if not mark:
                        failure.index, failure.start = k, s
                        failure.length, failure.reason = n, -code
                        return 1
                    memset(out + 5 * k, 0, 8)
                    k += 1
                    if index_list_add(marked, k - 1) < 0:
                        return -1
                    continue
            memcpy(out + 5 * k, record_of[code], 8)
            k += 1
        pending = starts[taken] if taken < have else -1
        b += 64
    return 0 if k == count else 2


cdef TokenArray parse_bytes(const unsigned char* p, Py_ssize_t size, bint epin, bint mark):
    cdef Py_ssize_t count
    cdef TokenArray result
    cdef Failure failure
    cdef IndexList marked = IndexList(NULL, 0, 0)
    cdef int status
    with nogil:
        count = count_tokens(p, size)
    result = new_token_array(count, epin)
    try:
        with nogil:
            status = split_and_scan(p, size, count, epin, mark, result.records, &failure, &marked)
        if status < 0:
            raise MemoryError()
        if status == 2:
            raise RuntimeError("the buffer changed while parse_many read it")
        if status > 0:
            raise ParseError(<bytes>p[failure.start:failure.start + failure.length],
                             reason_text(failure.reason, notation_of(epin)),
                             notation_of(epin), failure.index)
        if marked.count:
            result._invalid = index_array(&marked)
    finally:
        free(marked.items)
    return result


cdef inline Py_UCS4 code_point_at(const unsigned char* e, Py_ssize_t i) noexcept nogil:
    # memcpy: a U element need not be 4-byte aligned (a view at an odd offset).
    cdef Py_UCS4 cp
    memcpy(&cp, e + 4 * i, 4)
    return cp


cdef int scan_element(const unsigned char* e, Py_ssize_t width, bint wide, bint epin,
                      Py_ssize_t* length) noexcept nogil:
    """Scan one numpy S (bytes) or U (UCS4 code points) element, NUL padding removed."""
    cdef unsigned char buf[4]
    cdef Py_ssize_t n = width, i
    cdef Py_UCS4 cp
    if not wide:
        while n and e[n - 1] == 0:
            n -= 1
        length[0] = n
        return scan_token(e, n, epin)
    while n and code_point_at(e, n - 1) == 0:
        n -= 1
    length[0] = n
    if n > 4:
        return scan_token(buf, n, epin)  # too long: the table is not read
    for i in range(n):
        cp = code_point_at(e, i)
        buf[i] = <unsigned char>cp if cp < 0x80 else 0x80
    return scan_token(buf, n, epin)


cdef object element_token(const unsigned char* e, Py_ssize_t n):
    """What an error names for an invalid U element: its text, or its raw bytes when a
    unit is no code point (numpy does not check what a buffer it is given holds)."""
    units = [<unsigned int>code_point_at(e, i) for i in range(n)]
    if all(unit < 0x110000 for unit in units):
        return "".join(map(chr, units))
    return <bytes>e[:4 * n]


cdef TokenArray parse_fixed_width(Py_buffer* view, bint wide, bytes fmt, bint epin, bint mark):
    cdef Py_ssize_t count, stride, width, k, length = 0
    cdef const unsigned char* base = <const unsigned char*>view.buf
    cdef const unsigned char* e
    cdef TokenArray result
    cdef IndexList marked = IndexList(NULL, 0, 0)
    cdef Failure failure
    cdef int code, status = 0
    if view.ndim != 1:
        raise ValueError(f"parse_many needs a 1-dimensional array, not {view.ndim}-dimensional")
    if wide and fmt[:1] in (b">", b"!"):
        raise ValueError("parse_many reads U arrays in native byte order (use .astype('U'))")
    count, stride = view.shape[0], view.strides[0]
    width = view.itemsize // 4 if wide else view.itemsize
    result = new_token_array(count, epin)
    try:
        with nogil:
            for k in range(count):
                e = base + k * stride
                code = scan_element(e, width, wide, epin, &length)
                if code >= 0:
                    memcpy(result.records + 5 * k, record_of[code], 8)
                    continue
                if not mark:
                    failure.index, failure.start, failure.length = k, k * stride, length
                    failure.reason = -code
                    status = 1
                    break
                memset(result.records + 5 * k, 0, 5)
                if index_list_add(&marked, k) < 0:
                    status = -1
                    break
        if status < 0:
            raise MemoryError()
        if status > 0:
            e = base + failure.start
            if wide:
                token = element_token(e, failure.length)
            else:
                token = <bytes>e[:failure.length]
            raise ParseError(token, reason_text(failure.reason, notation_of(epin)),
                             notation_of(epin), failure.index)
        if marked.count:
            result._invalid = index_array(&marked)
    finally:
        free(marked.items)
    return result
