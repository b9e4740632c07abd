# parse_many over Arrow string data: part of the compiled core (included by
# _core_c.pyx).  Any object exporting the Arrow PyCapsule interface (__arrow_c_array__ or
# __arrow_c_stream__) is read through the C Data Interface structs directly: no pyarrow
# import, no Python object per element, the GIL released while the buffers are scanned.
# Its twin is _arrow_py.py (the same reading through ctypes).
#
# Types read: utf8 ("u"), large_utf8 ("U"), string_view ("vu"), a dictionary of any
# integer index type over one of those, and the null type ("n").  Arrow nulls are
# entries with the reason "missing value".  A struct stating what cannot be (check_chunk),
# offsets that go backwards or below zero, and views or dictionary indices that point
# outside their buffers, are a ValueError: no byte outside what the offsets (views,
# indices) span is ever read.

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)

cdef extern from "_arrow.h" nogil:
    struct ArrowSchema:
        const char* format
        const char* name
        const char* metadata
        int64_t flags
        int64_t n_children
        ArrowSchema** children
        ArrowSchema* dictionary
        void* release
        void* private_data

    struct ArrowArray:
        int64_t length
        int64_t null_count
        int64_t offset
        int64_t n_buffers
        int64_t n_children
        const void** buffers
        ArrowArray** children
        ArrowArray* dictionary
        void* release
        void* private_data

    struct ArrowArrayStream:
        void* get_schema
        void* get_next
        void* get_last_error
        void* release
        void* private_data

    void release_schema "sashite_release_schema"(ArrowSchema* s)
    void release_array "sashite_release_array"(ArrowArray* a)
    void release_stream "sashite_release_stream"(ArrowArrayStream* s)
    int stream_schema "sashite_stream_schema"(ArrowArrayStream* s, ArrowSchema* out)
    int stream_next "sashite_stream_next"(ArrowArrayStream* s, ArrowArray* out)
    const char* stream_error "sashite_stream_error"(ArrowArrayStream* s)

cdef extern from "_columns.h" nogil:
    # The SIMD kernels' readers (AVX2, AVX-512, NEON): entries i.. to count - 1 in
    # groups of 8, each returning the first entry it did not write (the exact loops
    # below read on from there); i itself under a kernel without them.
    # o: int32 offsets, or int64 where large
    Py_ssize_t offsets_lanes "sashite_offsets_lanes"(
        int kernel, int large, const unsigned char* data, const void* o, Py_ssize_t i,
        Py_ssize_t count, int64_t end, const uint8_t* bits, int64_t bit, unsigned char* out,
        const uint64_t* records, int epin)
    Py_ssize_t views_lanes "sashite_views_lanes"(
        int kernel, const unsigned char* v, Py_ssize_t i, Py_ssize_t count,
        const uint8_t* bits, int64_t bit, unsigned char* out, const uint64_t* records,
        int epin)
    # The same under errors="mark": entries that are null or no token get the zero
    # record and their positions in marks[m[0] ..], and the reading goes on
    bint kernel_marking_lanes "sashite_kernel_marking_lanes"(int kernel)
    Py_ssize_t offsets_lanes_marking "sashite_offsets_lanes_marking"(
        int kernel, int large, const unsigned char* data, const void* o, Py_ssize_t i,
        Py_ssize_t count, int64_t end, const uint8_t* bits, int64_t bit, unsigned char* out,
        const uint64_t* records, int epin, Py_ssize_t* marks, Py_ssize_t* m)
    Py_ssize_t views_lanes_marking "sashite_views_lanes_marking"(
        int kernel, const unsigned char* v, Py_ssize_t i, Py_ssize_t count,
        const uint8_t* bits, int64_t bit, unsigned char* out, const uint64_t* records,
        int epin, Py_ssize_t* marks, Py_ssize_t* m)

# The layout of a string column, from its schema's format.
cdef enum:
    A_NULL = 0      # "n": every entry missing
    A_UTF8 = 1      # "u": int32 offsets
    A_LARGE = 2     # "U": int64 offsets
    A_VIEW = 3      # "vu": 16-byte views over variadic data buffers

# What went wrong in a scan, beyond an invalid token (status codes of the scanners).
# The largest offset or length a struct may state (_inputs.ARROW_MAX_EXTENT): every
# byte size computed from it, 16 bytes an entry at most, fits in an int64.
cdef int64_t ARROW_MAX_EXTENT = _inputs.ARROW_MAX_EXTENT

cdef enum:
    S_OK = 0
    S_TOKEN = 1         # an invalid token under errors="raise": failure is filled
    S_MEMORY = -1
    S_OFFSETS = -2      # offsets backwards, negative or past ARROW_MAX_EXTENT
    S_VIEW = -3         # a view outside its data buffer
    S_INDEX = -4        # a dictionary index outside the dictionary
    S_BUFFERS = -5      # a buffer the entries need is missing

cdef dict MALFORMED = {
    S_OFFSETS: _inputs.MALFORMED_OFFSETS,
    S_VIEW: _inputs.MALFORMED_VIEW,
    S_INDEX: _inputs.MALFORMED_INDEX,
    S_BUFFERS: _inputs.MALFORMED_BUFFERS,
}


cdef struct ColumnType:
    int layout          # A_*
    int index_size      # 0: not dictionary-encoded; else 1, 2, 4 or 8 bytes
    bint index_signed
    bint in_struct      # a one-column table: the strings are the struct's only child
    bint binary         # binary, large_binary, binary_view: errors name bytes, not str


cdef int string_layout(const char* fmt, bint* binary) noexcept nogil:
    """A_* of a value format, or -1 for anything but a string, binary (or null) type;
    binary: whether it is a binary one (the same layouts, read the same way: tokens as
    bytes, as bytes input is)."""
    if fmt == NULL:
        return -1
    binary[0] = fmt[0] == b'z' or fmt[0] == b'Z' or (fmt[0] == b'v' and fmt[1] == b'z')
    if fmt[0] == b'n' and fmt[1] == 0:
        return A_NULL
    if (fmt[0] == b'u' or fmt[0] == b'z') and fmt[1] == 0:
        return A_UTF8
    if (fmt[0] == b'U' or fmt[0] == b'Z') and fmt[1] == 0:
        return A_LARGE
    if fmt[0] == b'v' and (fmt[1] == b'u' or fmt[1] == b'z') and fmt[2] == 0:
        return A_VIEW
    return -1


cdef int index_size(const char* fmt, bint* signed) noexcept nogil:
    """The byte size of a dictionary's integer index format, or -1."""
    if fmt == NULL or fmt[0] == 0 or fmt[1] != 0:
        return -1
    signed[0] = fmt[0] in b"csil"
    if fmt[0] == b'c' or fmt[0] == b'C':
        return 1
    if fmt[0] == b's' or fmt[0] == b'S':
        return 2
    if fmt[0] == b'i' or fmt[0] == b'I':
        return 4
    if fmt[0] == b'l' or fmt[0] == b'L':
        return 8
    return -1


cdef ColumnType column_type(ArrowSchema* schema, str caller="parse_many") except *:
    """The column a schema describes; what it states that cannot be is a ValueError
    naming the field, a type caller (the function called: parse_many, tokenize_many,
    which reads no binary column) does not read a TypeError.  Nothing recurses: a
    table's one column is read by value_type, which takes no table, so no schema that
    refers back to itself is followed."""
    cdef ColumnType t
    if schema.release == NULL:
        raise ValueError(_inputs.arrow_lie("schema", "released (release is NULL)"))
    check_schema(schema, "schema")
    if schema.format[0] == b'+' and schema.format[1] == b's' and schema.format[2] == 0:
        # A record batch or table (DuckDB results, pyarrow tables): one column only.
        if schema.n_children != 1:
            raise _inputs.not_one_column(caller, schema.n_children)
        if schema.children == NULL or schema.children[0] == NULL:
            raise ValueError(_inputs.arrow_lie(
                "schema", "children is NULL" if schema.children == NULL else "child 0 is NULL"))
        check_schema(schema.children[0], "schema's child")
        t = value_type(schema.children[0], "schema's child", caller)
        t.in_struct = True
        return t
    return value_type(schema, "schema", caller)


cdef int check_schema(const ArrowSchema* schema, str name) except -1:
    """A schema's own fields: a format, and no negative count of children."""
    if schema.format == NULL:
        raise ValueError(_inputs.arrow_lie(name, "format is NULL"))
    if schema.n_children < 0:
        raise ValueError(_inputs.arrow_lie(name, f"n_children {schema.n_children}"))
    return 0


cdef ColumnType value_type(const ArrowSchema* schema, str name, str caller) except *:
    """A column of strings, or a dictionary of them (not a table)."""
    cdef ColumnType t
    cdef bint signed = False
    t.index_size = 0
    t.index_signed = False
    t.in_struct = False
    t.binary = False
    if schema.dictionary != NULL:
        t.index_size = index_size(schema.format, &signed)
        t.index_signed = signed
        check_schema(schema.dictionary, name + "'s dictionary")
        t.layout = string_layout(schema.dictionary.format, &t.binary)
        if (t.index_size < 0 or t.layout < 0 or t.layout == A_NULL
                or schema.dictionary.dictionary != NULL
                or (t.binary and caller != "parse_many")):
            raise _inputs.not_strings(
                caller, "Arrow column",
                f"dictionary of {format_name(schema.dictionary.format)}", "Arrow")
        no_children(schema, name)
        no_children(schema.dictionary, name + "'s dictionary")
        return t
    t.layout = string_layout(schema.format, &t.binary)
    if t.layout < 0 or (t.binary and caller != "parse_many"):
        raise _inputs.not_strings(caller, "Arrow column", format_name(schema.format), "Arrow")
    no_children(schema, name)
    return t


cdef int no_children(const ArrowSchema* schema, str name) except -1:
    if schema.n_children != 0:
        raise ValueError(_inputs.arrow_lie(
            name, f"n_children {schema.n_children} ({format_name(schema.format)} has 0)"))
    return 0


cdef str layout_name(int layout):
    return ("null", "strings", "strings", "views")[layout]


# Each layout's (least buffers, most or None, children), as _inputs words them.
cdef dict LAYOUT_PARTS = _inputs.ARROW_LAYOUT_PARTS


cdef inline bint header_fine(const ArrowArray* a, int64_t least, int64_t most,
                             int64_t children) noexcept nogil:
    """Whether _inputs.arrow_array_lie finds nothing in a header (most < 0: no most),
    decided in C: every chunk of a stream is checked, and a call into Python for each
    was most of a small batch's fixed cost.  Where this says no, the Python function
    decides and words it."""
    return (a.length >= 0 and a.offset >= 0 and a.null_count >= -1
            and a.length <= ARROW_MAX_EXTENT - a.offset
            and least <= a.n_buffers <= (ARROW_MAX_EXTENT if most < 0 else most)
            and (a.n_buffers == 0 or a.buffers != NULL) and a.n_children == children)


cdef int check_header(const ArrowArray* a, str name, str layout) except -1:
    least, most, children = LAYOUT_PARTS[layout]
    if header_fine(a, least, -1 if most is None else most, children):
        return 0
    lie = _inputs.arrow_array_lie(name, layout, a.length, a.null_count, a.offset, a.n_buffers,
                                  a.buffers != NULL, a.n_children)
    if lie is not None:
        raise ValueError(lie)
    return 0


cdef int check_chunk(const ArrowArray* a, ColumnType t) except -1:
    """Everything a chunk's structs state, checked before any buffer is read: each
    array's counts, offset and length (and the byte sizes they imply) and the pointers
    its layout needs; a table's column, with its own offset and length, and a
    dictionary the same way.  A ValueError naming the struct and the field."""
    cdef const ArrowArray* values = a
    cdef str name = "array"
    cdef str values_layout = "indices" if t.index_size else layout_name(t.layout)
    if t.in_struct:
        check_header(a, "array", "struct")
        if a.children == NULL or a.children[0] == NULL:
            raise ValueError(_inputs.arrow_lie(
                "array", "children is NULL" if a.children == NULL else "child 0 is NULL"))
        values = a.children[0]
        name = "array's child"
        check_header(values, name, values_layout)
        if values.length < a.offset + a.length:
            raise ValueError(_inputs.arrow_lie(
                name, f"length {values.length} short of the table's offset + length "
                      f"{a.offset + a.length}"))
        if values.offset > _inputs.ARROW_MAX_EXTENT - a.offset - a.length:
            raise ValueError(_inputs.arrow_lie(
                name, f"offset {values.offset} + the table's offset + length is too large"))
    else:
        check_header(a, name, values_layout)
    if t.index_size:
        if values.dictionary == NULL:
            raise ValueError(_inputs.arrow_lie(name, "dictionary is NULL"))
        check_header(values.dictionary, name + "'s dictionary", layout_name(t.layout))
    return 0


cdef str format_name(const char* fmt):
    """A readable name of an Arrow format string: 'int64' for "l"."""
    if fmt == NULL:
        return "?"
    return _inputs.arrow_type_name((<bytes>fmt).decode("utf-8", "replace"))


cdef inline bint is_null(const ArrowArray* a, int64_t i) noexcept nogil:
    """Whether entry i (before the array's offset) is null by its validity bitmap."""
    cdef const uint8_t* bits = <const uint8_t*>a.buffers[0]
    cdef int64_t j = a.offset + i
    return bits != NULL and a.null_count != 0 and not (bits[j >> 3] >> (j & 7)) & 1


cdef inline int scan_utf8(const unsigned char* p, int64_t n, bint epin) noexcept nogil:
    """scan_token over UTF-8 text, a code point counting as one character (as over a
    str): ASCII bytes stand for themselves, any other code point for 0x80.  Bytes that
    are not UTF-8 count as the twin's decode("utf-8", "replace") counts them: one
    U+FFFD for each maximal subpart of an ill-formed sequence (a lead byte and the
    continuations its well-formed forms allow, Unicode's table 3-7), one for each
    other byte; so "q" and an encoded surrogate (ED A0 80) is 4 characters, not 2."""
    cdef unsigned char buf[4]
    cdef int64_t i = 0, chars = 0
    cdef int follow
    cdef unsigned char b, low, high
    if n > 16:  # more than 4 code points whatever they are
        return scan_token(NULL, n, epin)
    while i < n:
        b = p[i]
        i += 1
        if b >= 0x80:
            follow, low, high = 0, 0x80, 0xBF
            if 0xC2 <= b <= 0xDF:
                follow = 1
            elif 0xE0 <= b <= 0xEF:
                follow = 2
                if b == 0xE0:
                    low = 0xA0  # no overlong form
                elif b == 0xED:
                    high = 0x9F  # no surrogate
            elif 0xF0 <= b <= 0xF4:
                follow = 3
                if b == 0xF0:
                    low = 0x90  # no overlong form
                elif b == 0xF4:
                    high = 0x8F  # nothing past U+10FFFF
            while follow and i < n and low <= p[i] <= high:
                i += 1
                follow -= 1
                low, high = 0x80, 0xBF
        if chars < 4:
            buf[chars] = b if b < 0x80 else 0x80
        chars += 1
    if chars > 4:
        return scan_token(NULL, chars, epin)
    return scan_token(buf, chars, epin)


cdef struct Reader:
    # One Arrow array being scanned into records.
    const ArrowArray* values     # the strings (the dictionary, for dictionary columns)
    int layout
    int64_t end                  # utf8 / large: the last offset the entries span
    const int64_t* view_sizes    # string_view: each data buffer's size
    int64_t view_buffers


cdef int open_reader(Reader* r, const ArrowArray* values, int layout) noexcept nogil:
    """Checks the buffers a string array's entries need; S_OK or S_*."""
    cdef int64_t first, last
    r.values = values
    r.layout = layout
    r.end = 0
    if layout == A_NULL or values.length == 0:
        return S_OK
    if layout == A_VIEW:
        if values.n_buffers < 3 or values.buffers[1] == NULL:
            return S_BUFFERS
        r.view_buffers = values.n_buffers - 3
        r.view_sizes = <const int64_t*>values.buffers[values.n_buffers - 1]
        if r.view_buffers and r.view_sizes == NULL:
            return S_BUFFERS
        return S_OK
    if values.n_buffers < 3 or values.buffers[1] == NULL:
        return S_BUFFERS
    if layout == A_UTF8:
        first = (<const int32_t*>values.buffers[1])[values.offset]
        last = (<const int32_t*>values.buffers[1])[values.offset + values.length]
    else:
        first = (<const int64_t*>values.buffers[1])[values.offset]
        last = (<const int64_t*>values.buffers[1])[values.offset + values.length]
    if first < 0 or last < first or last > ARROW_MAX_EXTENT:
        return S_OFFSETS  # (past 2**59: no data buffer holds that many bytes)
    if last > 0 and values.buffers[2] == NULL:
        return S_BUFFERS
    r.end = last
    return S_OK


cdef inline int entry_text(const Reader* r, int64_t i, const unsigned char** text,
                           int64_t* length) noexcept nogil:
    """Where entry i's bytes are; S_OK or S_*.  For utf8 / large the entry must lie
    between the previous end and r.end (offsets checked as they are read)."""
    cdef const unsigned char* view
    cdef int64_t start, stop
    cdef int32_t n
    cdef const ArrowArray* a = r.values
    if r.layout == A_UTF8:
        start = (<const int32_t*>a.buffers[1])[a.offset + i]
        stop = (<const int32_t*>a.buffers[1])[a.offset + i + 1]
    elif r.layout == A_LARGE:
        start = (<const int64_t*>a.buffers[1])[a.offset + i]
        stop = (<const int64_t*>a.buffers[1])[a.offset + i + 1]
    else:
        view = <const unsigned char*>a.buffers[1] + 16 * (a.offset + i)
        memcpy(&n, view, 4)
        return view_text(r, view, n, text, length)
    if start < 0 or stop < start or stop > r.end:
        return S_OFFSETS
    text[0] = <const unsigned char*>a.buffers[2] + start
    length[0] = stop - start
    return S_OK


cdef inline int view_text(const Reader* r, const unsigned char* view, int32_t n,
                          const unsigned char** text, int64_t* length) noexcept nogil:
    """Where the bytes of a string view are, its length n read already (and not read
    again: what was read is what is checked and used); S_OK or S_VIEW."""
    cdef int32_t buffer, at
    if n < 0:
        return S_VIEW
    length[0] = n
    if n <= 12:
        text[0] = view + 4
        return S_OK
    memcpy(&buffer, view + 8, 4)
    memcpy(&at, view + 12, 4)
    if buffer < 0 or buffer >= r.view_buffers or at < 0:
        return S_VIEW
    if at + <int64_t>n > r.view_sizes[buffer]:
        return S_VIEW
    text[0] = <const unsigned char*>r.values.buffers[2 + buffer] + at
    return S_OK


cdef inline int entry_code(const Reader* r, int64_t i, bint epin, int* status) noexcept nogil:
    """The code of string entry i, or -reason; status set to S_* when the data is
    malformed (the return value is then meaningless)."""
    cdef const unsigned char* p
    cdef int64_t n = 0
    if r.layout == A_NULL or is_null(r.values, i):
        return -R_MISSING
    status[0] = entry_text(r, i, &p, &n)
    if status[0] != S_OK:
        return -R_OTHER_CHARACTER
    return text_code(p, n, epin)


cdef inline int text_code(const unsigned char* p, int64_t n, bint epin) noexcept nogil:
    """The code of an entry's bytes p[0 .. n - 1], or -reason."""
    cdef int code
    if 1 <= n <= 4:  # ASCII tokens, the common case: the branch-free table scan
        code = fast_code(p[0], p[1 if n > 1 else 0], p[2 if n > 2 else 0],
                         p[3 if n > 3 else 0], n, epin)
        if code >= 0:
            return code
    return scan_utf8(p, n, epin)


cdef inline int64_t dictionary_index(const ArrowArray* a, int64_t i, int size,
                                     bint signed) noexcept nogil:
    cdef const void* data = a.buffers[1]
    cdef int64_t j = a.offset + i
    if size == 1:
        return (<const int8_t*>data)[j] if signed else (<const uint8_t*>data)[j]
    if size == 2:
        return (<const int16_t*>data)[j] if signed else (<const uint16_t*>data)[j]
    if size == 4:
        return (<const int32_t*>data)[j] if signed else (<const uint32_t*>data)[j]
    return (<const int64_t*>data)[j]  # uint64 above 2**63 reads negative: out of range


cdef struct Sink:
    # Where scanned entries go: records, and (errors="mark") the invalid ones.
    unsigned char* records
    Py_ssize_t count
    Py_ssize_t room
    bint mark
    # errors="mark": the marked entries as columns, each one's index in the result and
    # its reason (its index in its piece is index - the piece's first)
    Py_ssize_t* marked
    unsigned char* reasons
    Py_ssize_t marked_count, marked_room
    bint marked_fixed    # marked is the result's array('q') itself, never grown
    Failure failure      # the first invalid entry (errors="raise")


cdef int sink_reserve(Sink* s, Py_ssize_t more) noexcept nogil:
    cdef unsigned char* grown
    cdef Py_ssize_t room
    cdef void* column
    if more > (PY_SSIZE_T_MAX - SLACK) // 5 - s.count:
        return -1  # more entries than memory holds: a MemoryError, not an overflow
    # Room for every one of them to be marked: the lane readers write positions there
    # without a check (memory never touched costs nothing)
    if s.mark and s.marked_count + more > s.marked_room:
        if s.marked_fixed:
            return -1  # (room for every entry was made: never reached)
        room = max(s.marked_room * 2, s.marked_count + more)
        column = records_grow(s.marked, sizeof(Py_ssize_t) * s.marked_count,
                              sizeof(Py_ssize_t) * room + 64)
        if column == NULL:
            return -1
        s.marked = <Py_ssize_t*>column
        column = records_grow(s.reasons, s.marked_count, room + 64)
        if column == NULL:
            return -1
        s.reasons = <unsigned char*>column
        s.marked_room = room
    if s.count + more <= s.room:
        return 0
    room = max(s.room * 2, s.count + more)
    grown = <unsigned char*>records_grow(s.records, 5 * s.count, 5 * room + SLACK)
    if grown == NULL:
        return -1
    s.records, s.room = grown, room
    return 0


cdef inline int sink_put(Sink* s, int code, Py_ssize_t chunk_index) noexcept nogil:
    """Store one entry's code (or -reason); S_OK, S_TOKEN or S_MEMORY."""
    if code >= 0:
        memcpy(s.records + 5 * s.count, record_of[code], 8)
    elif not s.mark:
        s.failure.index, s.failure.start, s.failure.reason = s.count, chunk_index, -code
        return S_TOKEN
    else:
        memset(s.records + 5 * s.count, 0, 8)
        if s.marked_count == s.marked_room and sink_reserve(s, 1) < 0:
            return S_MEMORY
        s.marked[s.marked_count] = s.count
        s.reasons[s.marked_count] = <unsigned char>-code
        s.marked_count += 1
    s.count += 1
    return S_OK


cdef int scan_chunk(Sink* s, const ArrowArray* a, ColumnType t, bint epin) noexcept nogil:
    """Scan one chunk into the sink; S_* status.  A one-column table's chunk is a struct
    array: its child is read where the struct's offset points, and a null row of the
    struct is missing whatever its child holds."""
    cdef ArrowArray child
    if not t.in_struct:
        return scan_array(s, a, t, epin, NULL)
    if a.n_children != 1 or a.children == NULL or a.children[0] == NULL:
        return S_BUFFERS
    child = a.children[0][0]
    if child.length < a.offset + a.length:
        return S_BUFFERS
    child.offset += a.offset
    child.length = a.length
    # A batch's rows are never null (a record batch has no validity of its own): then
    # the column is read as a plain one, by the hot loops, not entry by entry.
    if a.buffers[0] == NULL or a.null_count == 0:
        return scan_array(s, &child, t, epin, NULL)
    return scan_array(s, &child, t, epin, a)


cdef struct CodeSlot:  # a marked entry's text of 0-4 bytes and its code (or -reason)
    uint64_t key        # its bytes, and its length + 1 above them (0: an empty slot)
    int code


# The first n bytes of a 4-byte load, in the machine's byte order (n = 0 .. 4).
cdef uint32_t word_mask[5]


cdef void build_word_masks() noexcept nogil:
    cdef unsigned char padded[4]
    cdef int n
    for n in range(5):
        memset(padded, 0, 4)
        memset(padded, 0xFF, n)
        memcpy(&word_mask[n], padded, 4)


build_word_masks()

# Entries the marking lanes read at a time before the exact code reads their marks:
# the marks' offsets (views) and texts are still in the cache then (a million-entry
# piece's are not, once the lanes have read it all).
cdef Py_ssize_t MARK_BLOCK = 4096


cdef inline int marked_code(const unsigned char* p, int64_t n, bint readable, bint epin,
                            CodeSlot* seen) noexcept nogil:
    """text_code(p, n, epin) of an entry the lanes marked; for one of 0-4 bytes whose
    4-byte window is readable (within what the offsets span, or a view's inline
    bytes), from a table of 256 slots by its bytes when the same text was read before:
    a column's typos repeat, and each cost scan_utf8 and scan_token again."""
    cdef uint32_t word
    cdef uint64_t key
    cdef CodeSlot* slot
    if 0 <= n <= 4 and readable:
        memcpy(&word, p, 4)
        key = (word & word_mask[n]) | (<uint64_t>(n + 1) << 32)
        slot = &seen[(key * 0x9E3779B97F4A7C15ULL) >> 56]
        if slot.key != key:
            slot.key = key
            slot.code = text_code(p, n, epin)
        return slot.code
    return text_code(p, n, epin)


ctypedef fused offset_t:
    int32_t
    int64_t


cdef int scan_offsets(Sink* s, const Reader* values, const offset_t* offsets,
                      bint epin) noexcept nogil:
    """utf8 / large_utf8 without a parent: the hot loop, everything in locals.  The AVX2
    and AVX-512 kernels (_columns.h) take whole groups of 8 valid entries; the group
    they stop at, or every entry under another kernel, comes here: a token of 1-4 bytes
    whose 4-byte window lies within what the offsets span is decoded by the branch-free
    fast_code; anything else goes to entry_code and sink_put, which decide and report."""
    # Everything the loop reads from the structs is copied to locals first: the record
    # stores go through a char pointer, which may alias anything, and would otherwise
    # force a reload of each field on every entry.
    cdef const ArrowArray* a = values.values
    cdef const unsigned char* data = <const unsigned char*>a.buffers[2]
    cdef const uint8_t* bits = <const uint8_t*>a.buffers[0] if a.null_count != 0 else NULL
    cdef unsigned char* out = s.records + 5 * s.count
    cdef int64_t first = a.offset, length = a.length, end = values.end
    cdef const offset_t* o = offsets + first
    cdef int64_t i = 0, e, upto, n, j, start, stop
    cdef Py_ssize_t base = s.count
    cdef int code, status = S_OK
    cdef int kernel = bytes_kernel_id
    cdef bint simd = kernel_lanes(kernel)
    cdef bint marking = s.mark and kernel_marking_lanes(kernel)
    cdef Py_ssize_t k, m, q, block
    cdef Py_ssize_t* marked
    cdef unsigned char* reasons
    cdef CodeSlot seen[256]
    if marking:
        memset(seen, 0, sizeof(seen))
    while i < length:
        upto = length
        if marking:
            # Nulls and entries that are no token stay in the lanes (the zero record,
            # their positions kept); the exact code reads those after, a block at a
            # time, then the group the lanes stopped at, if any
            k = m = s.marked_count
            block = min(length, i + MARK_BLOCK)
            marked, reasons = s.marked, s.reasons  # in locals: the stores alias
            i = offsets_lanes_marking(kernel, offset_t is int64_t, data, o, i, block, end,
                                      bits, first, out, records_by_index, epin, marked,
                                      &m)
            for q in range(k, m):
                e = marked[q]
                j = first + e
                if bits != NULL and not (bits[j >> 3] >> (j & 7)) & 1:
                    code = -R_MISSING
                else:
                    start, stop = o[e], o[e + 1]
                    if start < 0 or stop < start or stop > end:
                        s.count = base + e
                        return S_OFFSETS
                    code = marked_code(data + start, stop - start, start <= end - 4, epin,
                                       seen)
                if code >= 0:
                    memcpy(out + 5 * e, record_of[code], 5)  # the next one is written
                else:
                    marked[k] = base + e
                    reasons[k] = <unsigned char>-code
                    k += 1
            s.marked_count = k
            if i == block < length:  # the lanes read the whole block: the next one
                continue
            upto = min(i + 8, length)
        elif simd:
            i = offsets_lanes(kernel, offset_t is int64_t, data, o, i, length, end, bits,
                              first, out, records_by_index, epin)
            upto = min(i + 8, length)
        # Each offset is read once, an entry's stop kept as the next one's start, and
        # both paths use what they checked: another thread may rewrite the offsets
        # meanwhile, and an offset read again could lie anywhere.
        stop = o[i]
        for e in range(i, upto):
            start = stop
            stop = o[e + 1]
            j = first + e
            # no sum that could overflow: start <= end - 4 first, then stop against it
            if (0 <= start <= end - 4 and start < stop <= start + 4
                    and (bits == NULL or (bits[j >> 3] >> (j & 7)) & 1)):
                n = stop - start
                code = fast_code(data[start], data[start + 1], data[start + 2],
                                 data[start + 3], n, epin)
                if code >= 0:
                    memcpy(out + 5 * e, record_of[code], 8)
                    continue
            # The precise path for this entry (entry_code's, on the same two offsets):
            # checks, reasons, marks.
            s.count = base + e
            if bits != NULL and not (bits[j >> 3] >> (j & 7)) & 1:
                code = -R_MISSING
            elif start < 0 or stop < start or stop > end:
                return S_OFFSETS
            else:
                code = text_code(data + start, stop - start, epin)
            status = sink_put(s, code, e)
            if status != S_OK:
                return status
        i = upto
    s.count = base + length
    return S_OK


cdef int scan_views(Sink* s, const Reader* values, bint epin) noexcept nogil:
    """string_view without a parent: the hot loop.  The AVX2 and AVX-512 kernels
    (_columns.h) take whole groups of 8 valid entries; otherwise a token (1-4 bytes)
    always sits inline in its 16-byte view, so the common case reads the view alone;
    longer or invalid entries go to entry_code and sink_put, which check, decide and
    report."""
    cdef const ArrowArray* a = values.values
    cdef const unsigned char* view = <const unsigned char*>a.buffers[1] + 16 * a.offset
    cdef const uint8_t* bits = <const uint8_t*>a.buffers[0] if a.null_count != 0 else NULL
    cdef unsigned char* out = s.records + 5 * s.count
    cdef int64_t i = 0, e, upto, j, first = a.offset, length = a.length  # see scan_offsets
    cdef int64_t size
    cdef int32_t n
    cdef const unsigned char* p
    cdef Py_ssize_t base = s.count
    cdef int code, status = S_OK
    cdef int kernel = bytes_kernel_id
    cdef bint simd = kernel_lanes(kernel)
    cdef bint marking = s.mark and kernel_marking_lanes(kernel)
    cdef Py_ssize_t k, m, q, block
    cdef Py_ssize_t* marked
    cdef unsigned char* reasons
    cdef CodeSlot seen[256]
    if marking:
        memset(seen, 0, sizeof(seen))
    while i < length:
        upto = length
        if marking:  # as scan_offsets does
            k = m = s.marked_count
            block = min(length, i + MARK_BLOCK)
            marked, reasons = s.marked, s.reasons  # in locals: the stores alias
            i = views_lanes_marking(kernel, view, i, block, bits, first, out,
                                    records_by_index, epin, marked, &m)
            for q in range(k, m):
                e = marked[q]
                j = first + e
                if bits != NULL and not (bits[j >> 3] >> (j & 7)) & 1:
                    code = -R_MISSING
                else:
                    memcpy(&n, view + 16 * e, 4)
                    status = view_text(values, view + 16 * e, n, &p, &size)
                    if status != S_OK:
                        s.count = base + e
                        return status
                    # a text of 0-4 bytes is inline: its 12 bytes are the view's
                    code = marked_code(p, size, True, epin, seen)
                if code >= 0:
                    memcpy(out + 5 * e, record_of[code], 5)  # the next one is written
                else:
                    marked[k] = base + e
                    reasons[k] = <unsigned char>-code
                    k += 1
            s.marked_count = k
            if i == block < length:
                continue
            upto = min(i + 8, length)
        elif simd:
            i = views_lanes(kernel, view, i, length, bits, first, out, records_by_index, epin)
            upto = min(i + 8, length)
        for e in range(i, upto):
            memcpy(&n, view + 16 * e, 4)
            j = first + e
            if 0 < n <= 4 and (bits == NULL or (bits[j >> 3] >> (j & 7)) & 1):
                code = fast_code(view[16 * e + 4], view[16 * e + 5], view[16 * e + 6],
                                 view[16 * e + 7], n, epin)
                if code >= 0:
                    memcpy(out + 5 * e, record_of[code], 8)
                    continue
            # The precise path (entry_code's, on the length read above).
            s.count = base + e
            if bits != NULL and not (bits[j >> 3] >> (j & 7)) & 1:
                code = -R_MISSING
            else:
                status = view_text(values, view + 16 * e, n, &p, &size)
                if status != S_OK:
                    return status
                code = text_code(p, size, epin)
            status = sink_put(s, code, e)
            if status != S_OK:
                return status
        i = upto
    s.count = base + length
    return S_OK


cdef int scan_array(Sink* s, const ArrowArray* a, ColumnType t, bint epin,
                    const ArrowArray* rows) noexcept nogil:
    """Scan one Arrow array of strings into the sink; S_* status.  rows: the struct
    whose nulls are missing entries too (NULL for a plain column)."""
    cdef Reader values
    cdef int64_t i, index, size
    cdef int status = S_OK, code
    cdef int* codes = NULL
    if sink_reserve(s, a.length) < 0:
        return S_MEMORY
    if t.index_size == 0:
        status = open_reader(&values, a, t.layout)
        if status == S_OK and rows == NULL and a.length and t.layout == A_UTF8:
            return scan_offsets(s, &values, <const int32_t*>a.buffers[1], epin)
        if status == S_OK and rows == NULL and a.length and t.layout == A_LARGE:
            return scan_offsets(s, &values, <const int64_t*>a.buffers[1], epin)
        if status == S_OK and rows == NULL and a.length and t.layout == A_VIEW:
            return scan_views(s, &values, epin)
        i = 0
        while status == S_OK and i < a.length:
            if rows != NULL and is_null(rows, i):
                code = -R_MISSING
            else:
                code = entry_code(&values, i, epin, &status)
            if status == S_OK:
                status = sink_put(s, code, i)
            i += 1
        return status
    # Dictionary-encoded: each dictionary entry is scanned once.
    if a.dictionary == NULL or (a.length and a.buffers[1] == NULL):
        return S_BUFFERS
    size = a.dictionary.length
    status = open_reader(&values, a.dictionary, t.layout)
    codes = <int*>malloc(sizeof(int) * (size + 1))
    if codes == NULL:
        return S_MEMORY
    i = 0
    while status == S_OK and i < size:
        codes[i] = entry_code(&values, i, epin, &status)
        i += 1
    if status == S_OK and rows == NULL and a.length:
        status = scan_indices_of(s, a, t, codes, size)
        free(codes)
        return status
    i = 0
    while status == S_OK and i < a.length:
        if is_null(a, i) or (rows != NULL and is_null(rows, i)):
            code = -R_MISSING
        else:
            index = dictionary_index(a, i, t.index_size, t.index_signed)
            if index < 0 or index >= size:
                status = S_INDEX
                break
            code = codes[index]
        status = sink_put(s, code, i)
        i += 1
    free(codes)
    return status


ctypedef fused index_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    int64_t


cdef int scan_indices_of(Sink* s, const ArrowArray* a, ColumnType t, const int* codes,
                         int64_t size) noexcept nogil:
    """scan_indices for the index type of the column (uint64 is read as int64: above
    2**63 it reads negative, so out of range)."""
    cdef const void* data = a.buffers[1]
    if t.index_size == 1:
        if t.index_signed:
            return scan_indices(s, a, <const int8_t*>data, codes, size)
        return scan_indices(s, a, <const uint8_t*>data, codes, size)
    if t.index_size == 2:
        if t.index_signed:
            return scan_indices(s, a, <const int16_t*>data, codes, size)
        return scan_indices(s, a, <const uint16_t*>data, codes, size)
    if t.index_size == 4:
        if t.index_signed:
            return scan_indices(s, a, <const int32_t*>data, codes, size)
        return scan_indices(s, a, <const uint32_t*>data, codes, size)
    return scan_indices(s, a, <const int64_t*>data, codes, size)


cdef int scan_indices(Sink* s, const ArrowArray* a, const index_t* indices, const int* codes,
                      int64_t size) noexcept nogil:
    """A dictionary column without a parent, its dictionary already scanned into codes:
    one 8-byte record copy per valid entry, the sink only for the others.  What the
    loop reads is in locals (the record stores could alias the structs)."""
    cdef const uint8_t* bits = <const uint8_t*>a.buffers[0] if a.null_count != 0 else NULL
    cdef int64_t i, index, first = a.offset, length = a.length
    cdef unsigned char* records = s.records
    cdef Py_ssize_t count = s.count
    cdef int code, status
    for i in range(length):
        if bits != NULL and not (bits[(first + i) >> 3] >> ((first + i) & 7)) & 1:
            code = -R_MISSING
        else:
            index = <int64_t>indices[first + i]
            if index < 0 or index >= size:
                s.count = count
                return S_INDEX
            code = codes[index]
        if code >= 0:
            memcpy(records + 5 * count, record_of[code], 8)
            count += 1
        else:
            s.count = count
            status = sink_put(s, code, i)
            if status != S_OK:
                return status
            count = s.count
    s.count = count
    return S_OK


cdef int open_entries(Reader* values, const ArrowArray* a, ColumnType t) noexcept nogil:
    """The reader of a chunk's strings (its struct's child, its dictionary), for
    read_entry: S_OK or S_*.  Opened once a chunk: each entry's own opening read the
    chunk's first and last offsets again (a sixth of a million marks' read)."""
    cdef const ArrowArray* strings = a
    if t.in_struct:
        strings = a.children[0]
    if t.index_size:
        strings = strings.dictionary
    return open_reader(values, strings, t.layout)


cdef bint read_entry(const ArrowArray* a, ColumnType t, const Reader* values, int opened,
                     int64_t i, const unsigned char** p, int64_t* n) noexcept nogil:
    """entry_bytes of entry i of a chunk whose strings' reader open_entries gave
    (opened: its status)."""
    cdef const ArrowArray* strings = a
    n[0] = 0
    if t.in_struct:
        strings = a.children[0]
        i += a.offset
        a = strings
    if t.index_size:
        if is_null(a, i):
            return False
        i = dictionary_index(a, i, t.index_size, t.index_signed)
        strings = a.dictionary
        if i < 0 or i >= strings.length:
            return False
    if t.layout == A_NULL or is_null(strings, i):
        return False
    return opened == S_OK and entry_text(values, i, p, n) == S_OK


cdef bint entry_bytes(const ArrowArray* a, ColumnType t, int64_t i, const unsigned char** p,
                      int64_t* n) noexcept nogil:
    """What an error names for entry i of a chunk: its bytes (True), or False when it is
    missing.  The entry is read again here, after its scan, and checked again as read:
    another thread may have rewritten the column since (an index, an offset), and then
    it names None or what the entry now holds, never reading outside the buffers."""
    cdef Reader values
    cdef int opened = open_entries(&values, a, t)
    return read_entry(a, t, &values, opened, i, p, n)


cdef object entry_token(const ArrowArray* a, ColumnType t, int64_t i):
    """entry_bytes' text as an error names it: bytes for a binary column, else str
    (bytes that are not UTF-8 replaced), or None."""
    cdef const unsigned char* p
    cdef int64_t n
    if not entry_bytes(a, t, i, &p, &n):
        return None
    return <bytes>p[:n] if t.binary else (<bytes>p[:n]).decode("utf-8", "replace")


cdef int check_status(int status, Sink* s, const ArrowArray* chunk, ColumnType t,
                      bint epin) except -1:
    if status == S_OK:
        return 0
    if status == S_MEMORY:
        raise MemoryError()
    if status == S_TOKEN:
        if s.failure.reason == R_MISSING:
            raise _ParseError(None, _reason_text(R_MISSING, notation_of(epin)),
                              notation_of(epin), s.failure.index)
        raise _ParseError(entry_token(chunk, t, s.failure.start),
                          _reason_text(s.failure.reason, notation_of(epin)),
                          notation_of(epin), s.failure.index)
    raise ValueError(MALFORMED[status])


cdef inline bint some_text(const unsigned char* reasons, Py_ssize_t first,
                           Py_ssize_t stop) noexcept nogil:
    """Whether a mark in reasons[first .. stop - 1] is not a missing value (whose text is
    None, so its chunk need not be kept): eight reasons a compare."""
    cdef uint64_t word, missing = 0x0101010101010101ULL * R_MISSING
    while first + 8 <= stop:
        memcpy(&word, reasons + first, 8)
        if word != missing:
            return True
        first += 8
    while first < stop:
        if reasons[first] != R_MISSING:
            return True
        first += 1
    return False


@cython.final
cdef class _ArrowEntries:
    """The chunks of an Arrow column that hold marked entries' texts, kept by the result
    (their buffers stay where the input put them: no text is copied in the scan, when a
    million-entry piece's bytes have left the cache), and read when a token is first
    asked for: called, it gives _marks.MarkedTexts' texts, ends and nones, each marked
    entry read again and checked as read (entry_bytes), as the scan's copy was.  A
    stream's chunks are moved here and released with this object; one array's struct
    stays its capsule's (kept), and is only read."""
    cdef ColumnType t
    cdef object capsule         # the array's capsule (parse_arrow_array), or None
    cdef ArrowArray* chunks     # the kept chunks' structs
    cdef int64_t* bases         # the result's index of each one's entry 0
    cdef Py_ssize_t count, room
    cdef object invalid         # the result's marked indices (array('q'))
    cdef bytes reasons

    def __dealloc__(self):
        cdef Py_ssize_t j
        if self.capsule is None:
            for j in range(self.count):
                release_array(&self.chunks[j])
        free(self.chunks)
        free(self.bases)

    cdef int keep(self, ArrowArray* chunk, int64_t base, object capsule) except -1:
        """Keeps a chunk: a stream's is moved here (chunk left released); an array's
        (capsule: the capsule owning it) is copied and never released here."""
        cdef void* more
        if self.count == self.room:
            self.room = 2 * self.room + 4
            more = realloc(self.chunks, sizeof(ArrowArray) * self.room)
            if more == NULL:
                raise MemoryError()
            self.chunks = <ArrowArray*>more
            more = realloc(self.bases, sizeof(int64_t) * self.room)
            if more == NULL:
                raise MemoryError()
            self.bases = <int64_t*>more
        self.chunks[self.count] = chunk[0]
        self.bases[self.count] = base
        self.count += 1
        if capsule is None:
            chunk.release = NULL  # moved: the producer's release is ours to call
        else:
            self.capsule = capsule
        return 0

    def __call__(self):
        return self.read()

    cdef tuple read(self):
        """(texts, ends, nones or None where no entry is)."""
        cdef Py_ssize_t n = len(self.reasons), k, j = 0, used = 0, room = 4 * n + 64
        cdef const int64_t* at = <const int64_t*>array_address(self.invalid) if n else NULL
        cdef const unsigned char* reasons = self.reasons
        cdef unsigned char* texts = <unsigned char*>malloc(room)
        cdef int64_t* ends = <int64_t*>malloc(8 * n + 8)
        cdef bytes nones = PyBytes_FromStringAndSize(NULL, n)
        cdef unsigned char* none = <unsigned char*>PyBytes_AS_STRING(nones)  # ours alone
        cdef bint any_none = False, some
        cdef const unsigned char* p
        cdef int64_t size, index
        cdef void* more
        cdef Reader values
        cdef int opened = S_OK
        cdef Py_ssize_t opened_for = -1
        try:
            if texts == NULL or ends == NULL:
                raise MemoryError()
            for k in range(n):
                some = False
                size = 0
                index = at[k]
                if reasons[k] != R_MISSING:
                    while j < self.count and index >= self.bases[j] + self.chunks[j].length:
                        j += 1
                    if j < self.count and index >= self.bases[j]:
                        if j != opened_for:  # the chunk's reader, opened once
                            opened = open_entries(&values, &self.chunks[j], self.t)
                            opened_for = j
                        some = read_entry(&self.chunks[j], self.t, &values, opened,
                                          index - self.bases[j], &p, &size)
                if not some:
                    size = 0
                if used + size > room:
                    room = 2 * (used + size) + 4 * (n - k) + 64
                    more = realloc(texts, room)
                    if more == NULL:
                        raise MemoryError()
                    texts = <unsigned char*>more
                if size:
                    memcpy(texts + used, p, size)
                used += size
                ends[k] = used
                none[k] = not some
                any_none |= not some
            return (PyBytes_FromStringAndSize(<char*>texts, used), int64_column(ends, n),
                    nones if any_none else None)
        finally:
            free(texts)
            free(ends)


cdef object kept_marks(_ArrowEntries kept, object decode):
    """_marks.MarkedTexts(None, None, kept.reasons, None, decode, later=kept), its slots
    set here: its __init__, a Python call with keywords, was 0.8 us of a small batch's
    parse."""
    cls = _marks.MarkedTexts
    marks = cls.__new__(cls)
    marks._texts = marks._ends = marks._positions = marks._nones = marks._lines = None
    marks._source = None
    marks._reasons, marks._decode, marks._later = kept.reasons, decode, kept
    return marks


cdef TokenArray finish(Sink* s, bint epin, _ArrowEntries kept, bint binary,
                       object invalid=None):
    cdef TokenArray result = TokenArray.__new__(TokenArray)
    cdef unsigned char* fit = <unsigned char*>records_fit(s.records, 5 * s.count + SLACK)
    if fit == NULL and s.records != NULL:
        raise MemoryError()
    result.records, result.count, result.epin = fit, s.count, epin
    s.records = NULL
    if result.records == NULL:
        result.records = <unsigned char*>records_alloc(SLACK)
        if result.records == NULL:
            raise MemoryError()
    if s.marked_count:
        kept.reasons = PyBytes_FromStringAndSize(<const char*>s.reasons, s.marked_count)
        if s.marked_fixed:  # the lanes wrote into the result's array: its length set
            if s.marked_count < s.marked_room // 4:  # its room given back, few marked
                if pyarray_resize(invalid, s.marked_count, 8) == NULL:
                    raise MemoryError()
            pyarray_set_size(invalid, s.marked_count)
            result._invalid = invalid
        else:
            set_mark_columns(result, s.marked, s.marked_count, None)
        kept.invalid = result._invalid
        # the texts read from the kept chunks when first asked for
        result._rejected = kept_marks(kept, None if binary else "replace")
    return result


cdef int marks_in_place(Sink* s, object invalid, Py_ssize_t more) except -1:
    """Room for more marks in the result's array('q') itself (s.marked_fixed), doubled
    as a stream's chunks come (the pages never written cost nothing), and for their
    reasons beside."""
    cdef Py_ssize_t room
    cdef void* column
    if s.marked_count + more <= s.marked_room:
        return 0
    room = max(2 * s.marked_room, s.marked_count + more)
    column = pyarray_resize(invalid, room + 8, 8)
    if column == NULL:
        raise MemoryError()
    s.marked = <Py_ssize_t*>column
    column = records_grow(s.reasons, s.marked_count, room + 64)
    if column == NULL:
        raise MemoryError()
    s.reasons = <unsigned char*>column
    s.marked_room = room
    return 0


cdef int scan_pieces(Sink* sink, ArrowArray* chunk, ColumnType t, bint epin,
                     _ArrowEntries kept, object capsule, object invalid) except -1:
    """A checked chunk a piece of entries at a time (the same struct, a slice of it:
    offset and length moved), pending signals checked between: Ctrl-C stops a long
    column.  Its records are reserved whole first, so the pieces allocate nothing.  A
    chunk with a marked entry that is not missing is kept (moved into kept, or, for
    one array, its capsule kept), its texts read from it when asked for."""
    cdef ArrowArray piece = chunk[0]
    cdef int64_t start = 0, stop
    cdef Py_ssize_t first = sink.marked_count, base = sink.count
    cdef int status
    if sink.marked_fixed:
        marks_in_place(sink, invalid, chunk.length)
    if sink_reserve(sink, chunk.length) < 0:
        raise MemoryError()
    while True:
        stop = min(chunk.length, start + piece_entries())
        piece.offset, piece.length = chunk.offset + start, stop - start
        with nogil:
            status = scan_chunk(sink, &piece, t, epin)
        check_status(status, sink, &piece, t, epin)
        if stop >= chunk.length:
            break
        start = stop
        PyErr_CheckSignals()
    if some_text(sink.reasons, first, sink.marked_count):
        kept.keep(chunk, base, capsule)
    return 0


cdef TokenArray parse_arrow_array(object exporter, bint epin, bint mark):
    """An object with __arrow_c_array__: one array, read in place."""
    cdef ArrowSchema* schema
    cdef ArrowArray* array
    cdef Sink sink
    cdef ColumnType t
    cdef _ArrowEntries kept = _ArrowEntries.__new__(_ArrowEntries)
    schema_capsule, array_capsule = exporter.__arrow_c_array__()
    schema = <ArrowSchema*>PyCapsule_GetPointer(schema_capsule, "arrow_schema")
    array = <ArrowArray*>PyCapsule_GetPointer(array_capsule, "arrow_array")
    t = column_type(schema)
    if array.release == NULL:
        raise ValueError(_inputs.arrow_lie("array", "released (release is NULL)"))
    check_chunk(array, t)
    cdef object invalid = None
    memset(&sink, 0, sizeof(sink))
    kept.t = t
    sink.mark = mark
    try:
        if mark and array.length and sizeof(Py_ssize_t) == 8 and offsets_in_place():
            # The marks' indices written by the lanes where the result keeps them, room
            # for every entry (the pages never written cost nothing): the copy of a
            # million marks into a fresh array, 8 bytes each, was 0.4 ms
            invalid = new_array("q")
            sink.marked_fixed = True
        scan_pieces(&sink, array, t, epin, kept, array_capsule, invalid)
        return finish(&sink, epin, kept, t.binary, invalid)
    finally:
        records_free(sink.records)
        if not sink.marked_fixed:
            records_free(sink.marked)
        records_free(sink.reasons)
    # The capsules release the structs when they are collected (the array's once the
    # result's kept chunks are too, where it has marked texts).


cdef TokenArray parse_arrow_stream(object exporter, bint epin, bint mark):
    """An object with __arrow_c_stream__: every chunk in turn, each released once read
    (or kept by the result, where it holds marked texts)."""
    cdef ArrowArrayStream* stream
    cdef ArrowSchema schema
    cdef ArrowArray chunk
    cdef Sink sink
    cdef ColumnType t
    cdef _ArrowEntries kept = _ArrowEntries.__new__(_ArrowEntries)
    cdef object invalid = None
    capsule = exporter.__arrow_c_stream__()
    stream = <ArrowArrayStream*>PyCapsule_GetPointer(capsule, "arrow_array_stream")
    if stream.release == NULL:
        raise ValueError(_inputs.arrow_lie("stream", "released (release is NULL)"))
    missing = ("get_schema" if stream.get_schema == NULL else
               "get_next" if stream.get_next == NULL else
               "get_last_error" if stream.get_last_error == NULL else None)
    if missing is not None:
        raise ValueError(_inputs.arrow_lie("stream", f"{missing} is NULL"))
    memset(&schema, 0, sizeof(schema))
    memset(&chunk, 0, sizeof(chunk))
    memset(&sink, 0, sizeof(sink))
    sink.mark = mark
    if mark and sizeof(Py_ssize_t) == 8 and offsets_in_place():  # as parse_arrow_array
        invalid = new_array("q")
        sink.marked_fixed = True
    try:
        if stream_schema(stream, &schema) != 0:
            raise_stream_error(stream)
        t = column_type(&schema)
        kept.t = t
        while True:
            if stream_next(stream, &chunk) != 0:
                raise_stream_error(stream)
            if chunk.release == NULL:  # the end of the stream
                break
            check_chunk(&chunk, t)
            scan_pieces(&sink, &chunk, t, epin, kept, None, invalid)
            release_array(&chunk)  # (released already where kept has moved it)
            # Between chunks too (scan_pieces checks between a chunk's pieces only): a
            # stream of many chunks, each one piece, stops at Ctrl-C
            PyErr_CheckSignals()
        return finish(&sink, epin, kept, t.binary, invalid)
    finally:
        release_array(&chunk)
        release_schema(&schema)
        records_free(sink.records)
        if not sink.marked_fixed:
            records_free(sink.marked)
        records_free(sink.reasons)


cdef int raise_stream_error(ArrowArrayStream* stream) except -1:
    cdef const char* message = stream_error(stream)
    text = "" if message == NULL else (<bytes>message).decode("utf-8", "replace")
    raise ValueError(f"the Arrow stream failed: {text or 'no message'}")
