# TokenArray as Arrow data: part of the compiled core (included by _core_c.pyx after
# _arrow_c.pxi, whose struct declarations it shares).  Its twin is _export_py.py.
#
# A TokenArray exports one struct column per entry, with readable fields:
#   token     utf8                        "+K^'"
#   abbr      dictionary<int8, utf8>      "A" .. "Z"
#   side      dictionary<int8, utf8>      "first" / "second"
#   state     dictionary<int8, utf8>      "normal" / "enhanced" / "diminished"
#   terminal  bool
#   derived   bool                        (EPIN only)
#   valid     bool, never null            false where the entry was marked invalid
#   reason    dictionary<int8, utf8>      the Reason's name ("MODIFIER_NOT_FIRST"),
#                                         null where the entry is valid
# The schema is the same whatever the data.  An entry marked invalid keeps its text as
# read in token (null only for a missing value) and is null in the token's fields (the
# struct itself has no nulls: it is read as a record batch, whose rows cannot be null).
# The dictionaries' indices are the record's side and state numbers, so no table is
# needed.  Under the
# AVX2 kernel every field is written 16 records at a time (_formats.h); the
# scalar loops below write the rest, and everything under the other kernels.

from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.pycapsule cimport PyCapsule_Destructor, PyCapsule_New
from libc.stdlib cimport calloc
from libc.string cimport memmove

cdef extern from "_arrow_export.h" nogil:
    int node_init "sashite_node_init"(ArrowArray* out, int64_t length, int64_t null_count,
                                      int n_buffers, int n_children)
    ArrowArray* node_child "sashite_node_child"(ArrowArray* a, int i)
    ArrowArray* node_dictionary "sashite_node_dictionary"(ArrowArray* a)
    void node_set_buffer "sashite_node_set_buffer"(ArrowArray* a, int i, void* owned)
    void node_set_view "sashite_node_set_view"(ArrowArray* a, int i, void* inside)
    void node_set_kept_buffer "sashite_node_set_kept_buffer"(ArrowArray* a, int i, void* owned)
    int struct_schema "sashite_struct_schema"(ArrowSchema* out, int n, const char** names,
                                              const char** formats, const int* dictionary)
    int nested_schema "sashite_nested_schema"(ArrowSchema* out, const char* name, int n,
                                              const char** names, const char** formats,
                                              const int* dictionary)
    ctypedef int (*SchemaMaker)(ArrowSchema* out, int shape) noexcept nogil
    int one_chunk_stream "sashite_one_chunk_stream"(ArrowArrayStream* out, ArrowArray* array,
                                                    SchemaMaker schema, int shape)
    void schema_capsule_free "sashite_schema_capsule_free"(object capsule) noexcept
    void array_capsule_free "sashite_array_capsule_free"(object capsule) noexcept
    void stream_capsule_free "sashite_stream_capsule_free"(object capsule) noexcept

cdef extern from "_formats.h" nogil:
    # every field, 16 records at a time under a kernel with these loops (AVX2, AVX-512,
    # NEON); how many it wrote (0 under another kernel)
    int64_t export_fields_lanes "sashite_export_fields_lanes"(
        int kernel, const unsigned char* records, int64_t n, int32_t* offsets,
        unsigned char* data, int32_t* at, int8_t* abbr, int8_t* side, int8_t* state,
        uint8_t* terminal, uint8_t* derived)
    # TokenArray._frame_fields' columns, 16 records at a time under the AVX2 and
    # AVX-512 kernels; how many it wrote (0 under another kernel)
    int64_t frame_fields_lanes "sashite_frame_fields_lanes"(
        int kernel, const unsigned char* records, int64_t n, unsigned char* out,
        int64_t stride)

cdef const char* FIELD_NAMES[2][8]
cdef const char* FIELD_FORMATS[2][8]
cdef int FIELD_DICTIONARY[2][8]
FIELD_NAMES[1][:] = [b"token", b"abbr", b"side", b"state", b"terminal", b"derived", b"valid",
                     b"reason"]
FIELD_FORMATS[1][:] = [b"u", b"c", b"c", b"c", b"b", b"b", b"b", b"c"]
FIELD_DICTIONARY[1][:] = [0, 1, 1, 1, 0, 0, 0, 1]
FIELD_NAMES[0][:] = [b"token", b"abbr", b"side", b"state", b"terminal", b"valid", b"reason",
                     NULL]
FIELD_FORMATS[0][:] = [b"u", b"c", b"c", b"c", b"b", b"b", b"c", NULL]
FIELD_DICTIONARY[0][:] = [0, 1, 1, 1, 0, 0, 1, 0]
# The dictionaries' words, indexed by the record's numbers (STATE_NORMAL == 0, ...).
cdef const char* LETTER_WORDS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
cdef int32_t LETTER_OFFSETS[27]
for _i in range(27):
    LETTER_OFFSETS[_i] = _i
cdef const char* SIDE_WORDS = b"firstsecond"
cdef int32_t SIDE_OFFSETS[3]
cdef const char* STATE_WORDS = b"normalenhanceddiminished"
cdef int32_t STATE_OFFSETS[4]
SIDE_OFFSETS[:] = [0, 5, 11]
STATE_OFFSETS[:] = [0, 6, 14, 24]
# The reason field's words, the Reason names by reason number - 1, from _marks (which
# reads them from the enum, where they are written).
cdef bytes REASON_NAMES = "".join(_marks.reason_names()).encode("ascii")
cdef const char* REASON_WORDS = REASON_NAMES  # REASON_NAMES, a module global, owns them
cdef int32_t REASON_OFFSETS[R_COUNT]  # by reason number; [0] = 0
REASON_OFFSETS[0] = 0
for _i, _name in enumerate(_marks.reason_names()):
    REASON_OFFSETS[_i + 1] = REASON_OFFSETS[_i] + len(_name)


cdef struct Invalid:  # what the export writes of the entries marked invalid
    int64_t count
    const int64_t* index            # each one's index, ascending
    const unsigned char* reason     # its reason number
    const unsigned char* missing    # 1: a missing value, whose token is null
    int64_t missing_count
    const int64_t* text_at          # count + 1 offsets into text
    const unsigned char* text       # their texts as read, joined


cdef extern from "Python.h":
    const char* utf8_of "PyUnicode_AsUTF8AndSize"(object text, Py_ssize_t* size)
    void PyErr_Clear()
    PyObject* tuple_item "PyTuple_GET_ITEM"(object items, Py_ssize_t k)


cdef bint utf8_valid(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """Whether p[:n] is UTF-8 as Python's strict decoder takes it (Unicode's table 3-7:
    no overlong form, no surrogate, nothing past U+10FFFF)."""
    cdef Py_ssize_t i = 0, need
    cdef unsigned char b, low, high
    cdef uint64_t word
    while i < n:
        # Eight ASCII bytes a step (marked texts are mostly ASCII): a test a byte was
        # most of the marked texts' columns.
        while i + 8 <= n:
            memcpy(&word, p + i, 8)
            if word & <uint64_t>0x8080808080808080ULL:
                break
            i += 8
        if i >= n:
            break
        b = p[i]
        i += 1
        if b < 0x80:
            continue
        low, high = 0x80, 0xBF
        if 0xC2 <= b <= 0xDF:
            need = 1
        elif 0xE0 <= b <= 0xEF:
            need = 2
            if b == 0xE0:
                low = 0xA0
            elif b == 0xED:
                high = 0x9F
        elif 0xF0 <= b <= 0xF4:
            need = 3
            if b == 0xF0:
                low = 0x90
            elif b == 0xF4:
                high = 0x8F
        else:
            return False
        if i + need > n or not low <= p[i] <= high:
            return False
        i += 1
        need -= 1
        while need:
            if not 0x80 <= p[i] <= 0xBF:
                return False
            i += 1
            need -= 1
    return True


cdef int64_t ones(const unsigned char* flags, int64_t n) noexcept nogil:
    """How many of n flags are nonzero: a sum the compiler vectorizes, where
    bytes.count compared a byte at a time (a millisecond for a million marks)."""
    cdef int64_t k, total = 0
    for k in range(n):
        total += flags[k] != 0
    return total


cdef tuple text_source(object rejected):
    """A _marks.MarkedTexts' (texts, ends, nones), its texts read first where they are
    still in an Arrow column's chunks (kept on it, as its _filled keeps them); None
    where its ends are no array('q') of one end an entry, its reasons no bytes or its
    flags no bytes of one an entry."""
    later = rejected._later
    if type(later) is _ArrowEntries:
        read = (<_ArrowEntries>later).read()
        rejected._texts, rejected._ends, rejected._nones = read
        rejected._later = None
    elif later is not None:
        rejected._filled()
    texts, ends, nones = rejected._texts, rejected._ends, rejected._nones
    if type(texts) is not bytes or type(ends) is not array_type or ends.typecode != "q":
        return None
    if type(rejected._reasons) is not bytes or len(ends) != len(rejected._reasons):
        return None
    if nones is not None and (type(nones) is not bytes or len(nones) != len(ends)):
        return None
    return texts, ends, nones


cdef tuple marked_source(object rejected):
    """text_source's columns where every text is UTF-8 (the export's field as it is):
    the texts back to back UTF-8 and no text ending inside a character (b"\xc3" then
    b"\xa9" are UTF-8 together, neither alone)."""
    if rejected._decode == "ucs4":
        return None
    source = text_source(rejected)
    if source is None:
        return None
    texts, ends = source[0], source[1]
    cdef const unsigned char* text_at = <const unsigned char*>PyBytes_AS_STRING(texts)
    cdef Py_ssize_t size = len(texts), k
    cdef int64_t end
    cdef Py_buffer view
    if not utf8_valid(text_at, size):
        return None
    PyObject_GetBuffer(ends, &view, PyBUF_SIMPLE)
    try:
        for k in range(view.len // 8):
            end = (<const int64_t*>view.buf)[k]
            if end < 0 or end > size or (end < size and (text_at[end] & 0xC0) == 0x80):
                return None  # each text written as export_text says
    finally:
        PyBuffer_Release(&view)
    return source


cdef Py_ssize_t ucs4_to_utf8(const unsigned char* units, Py_ssize_t size,
                             unsigned char* out) noexcept nogil:
    """A numpy U element's code units (size bytes, the machine's order) written to out
    as UTF-8 (at most size bytes); its length, or -1 where a unit is no Unicode scalar
    value (a surrogate or past U+10FFFF: _marks.export_text says what those become)."""
    cdef Py_ssize_t i, n = 0
    cdef uint32_t c
    for i in range(0, size - 3, 4):
        memcpy(&c, units + i, 4)
        if c < 0x80:
            out[n] = <unsigned char>c
            n += 1
        elif c < 0x800:
            out[n] = <unsigned char>(0xC0 | (c >> 6))
            out[n + 1] = <unsigned char>(0x80 | (c & 0x3F))
            n += 2
        elif c < 0x10000:
            if 0xD800 <= c < 0xE000:
                return -1
            out[n] = <unsigned char>(0xE0 | (c >> 12))
            out[n + 1] = <unsigned char>(0x80 | ((c >> 6) & 0x3F))
            out[n + 2] = <unsigned char>(0x80 | (c & 0x3F))
            n += 3
        elif c < 0x110000:
            out[n] = <unsigned char>(0xF0 | (c >> 18))
            out[n + 1] = <unsigned char>(0x80 | ((c >> 12) & 0x3F))
            out[n + 2] = <unsigned char>(0x80 | ((c >> 6) & 0x3F))
            out[n + 3] = <unsigned char>(0x80 | (c & 0x3F))
            n += 4
        else:
            return -1
    return n


cdef tuple texts_columns(object rejected):
    """The export's columns of a _marks.MarkedTexts' entries (reasons, missing flags,
    count + 1 text offsets from 0, texts) from marked_source; None where it gives
    none (each entry is then written as _marks.export_text says).  In C: the Python
    steps of this road were a fifth of a small batch's export."""
    cdef Py_buffer view
    cdef Py_ssize_t n
    cdef int64_t* at
    source = marked_source(rejected)
    if source is None:
        return None
    texts, ends, nones = source
    reasons = rejected._reasons
    n = len(reasons)
    PyObject_GetBuffer(ends, &view, PyBUF_SIMPLE)
    try:
        if offsets_in_place():
            offsets = new_array("q")
            at = <int64_t*>pyarray_resize(offsets, n + 1, 8)
            at[0] = 0
            memcpy(at + 1, view.buf, 8 * n)
        else:
            offsets = array_of_bytes("q", bytes(8) + PyBytes_FromStringAndSize(
                <const char*>view.buf, 8 * n))
    finally:
        PyBuffer_Release(&view)
    return reasons, bytes(n) if nones is None else nones, offsets, texts


# A selection's marks are copied from its source's columns, made whole, where the
# source holds at most this many marks for each of the selection's; with fewer
# selected, each selected mark is made as an object instead.  A list's 400k marks,
# a selection of 800k entries every 12th (33k marks): 7.4 ms by the columns, 26 by
# the objects; every 40th: 5.8 by the objects, 7.5 by the columns (AMD EPYC).
cdef Py_ssize_t SOURCE_PER_PICK = 16


cdef bint ascending(const int64_t* ends, Py_ssize_t n, int64_t limit) noexcept:
    """Whether n ends go up from 0 (each at least the one before) to at most limit."""
    cdef Py_ssize_t k
    cdef int64_t last = 0
    for k in range(n):
        if ends[k] < last:
            return False
        last = ends[k]
    return last <= limit


cdef tuple marked_texts(object rejected):
    """(reasons, missing flags, text offsets, texts) of the marked entries, in index
    order: one byte each for the first two, array('q') of count + 1 for the third, one
    bytes object for the last; checked before C reads them by offset or writes a reason
    as a dictionary index (the columns are a result's attributes, which code may
    replace: an unpickled result's too)."""
    columns = marks_columns(rejected)
    cdef bytes reasons = columns[0], missing = columns[1], texts = columns[3]
    cdef Py_ssize_t n = len(reasons), k
    cdef const int64_t* at
    cdef const unsigned char* reason_at = <const unsigned char*>PyBytes_AS_STRING(reasons)
    if len(missing) != n or len(columns[2]) != n + 1:
        raise ValueError("a result's marks disagree on their count")
    at = <const int64_t*>array_address(columns[2])
    if at[0] != 0 or at[n] != len(texts) or not ascending(at + 1, n, len(texts)):
        raise ValueError("a result's marked texts are not where their offsets say")
    for k in range(n):
        if not 1 <= reason_at[k] < R_COUNT:  # a word of the reason field's dictionary
            raise ValueError(f"a mark's reason must be in range(1, {R_COUNT})")
    return columns


cdef tuple marks_columns(object rejected):
    """marked_texts' columns, unchecked.  A str's UTF-8 is read where CPython keeps it,
    no object made; anything else (bytes, a str with lone surrogates, a missing value)
    goes through _marks.export_text, which says what the export holds for it."""
    if type(rejected) is _marks.MarkedTexts or type(rejected) is _marks.MarkedStrings:
        columns = texts_columns(rejected)  # the columns already, where UTF-8
        if columns is not None:
            return columns
    if type(rejected) is _marks.Picked:  # a selection's
        # The source's columns cost each of its marks, read in C (a list's too); a pick
        # made as an object costs tens of times one (SOURCE_PER_PICK)
        source = (<object>rejected)._source
        if len(source) <= SOURCE_PER_PICK * len(rejected):
            columns = picked_texts(rejected)  # the source's columns, gathered
            if columns is not None:
                return columns
        rejected = rejected.entries()  # a few of many: each distinct entry made once
    # A list's, tuple's or object array's marks (items) or a MarkedTexts' whose texts
    # are not all UTF-8 (a numpy U array's code units, bytes: texts), each read where
    # the column keeps it, no (token, reason) tuple made through its __getitem__ (that
    # was 400 ns a mark: a list's 2M entries half marked took 0.8 s to export, a numpy
    # U array's 160x its parse); an entry C cannot write as export_text would is made
    # as that tuple.
    cdef object items = None, texts = None, ends = None, nones = None, kinds = None
    cdef bint wide = False
    if type(rejected) is _marks.MarkedObjects:
        items, kinds = (<object>rejected)._objects, (<object>rejected)._reasons
        if type(items) is not tuple or type(kinds) is not bytes or len(items) != len(kinds):
            items = kinds = None
    elif type(rejected) is _marks.MarkedTexts or type(rejected) is _marks.MarkedStrings:
        source = text_source(rejected)
        if source is not None:
            texts, ends, nones = source
            kinds = rejected._reasons
            wide = rejected._decode == "ucs4"
    cdef Py_ssize_t n = len(rejected), k, size = 0, used = 0, room = 8 * n + 64
    if kinds is not None and len(kinds) != n:  # columns of another count: not read
        items = texts = kinds = None
    cdef unsigned char* buf = <unsigned char*>malloc(room)
    cdef const char* utf8
    cdef bytearray reasons = bytearray(n), missing = bytearray(n)
    cdef object offsets = array_of_bytes("q", bytes(8 * (n + 1)))
    cdef int64_t* at = <int64_t*>array_address(offsets)
    cdef unsigned char* reason_at = <unsigned char*>PyByteArray_AS_STRING(reasons)
    cdef const unsigned char* kind_at = NULL
    cdef const unsigned char* text_at = NULL
    cdef const unsigned char* none_at = NULL
    cdef Py_buffer view
    cdef const int64_t* end_at = NULL
    cdef int64_t start, stop, text_size = 0
    cdef bytes text
    cdef tuple entry
    cdef int reason
    cdef bint held = False
    if buf == NULL:
        raise MemoryError()
    if kinds is not None:
        kind_at = <const unsigned char*>PyBytes_AS_STRING(kinds)
    try:
        if texts is not None:
            PyObject_GetBuffer(ends, &view, PyBUF_SIMPLE)  # n int64 ends, held till done
            held = True
            end_at = <const int64_t*>view.buf
            text_at = <const unsigned char*>PyBytes_AS_STRING(texts)
            text_size = len(texts)
            if nones is not None:
                none_at = <const unsigned char*>PyBytes_AS_STRING(nones)
        for k in range(n):
            token = None
            if kind_at != NULL:  # the columns' own: never resized, immutable bytes
                reason = kind_at[k]
                reason_at[k] = reason
                if reason == R_MISSING or (none_at != NULL and none_at[k]):
                    missing[k] = 1  # export_text's None, whatever the token is
                    at[k + 1] = used
                    continue
                if items is not None:  # a tuple: no code can resize it
                    token = <object>tuple_item(items, k)
                else:
                    start = end_at[k - 1] if k else 0
                    stop = end_at[k]
                    if 0 <= start <= stop <= text_size:
                        if used + (stop - start) > room:
                            buf = grown_buffer(buf, &room, used + (stop - start))
                        size = -1
                        if wide:
                            size = ucs4_to_utf8(text_at + start, stop - start, buf + used)
                        elif utf8_valid(text_at + start, stop - start):
                            memcpy(buf + used, text_at + start, stop - start)
                            size = stop - start
                        if size >= 0:
                            used += size
                            at[k + 1] = used
                            continue
                    token = (<tuple>rejected[k])[0]  # as _marks makes it
            else:  # a list of (token, reason, ...) tuples (an unpickled result's)
                token = rejected[k]
                if not isinstance(token, tuple) or len(<tuple>token) < 2:
                    raise TypeError("a mark must be a (token, reason, ...) tuple, not "
                                    f"{type(token).__name__}")
                entry = <tuple>token
                token, reason = entry[0], entry[1]
                if not 1 <= reason < R_COUNT:  # a word of the reason field's dictionary
                    raise ValueError(f"a mark's reason must be in range(1, {R_COUNT})")
                reason_at[k] = reason
            utf8 = NULL
            if type(token) is str:
                utf8 = utf8_of(token, &size)
                if utf8 == NULL:  # lone surrogates: no UTF-8
                    PyErr_Clear()
            if utf8 == NULL:
                text = _marks.export_text(token, reason)
                if text is None:
                    missing[k] = 1
                    at[k + 1] = used
                    continue
                utf8, size = text, len(text)
            if used + size > room:
                buf = grown_buffer(buf, &room, used + size)
            memcpy(buf + used, utf8, size)
            used += size
            at[k + 1] = used
        return bytes(reasons), bytes(missing), offsets, PyBytes_FromStringAndSize(
            <char*>buf, used)
    finally:
        if held:
            PyBuffer_Release(&view)
        free(buf)


cdef unsigned char* grown_buffer(unsigned char* buf, Py_ssize_t* room,
                                 Py_ssize_t need) except NULL:
    """buf reallocated to at least need bytes (twice its room and more): the same
    buffer, or MemoryError with buf still the caller's to free."""
    cdef Py_ssize_t bigger = 2 * room[0] + need
    cdef unsigned char* grown = <unsigned char*>realloc(buf, bigger)
    if grown == NULL:
        raise MemoryError()
    room[0] = bigger
    return grown


cdef object picked_texts(object picked):
    """marked_texts of a _marks.Picked: its source's columns (made once, a category
    column's few), each picked entry's text copied from them in C by its place among
    the source's; where the entries were made as objects first, a gathered category
    column half marked spent 60 ns a mark exporting them.  None where the places are
    not int64 (a platform whose numpy indexes are 32 bits)."""
    cdef Py_buffer view
    cdef const int64_t* source_at
    cdef int64_t* at
    cdef Py_ssize_t n = len(picked), k, total = 0
    cdef int64_t j, count
    cdef const unsigned char* source_missing
    cdef unsigned char* missing_out
    cdef const unsigned char* source_text
    cdef unsigned char* text_out
    reasons_in, missing_in, offsets_in, texts_in = marked_texts(picked._source)
    count = len(missing_in)
    source_at = <const int64_t*>array_address(offsets_in)
    source_missing = missing_in
    source_text = texts_in
    places = picked._at
    PyObject_GetBuffer(places, &view, PyBUF_SIMPLE)  # int64, each in [0, count)
    try:
        if view.len != 8 * n:
            return None
        for k in range(n):
            j = (<const int64_t*>view.buf)[k]
            if not 0 <= j < count:
                raise SystemError("a selection's place is outside its source")
            total += source_at[j + 1] - source_at[j]
        missing = PyBytes_FromStringAndSize(NULL, n)
        texts = PyBytes_FromStringAndSize(NULL, total)
        offsets = array_of_bytes("q", bytes(8 * (n + 1)))
        at = <int64_t*>array_address(offsets)
        missing_out = <unsigned char*>PyBytes_AS_STRING(missing)  # new: ours alone
        text_out = <unsigned char*>PyBytes_AS_STRING(texts)
        with nogil:
            for k in range(n):
                j = (<const int64_t*>view.buf)[k]
                missing_out[k] = source_missing[j]
                memcpy(text_out + at[k], source_text + source_at[j],
                       source_at[j + 1] - source_at[j])
                at[k + 1] = at[k] + source_at[j + 1] - source_at[j]
    finally:
        PyBuffer_Release(&view)
    return bytes(picked._reasons), missing, offsets, texts


cdef inline const void* array_address(object values):
    """Where an array.array keeps its items (it does not move while the array is alive
    and not resized: the callers hold it and never resize it)."""
    return <const void*><size_t>values.buffer_info()[0]


# An export's shape: the notation, and for tokenize_many's results where each token
# came from, as two more fields (flat) or as one list of tokens per input row (nested).
cdef enum:
    SHAPE_EPIN = 1    # the derived field
    SHAPE_PLACED = 2  # row and offset (int64) after the token's fields, a row per token
    # one field, tokens: a large_list per input row of the token's fields and offset,
    # null where the row was missing
    SHAPE_NESTED = 4


cdef int shape_fields(int shape, const char** names, const char** formats,
                      int* dictionary) noexcept nogil:
    """The fields of a shape's token struct (not the nested list around it): their
    number, names, formats and dictionary flags."""
    cdef int epin = shape & SHAPE_EPIN, n = 8 if epin else 7, i
    for i in range(n):
        names[i] = FIELD_NAMES[epin][i]
        formats[i] = FIELD_FORMATS[epin][i]
        dictionary[i] = FIELD_DICTIONARY[epin][i]
    if shape & SHAPE_PLACED:
        names[n], formats[n], dictionary[n] = b"row", b"l", 0
        n += 1
    if shape & (SHAPE_PLACED | SHAPE_NESTED):
        names[n], formats[n], dictionary[n] = b"offset", b"l", 0
        n += 1
    return n


cdef int tokens_schema(ArrowSchema* out, int shape) noexcept nogil:
    cdef const char* names[10]
    cdef const char* formats[10]
    cdef int dictionary[10]
    cdef int n = shape_fields(shape, names, formats, dictionary)
    if shape & SHAPE_NESTED:
        return nested_schema(out, b"tokens", n, names, formats, dictionary)
    return struct_schema(out, n, names, formats, dictionary)


cdef void* copy_of(const void* data, size_t size) noexcept nogil:
    cdef void* copy = malloc(size if size else 1)
    if copy != NULL and size:
        memcpy(copy, data, size)
    return copy


cdef int leaf(ArrowArray* out, int64_t n, int64_t nulls, const uint8_t* validity,
              int n_buffers) noexcept nogil:
    """A child node with its own copy of the validity bitmap; -1 when out of memory."""
    if node_init(out, n, nulls, n_buffers, 0) < 0:
        return -1
    if nulls:
        node_set_buffer(out, 0, copy_of(validity, (n + 7) // 8))
        if out.buffers[0] == NULL:
            return -1
    return 0


cdef int words(ArrowArray* out, int64_t n, const int32_t* offsets,
               const char* data) noexcept nogil:
    """The utf8 dictionary of an abbr / side / state / reason field: the module's own
    words, shared by every export (never written, never freed: they live as long as
    the module), so a small batch's export copies none of them."""
    if node_init(out, n, 0, 3, 0) < 0:
        return -1
    node_set_view(out, 1, <void*>offsets)
    node_set_view(out, 2, <void*>data)
    return 0


cdef void place_texts(int32_t* offsets, unsigned char* data, int64_t n,
                      const Invalid* marked) noexcept nogil:
    """Write the marked entries' texts into the token field, whose first pass left them
    empty: from the last one back, each run of tokens after a marked entry moves right by
    the length of all texts up to it (memmove: data has room for them), then the text
    goes in the gap.  One pass over the data, whatever the number of marked entries."""
    cdef int64_t k, r, i, end = n, first_after
    cdef int32_t shift, start, stop
    for k in range(marked.count - 1, -1, -1):
        i = marked.index[k]
        shift = <int32_t>marked.text_at[k + 1]
        first_after = i + 1
        start = offsets[first_after]
        stop = offsets[end]
        if shift:
            memmove(data + start + shift, data + start, stop - start)
            for r in range(first_after, end + 1):
                offsets[r] += shift
        memcpy(data + offsets[i] + marked.text_at[k], marked.text + marked.text_at[k],
               marked.text_at[k + 1] - marked.text_at[k])
        end = i


cdef int rebuild_texts(int32_t* offsets, unsigned char* data, const unsigned char* records,
                       int64_t n, const Invalid* marked) noexcept nogil:
    """place_texts where marks are many (marked.count > 0): the token field written
    again in one pass forward, each entry's bytes after the last's, from one copy of
    the first pass's tokens and the marked texts after them.  Each entry copies 16
    bytes from where its bytes are, whichever kind it is (a longer text copies again),
    so no branch depends on the entry: place_texts moved each run between two marks
    with a library call, 20 ns a mark where every other entry is marked (four fifths
    of the export), and a test per entry mispredicted half the time.  An entry is
    marked where its record is 0 (the marks are those entries, ascending), read from
    the records rather than compared with the next mark's index: a load in the chain
    from one entry to the next made the pass 5 ns an entry.  0, -1 when out of
    memory."""
    cdef int64_t i, k = 0, at = 0, size, source, select, kept, last = marked.count - 1
    cdef int64_t tokens = offsets[n]
    cdef int64_t texts = marked.text_at[marked.count]
    cdef int64_t first, after
    cdef unsigned char* copy = <unsigned char*>malloc(tokens + texts + 16)
    if copy == NULL:
        return -1
    memcpy(copy, data, tokens)
    memcpy(copy + tokens, marked.text, texts)
    memset(copy + tokens + texts, 0, 16)
    first = offsets[0]
    for i in range(n):
        after = offsets[i + 1]
        offsets[i] = <int32_t>at
        # Selected by a mask, not a test; k counts the marks before the entry (at most
        # the last's place, should the records hold a 0 the marks do not).
        select = -<int64_t>(records[5 * i] == 0)
        kept = min(k, last)
        source = first ^ ((first ^ (tokens + marked.text_at[kept])) & select)
        size = (after - first) ^ (
            ((after - first) ^ (marked.text_at[kept + 1] - marked.text_at[kept])) & select)
        memcpy(data + at, copy + source, 16)  # data has 16 bytes of room past its end
        if size > 16:
            memcpy(data + at, copy + source, size)
        at += size
        k -= select
        first = after
    offsets[n] = <int32_t>at
    free(copy)
    return 0


cdef inline int64_t words_bytes(int64_t n) noexcept nogil:
    """The bytes of a bitmap of n entries in whole 64-entry words, and one more."""
    return (n + 63) // 64 * 8 + 8


cdef void bits_at_marks(uint8_t* bits, const int64_t* index, int64_t count,
                        const unsigned char* only, bint value) noexcept nogil:
    """Bit index[k] of the bitmap set to value for each mark k (only where only[k] is
    nonzero, if only is given): the four bitmaps marks set or clear (validity, present,
    reason, the view column's).  The marks' bits are gathered in a register while they
    fall in one 64-entry word, then written a byte at a time (so the byte order does
    not matter); measured, it costs what a read-modify-write a mark did (a
    half-marked column's export, 2M entries, AMD EPYC).  bits must hold every byte of
    the words the marks fall in."""
    cdef int64_t k, i, word = -1, w
    cdef uint64_t gathered = 0, b
    cdef int j
    for k in range(count + 1):
        w = index[k] >> 6 if k < count else -2
        if w != word:
            if word >= 0:
                for j in range(8):
                    if value:
                        bits[8 * word + j] |= <uint8_t>(gathered >> (8 * j))
                    else:
                        bits[8 * word + j] &= <uint8_t>~(gathered >> (8 * j))
            word = w
            gathered = 0
        if k < count:
            i = index[k]
            b = (<uint64_t>1) << (i & 63)
            if only != NULL:
                b &= -<uint64_t>(only[k] != 0)
            gathered |= b


cdef int fill_marks(ArrowArray* out, int64_t n, bint epin, const uint8_t* validity,
                    const Invalid* marked) noexcept nogil:
    """The valid and reason fields (validity: the bitmap of valid entries, NULL when
    all are)."""
    cdef int64_t i, k, bitmap = (n + 7) // 8
    cdef ArrowArray* valid = node_child(out, 6 if epin else 5)
    cdef ArrowArray* reason = node_child(out, 7 if epin else 6)
    cdef uint8_t* bits = <uint8_t*>malloc(bitmap + 1)
    cdef int8_t* reasons = <int8_t*>calloc(n + 1, 1)
    cdef uint8_t* reason_valid = <uint8_t*>calloc(words_bytes(n), 1)  # bits_at_marks
    if (node_init(valid, n, 0, 2, 0) < 0 or bits == NULL or reasons == NULL
            or reason_valid == NULL):
        free(bits)
        free(reasons)
        free(reason_valid)
        return -1
    if validity != NULL:
        memcpy(bits, validity, bitmap)
    else:
        memset(bits, 0xFF, bitmap + 1)
    node_set_buffer(valid, 1, bits)
    for k in range(marked.count):
        reasons[marked.index[k]] = <int8_t>(marked.reason[k] - 1)
    bits_at_marks(reason_valid, marked.index, marked.count, NULL, True)
    if node_init(reason, n, n - marked.count, 2, 0) < 0:
        free(reasons)
        free(reason_valid)
        return -1
    node_set_buffer(reason, 0, reason_valid)
    node_set_buffer(reason, 1, reasons)
    return words(node_dictionary(reason), R_COUNT - 1, REASON_OFFSETS, REASON_WORDS)


cdef extern from "Python.h":
    int check_signals "PyErr_CheckSignals"() nogil  # -1 with the handler's exception set


cdef int signalled() noexcept nogil:
    """Pending signals checked, the GIL taken back for the check only: -1 when a handler
    raised (its exception is set)."""
    with gil:
        return check_signals()


cdef int error_set() except -1:
    """Raises the exception a C call has set (Cython raises it on -1)."""
    return -1


cdef void fill_rest(const unsigned char* records, int64_t start, int64_t stop, int64_t n,
                    int32_t* token_offsets, unsigned char* token_data, int32_t* at,
                    int8_t* letter, int8_t* side, int8_t* state, uint8_t* terminal,
                    uint8_t* derived) noexcept nogil:
    """fill_columns' fields of entries start .. stop - 1 in plain C (start a multiple of
    8: bitmap bytes are written whole), one pass per group of columns, few live
    pointers, so each loop stays in registers."""
    cdef int64_t i, k
    cdef int code
    cdef const unsigned char* r
    cdef uint8_t t_bits, d_bits
    for i in range(start, stop):
        r = records + 5 * i
        token_offsets[i] = at[0]
        if r[0] == 0:  # marked invalid: null everywhere, nothing written
            continue
        code = record_code(r)
        memcpy(token_data + at[0], token_bytes[code], 4)  # 4n + 1 bytes of room
        at[0] += token_length[code]
    for i in range(start, stop):  # the dictionaries' indices are the records' own numbers
        letter[i] = <int8_t>(records[5 * i] - 65 if records[5 * i] else 0)
        side[i] = <int8_t>records[5 * i + 1]
        state[i] = <int8_t>records[5 * i + 2]
    # Eight entries to a byte, no branch (random bits would mispredict half the time).
    for k in range(start // 8, (stop + 7) // 8):
        t_bits = d_bits = 0
        for i in range(8 * k, min(8 * k + 8, n)):
            t_bits |= <uint8_t>(records[5 * i + 3] << (i & 7))
            d_bits |= <uint8_t>(records[5 * i + 4] << (i & 7))
        terminal[k] = t_bits
        derived[k] = d_bits


cdef int fill_columns(ArrowArray* out, const unsigned char* records, int64_t n, bint epin,
                      const Invalid* marked, int extra) noexcept nogil:
    """The struct array of n records, with room for extra children after the token's
    fields (the caller fills them); 0, -1 when out of memory, -2 when a signal
    handler raised (checked between pieces: Ctrl-C stops a long export); out is then
    still releasable: what was built is freed by its release."""
    cdef int64_t i, k, start = 0, stop, done, bitmap = (n + 7) // 8, nulls = marked.count
    cdef int64_t room = 4 * n + marked.text_at[marked.count] + 16  # rebuild_texts' 16
    cdef int64_t piece = (piece_entries() + 15) // 16 * 16  # bitmap bytes stay whole
    cdef int32_t at = 0
    cdef uint8_t* validity = NULL
    cdef uint8_t* present = NULL
    cdef int32_t* token_offsets
    cdef unsigned char* token_data
    cdef int8_t* letter
    cdef int8_t* side
    cdef int8_t* state
    cdef uint8_t* terminal
    cdef uint8_t* derived
    if node_init(out, n, 0, 1, (8 if epin else 7) + extra) < 0:
        return -1
    if nulls:  # the fields' validity: each field owns a copy
        validity = <uint8_t*>malloc(words_bytes(n))  # bits_at_marks writes whole words
        present = <uint8_t*>malloc(words_bytes(n))
        if validity == NULL or present == NULL:
            free(validity)
            free(present)
            return -1
        # Set, then cleared at the marked entries (the records that are 0): a pass over
        # the marks, not a bit made per entry (a third of a small batch's export).
        memset(validity, 0xFF, words_bytes(n))  # every byte bits_at_marks may read
        memset(present, 0xFF, words_bytes(n))
        if n & 7:  # no bit set past the entries (as the twin's bitmaps have none)
            validity[bitmap - 1] = present[bitmap - 1] = <uint8_t>((1 << (n & 7)) - 1)
        bits_at_marks(validity, marked.index, nulls, NULL, False)
        # the token is null only where the value was missing
        bits_at_marks(present, marked.index, nulls, marked.missing, False)
    if leaf(node_child(out, 0), n, marked.missing_count, present, 3) < 0:
        free(validity)
        free(present)
        return -1
    free(present)
    for i in range(1, 6 if epin else 5):
        if leaf(node_child(out, i), n, nulls, validity, 2) < 0:
            free(validity)
            return -1
    if fill_marks(out, n, epin, validity, marked) < 0:
        free(validity)
        return -1
    free(validity)
    # The token field's offsets and data in one allocation: the largest, of the same
    # size for the same n on every call, so the allocator keeps reusing the memory the
    # last export freed instead of mapping (and page-faulting) fresh memory each time.
    token_offsets = <int32_t*>malloc(4 * (n + 1) + room)
    token_data = <unsigned char*>(token_offsets + n + 1) if token_offsets != NULL else NULL
    letter = <int8_t*>malloc(n + 1)
    side = <int8_t*>malloc(n + 1)
    state = <int8_t*>malloc(n + 1)
    terminal = <uint8_t*>malloc(bitmap + 1)
    derived = <uint8_t*>malloc(bitmap + 1)
    node_set_buffer(node_child(out, 0), 1, token_offsets)
    node_set_view(node_child(out, 0), 2, token_data)
    node_set_buffer(node_child(out, 1), 1, letter)
    node_set_buffer(node_child(out, 2), 1, side)
    node_set_buffer(node_child(out, 3), 1, state)
    node_set_buffer(node_child(out, 4), 1, terminal)
    if epin:
        node_set_buffer(node_child(out, 5), 1, derived)
    if (token_offsets == NULL or token_data == NULL or letter == NULL or side == NULL
            or state == NULL or terminal == NULL or derived == NULL):
        if not epin:
            free(derived)
        return -1
    start = 0
    while start < n:  # a piece of entries at a time (a multiple of 16), signals between
        stop = min(n, start + piece)
        done = start + export_fields_lanes(
            bytes_kernel_id, records + 5 * start, stop - start, token_offsets + start,
            token_data, &at, letter + start, side + start, state + start,
            terminal + start // 8, derived + start // 8)
        fill_rest(records, done, stop, n, token_offsets, token_data, &at, letter, side,
                  state, terminal, derived)
        start = stop
        if start < n and signalled() < 0:
            if not epin:
                free(derived)
            return -2
    token_offsets[n] = <int32_t>at
    # Many marks: one pass over every entry (1.5 ns an entry); fewer, the runs between
    # them moved (some 20 ns a mark, 0.3 an entry): even at one entry in 16.  At one in
    # 64, as it was, a 2,048-row batch with 2 % of its rows marked spent 9 us of its 15
    # us export in the rebuild.
    if marked.count > n // 16:
        if rebuild_texts(token_offsets, token_data, records, n, marked) < 0:
            if not epin:
                free(derived)
            return -1
    elif marked.text_at[marked.count]:  # a few: the runs between them moved
        place_texts(token_offsets, token_data, n, marked)
    if not epin:  # PIN has no derived field
        free(derived)
    if words(node_dictionary(node_child(out, 1)), 26, LETTER_OFFSETS, LETTER_WORDS) < 0:
        return -1
    if words(node_dictionary(node_child(out, 2)), 2, SIDE_OFFSETS, SIDE_WORDS) < 0:
        return -1
    if words(node_dictionary(node_child(out, 3)), 3, STATE_OFFSETS, STATE_WORDS) < 0:
        return -1
    return 0


cdef struct Places:  # tokenize_many's layout, as the export reads it
    const int64_t* offsets       # each token's offset in its text
    const int64_t* row_offsets   # rows + 1: row r's tokens are row_offsets[r] ..
    int64_t rows
    const int64_t* missing       # the rows whose text was missing, ascending
    int64_t missing_count
    const int64_t* entry_rows    # a selection's: each token's row (NULL where empty)
    bint per_entry               # whether the rows are entry_rows (else by row_offsets)


cdef bint ranges_ok(const int64_t* ranges, int64_t rows, int64_t count) noexcept nogil:
    """Whether rows + 1 token ranges run from 0 to count, never going back."""
    cdef int64_t r
    if rows < 0 or ranges[0] != 0 or ranges[rows] != count:
        return False
    for r in range(rows):
        if ranges[r + 1] < ranges[r]:
            return False
    return True


cdef bint all_below(const int64_t* values, int64_t n, int64_t limit) noexcept nogil:
    """Whether each of n values is from 0 to below limit."""
    cdef int64_t i
    for i in range(n):
        if <uint64_t>values[i] >= <uint64_t>limit:
            return False
    return True


cdef bint missing_ok(const int64_t* missing, int64_t n, const int64_t* ranges,
                     int64_t rows) noexcept nogil:
    """Whether n missing rows are rows (of rows + 1 checked ranges), ascending, each of
    no token: as a pickle's layout must have them (_marks.checked_layout)."""
    cdef int64_t k, r
    for k in range(n):
        r = missing[k]
        if <uint64_t>r >= <uint64_t>rows or (k and r <= missing[k - 1]):
            return False
        if ranges[r + 1] != ranges[r]:
            return False
    return True


cdef bint none_negative(const int64_t* values, int64_t n) noexcept nogil:
    cdef int64_t i
    for i in range(n):
        if values[i] < 0:
            return False
    return True


cdef int check_ranges(object row_offsets, Py_ssize_t count) except -1:
    """ValueError unless a whole result's row_offsets (its own array, which a caller
    could have changed) still describe its count entries: read before C writes by them.
    The array is held (a memoryview: it cannot be resized) while read without the GIL;
    a caller that then writes by the ranges reads a copy (ranges_copy), which no other
    thread can change between the check and the writes."""
    cdef int64_t rows = len(row_offsets) - 1
    cdef const int64_t* ranges
    cdef bint ok = rows >= 0
    if ok:
        held = memoryview(row_offsets)
        rows = len(row_offsets) - 1
        ranges = <const int64_t*>array_address(row_offsets)
        with nogil:
            ok = ranges_ok(ranges, rows, count)
        held.release()
    if not ok:
        raise ValueError(_marks.LYING_LAYOUT)
    return 0


cdef object ranges_copy(object values):
    """An array('q') of a layout array's values, ours alone: what C writes by is read
    from it (the result's own arrays can be written, in place or resized, by another
    thread while the GIL is released)."""
    return new_array("q", values)


cdef tuple set_places(Places* places, TokenArray tokens):
    """The export's view of a result's layout, checked first (the arrays are the
    result's own, which a caller could have changed since): ValueError where they no
    longer describe its entries, rather than a read past their ends.  Returns what the
    caller holds until the fill is done: memoryviews of the arrays copied as they are
    (the offsets, a selection's rows: while viewed, no thread can resize them and free
    their items under the fill), and copies of those C indexes by (row_offsets, the
    missing rows), checked as copied: another thread may write the result's own arrays
    in place while the fill runs without the GIL."""
    cdef object layout = tokens._layout
    cdef bint ok
    offsets = layout[0]
    held_offsets = memoryview(offsets)
    if len(offsets) != tokens.count:
        raise ValueError(_marks.LYING_LAYOUT)
    places.offsets = <const int64_t*>array_address(offsets)
    with nogil:
        ok = none_negative(places.offsets, tokens.count)
    if not ok:
        raise ValueError(_marks.LYING_LAYOUT)
    if len(layout) != 4:  # a selection's: each entry's row
        entry_rows, texts = layout[4], layout[5]
        held_rows = memoryview(entry_rows)
        if len(entry_rows) != tokens.count:
            raise ValueError(_marks.LYING_LAYOUT)
        places.entry_rows = <const int64_t*>array_address(entry_rows)
        places.per_entry = True
        places.rows = texts
        with nogil:
            ok = all_below(places.entry_rows, tokens.count, places.rows)
        if not ok:
            raise ValueError(_marks.LYING_LAYOUT)
        return (held_offsets, held_rows)
    ranges = ranges_copy(layout[1])
    check_ranges(ranges, tokens.count)
    missing = ranges_copy(layout[2])
    places.row_offsets = <const int64_t*>array_address(ranges)
    places.rows = len(ranges) - 1
    places.missing = <const int64_t*>array_address(missing)
    places.missing_count = len(missing)
    with nogil:
        ok = missing_ok(places.missing, places.missing_count, places.row_offsets, places.rows)
    if not ok:
        raise ValueError(_marks.LYING_LAYOUT)
    return (held_offsets, ranges, missing)


cdef int int64_field(ArrowArray* out, int64_t n, int64_t** values) noexcept nogil:
    """An int64 child of n entries, none null, its values' memory given to fill: kept
    for the next export when released (_memory.h), 8 bytes a token."""
    if node_init(out, n, 0, 2, 0) < 0:
        return -1
    values[0] = <int64_t*>records_alloc(8 * n + 8)
    node_set_kept_buffer(out, 1, values[0])
    return -1 if values[0] == NULL else 0


cdef void fill_rows(int64_t* out, const int64_t* row_offsets, int64_t rows) noexcept nogil:
    """Each token's row, from the rows' token ranges (rows + 1 of them)."""
    cdef int64_t r, i
    for r in range(rows):
        for i in range(row_offsets[r], row_offsets[r + 1]):
            out[i] = r


cdef int fill_places(ArrowArray* out, int first, int64_t n, const Places* places,
                     bint with_row) noexcept nogil:
    """The row field (child first, with_row) and the offset field after it."""
    cdef int64_t* values
    if with_row:
        if int64_field(node_child(out, first), n, &values) < 0:
            return -1
        if places.per_entry:
            memcpy(values, places.entry_rows, 8 * n)
        else:
            fill_rows(values, places.row_offsets, places.rows)
        first += 1
    if int64_field(node_child(out, first), n, &values) < 0:
        return -1
    memcpy(values, places.offsets, 8 * n)
    return 0


cdef int fill_nested(ArrowArray* out, const unsigned char* records, int64_t n, bint epin,
                     const Invalid* marked, const Places* places) noexcept nogil:
    """The struct of one field, a large_list per row over the token struct (with its
    offset field), null where the row was missing; fill_columns' statuses."""
    cdef int64_t k, r, bitmap = (places.rows + 7) // 8
    cdef ArrowArray* lists
    cdef uint8_t* present
    cdef int status
    if node_init(out, places.rows, 0, 1, 1) < 0:
        return -1
    lists = node_child(out, 0)
    if node_init(lists, places.rows, places.missing_count, 2, 1) < 0:
        return -1
    if places.missing_count:
        present = <uint8_t*>malloc(bitmap + 1)
        node_set_buffer(lists, 0, present)
        if present == NULL:
            return -1
        memset(present, 0xFF, bitmap + 1)
        for k in range(places.missing_count):
            r = places.missing[k]
            present[r >> 3] &= <uint8_t>~(1 << (r & 7))
    node_set_buffer(lists, 1, copy_of(places.row_offsets, 8 * (places.rows + 1)))
    if lists.buffers[1] == NULL:
        return -1
    status = fill_columns(node_child(lists, 0), records, n, epin, marked, 1)
    if status < 0:
        return status
    return fill_places(node_child(lists, 0), 8 if epin else 7, n, places, False)


cdef object schema_capsule(int shape):
    cdef ArrowSchema* schema = <ArrowSchema*>calloc(1, sizeof(ArrowSchema))
    if schema == NULL or tokens_schema(schema, shape) < 0:
        free(schema)
        raise MemoryError()
    return PyCapsule_New(schema, b"arrow_schema", <PyCapsule_Destructor>schema_capsule_free)


cdef int shape_of(TokenArray tokens, bint nested) except -1:
    """The export's shape: by row (nested) only for tokenize_many's whole results (a
    selection of one keeps each entry's row and offset, not the rows' grouping)."""
    if nested and tokens._layout is None:
        raise ValueError("only tokenize_many's results have rows: by_row() exports "
                         "those")
    if nested and len(tokens._layout) != 4:
        raise ValueError(_marks.NO_GROUPING.format("by_row()"))
    if nested:
        return tokens.epin | SHAPE_NESTED
    return tokens.epin | (SHAPE_PLACED if tokens._layout is not None else 0)


cdef object array_capsule(TokenArray tokens, int shape):
    cdef ArrowArray* array = <ArrowArray*>calloc(1, sizeof(ArrowArray))
    cdef int status
    cdef Invalid marked
    cdef Places places
    cdef int64_t zero = 0
    cdef bytes reasons = b"", missing = b"", texts = b""
    cdef object text_at = None
    if array == NULL:
        raise MemoryError()
    capsule = PyCapsule_New(array, b"arrow_array", <PyCapsule_Destructor>array_capsule_free)
    marked = Invalid(0, NULL, NULL, NULL, 0, &zero, NULL)
    if len(tokens._invalid):  # the marked entries' texts and reasons, read with the GIL
        reasons, missing, text_at, texts = marked_texts(tokens._rejected)
        if len(reasons) != len(tokens._invalid):
            raise ValueError("a result's marks disagree on their count")
        marked.count = len(tokens._invalid)
        marked.index = <const int64_t*>array_address(tokens._invalid)
        marked.reason = reasons
        marked.missing = missing
        marked.missing_count = ones(missing, len(missing))
        marked.text_at = <const int64_t*>array_address(text_at)
        marked.text = texts
    # int32 offsets: 4 bytes per valid token, the marked ones' texts as they are.
    if 4 * tokens.count + len(texts) >= (1 << 31) - 1:
        raise OverflowError("the tokens of this TokenArray do not fit one Arrow utf8 column "
                            "(2 GiB of text)")
    places = Places(NULL, NULL, 0, NULL, 0, NULL, False)
    held = None  # the layout's arrays as the fill reads them, held until it is done
    if shape & (SHAPE_PLACED | SHAPE_NESTED):
        held = set_places(&places, tokens)
    with nogil:
        if shape & SHAPE_NESTED:
            status = fill_nested(array, tokens.records, tokens.count, tokens.epin, &marked,
                                 &places)
        else:
            status = fill_columns(array, tokens.records, tokens.count, tokens.epin, &marked,
                                  2 if shape & SHAPE_PLACED else 0)
            if status == 0 and shape & SHAPE_PLACED:
                status = fill_places(array, 8 if tokens.epin else 7, tokens.count, &places,
                                     True)
    del held
    if status == -2:
        error_set()  # a signal handler's exception (the capsule releases what was built)
    if status < 0:
        raise MemoryError()  # the capsule releases what was built
    return capsule


cdef object stream_capsule(TokenArray tokens, int shape):
    cdef ArrowArrayStream* stream = <ArrowArrayStream*>calloc(1, sizeof(ArrowArrayStream))
    cdef ArrowArray* array
    if stream == NULL:
        raise MemoryError()
    capsule = PyCapsule_New(stream, b"arrow_array_stream",
                            <PyCapsule_Destructor>stream_capsule_free)
    chunk = array_capsule(tokens, shape)
    array = <ArrowArray*>PyCapsule_GetPointer(chunk, b"arrow_array")
    if one_chunk_stream(stream, array, tokens_schema, shape) < 0:
        raise MemoryError()
    return capsule


# pyarrow's schema of each shape, imported once (the schema is the same whatever the
# data): pyarrow's import of it costs more than a parse of a few thousand entries.
# Keyed by the shape; the value holds the pyarrow module it was made with.
cdef dict ARROW_SCHEMAS = {}


cdef object arrow_table(TokenArray tokens):
    """``to_arrow()`` with its defaults, the road every engine's small batch takes: the
    array capsule alone (no schema capsule, no ctypes) imported by pyarrow against a
    schema imported once per shape; None where pyarrow is not imported yet or has no
    such import (the caller then goes the general road, which says why)."""
    pa = _sys.modules.get("pyarrow")
    # None too while another thread still imports pyarrow (in sys.modules already, half
    # made): the general road's import waits for it.
    if pa is None or _inputs.initializing(pa):
        return None
    cdef int shape = shape_of(tokens, False)
    known = ARROW_SCHEMAS.get(shape)
    if known is None or (<tuple>known)[0] is not pa:
        schema = pa.schema(pa.DataType._import_from_c_capsule(schema_capsule(shape)))
        known = ARROW_SCHEMAS[shape] = (pa, schema)
    schema = (<tuple>known)[1]
    capsule = array_capsule(tokens, shape)
    try:
        import_batch = pa.RecordBatch._import_from_c
    except AttributeError:
        return None
    # pyarrow moves the array out of the capsule (whose release then frees nothing).
    batch = import_batch(<size_t>PyCapsule_GetPointer(capsule, b"arrow_array"), schema)
    return pa.Table.from_batches([batch], schema)


# -- the token column alone as Arrow utf8_view: what a polars String column is --------
# polars takes a utf8_view array as it is (no copy, no pass), where it converts utf8
# (2M tokens: 15 ms, five times the parse).  A view is 16 bytes: the length (int32),
# then a text of at most 12 bytes inline (zero padded), or its first 4 bytes, the data
# buffer's number and the offset there.  Every token fits inline.

cdef extern from "_arrow_export.h" nogil:
    void leaf_schema "sashite_leaf_schema"(ArrowSchema* out, const char* name,
                                           const char* format, ArrowSchema* dictionary)

cdef unsigned char VIEW_BY_KEY[RECORD_KEYS][16]  # each token's view, by its record's key


cdef void fill_view_table() noexcept nogil:
    """VIEW_BY_KEY: a token's view where a record of it has the key, an empty one
    elsewhere (key 0 is the zero record of an entry marked invalid)."""
    cdef int code
    cdef int32_t length
    memset(VIEW_BY_KEY, 0, sizeof(VIEW_BY_KEY))
    for code in range(CODE_LIMIT):
        if token_length[code]:
            length = token_length[code]
            memcpy(VIEW_BY_KEY[record_key(record_of[code])], &length, 4)
            memcpy(VIEW_BY_KEY[record_key(record_of[code])] + 4, token_bytes[code], length)


fill_view_table()

cdef enum:
    VIEW_BLOCK = 2048  # fill_views' entries a step: 32 KB of views, still in cache
cdef int64_t NO_VARIADIC_SIZES[1]  # the sizes buffer of a view array with no data buffer
cdef unsigned char VIEW_MASK[13][12]  # [n]: 0xFF in the first n bytes (a text's), 0 after


cdef void fill_view_masks() noexcept nogil:
    cdef int n, j
    for n in range(13):
        for j in range(12):
            VIEW_MASK[n][j] = 0xFF if j < n else 0


fill_view_masks()


cdef int fill_views(ArrowArray* out, const unsigned char* records, int64_t n,
                    const int64_t* marked_index, const unsigned char* missing,
                    int64_t missing_count, const int64_t* ends, const unsigned char* text,
                    int64_t count) noexcept nogil:
    """The token column as a utf8_view array: null where the value was missing, the
    count marked entries' texts (text, each ending at its ends[k]) as the export holds
    them, one longer than 12 bytes in one data buffer (a copy of every marked text).
    0, -1 when out of memory, -2 when a signal handler raised (checked between
    pieces); out is then still releasable."""
    cdef int64_t i, k, start = 0, stop, piece = piece_entries()
    cdef int64_t texts = ends[count - 1] if count else 0
    cdef uint64_t word, mask
    cdef uint32_t half, half_mask
    cdef int64_t size, at
    cdef int32_t length, offset, buffer_index = 0
    cdef bint long_texts = False
    cdef uint8_t* present = NULL
    cdef unsigned char* views
    cdef unsigned char* view
    cdef unsigned char* data
    cdef int64_t* sizes
    if count:  # each length apart from the last's end: no chain from one to the next
        long_texts = ends[0] > 12
        for k in range(1, count):
            long_texts |= ends[k] - ends[k - 1] > 12
    if node_init(out, n, missing_count, 4 if long_texts else 3, 0) < 0:
        return -1
    if missing_count:
        present = <uint8_t*>malloc(words_bytes(n))  # bits_at_marks writes whole words
        node_set_buffer(out, 0, present)
        if present == NULL:
            return -1
        memset(present, 0xFF, words_bytes(n))
        if n & 7:  # no bit set past the entries
            present[(n + 7) // 8 - 1] = <uint8_t>((1 << (n & 7)) - 1)
        bits_at_marks(present, marked_index, count, missing, False)
    views = <unsigned char*>records_alloc(16 * n + 16)  # kept for the next export's reuse
    node_set_kept_buffer(out, 1, views)
    # The marked texts with 16 zero bytes after them: each short text's view copies 12
    # bytes and keeps those before its length by a mask (no branch, no copy by size:
    # those mispredicted, texts being of every length); the data buffer where a text
    # is longer than 12 bytes.
    data = <unsigned char*>malloc(texts + 16)
    if long_texts:
        node_set_buffer(out, 2, data)
    if views == NULL or data == NULL:
        if not long_texts:
            free(data)
        return -1
    memcpy(data, text, texts)
    memset(data + texts, 0, 16)
    k = 0
    at = 0
    while start < n:  # a block at a time, signals checked between pieces
        stop = min(n, start + VIEW_BLOCK)
        for i in range(start, stop):  # a marked entry's record is 0: an empty view
            memcpy(views + 16 * i, VIEW_BY_KEY[record_key(records + 5 * i)], 16)
        # then the block's marked entries, while its views are in cache (after the
        # whole column, each was a miss: 32 MB on 2M entries)
        while k < count and marked_index[k] < stop:  # a missing value's stays empty
            size = ends[k] - at
            view = views + 16 * marked_index[k]
            length = <int32_t>size
            memcpy(view, &length, 4)
            memcpy(&word, data + at, 8)  # as bytes: a mask of bytes needs no byte order
            memcpy(&mask, VIEW_MASK[min(size, 12)], 8)
            word &= mask
            memcpy(view + 4, &word, 8)
            memcpy(&half, data + at + 8, 4)
            memcpy(&half_mask, VIEW_MASK[min(size, 12)] + 8, 4)
            half &= half_mask
            memcpy(view + 12, &half, 4)
            if size > 12:
                offset = <int32_t>at
                memcpy(view + 8, &buffer_index, 4)  # after the 4 bytes' prefix
                memcpy(view + 12, &offset, 4)
            at = ends[k]
            k += 1
        start = stop
        if start < n and start % piece < VIEW_BLOCK and signalled() < 0:
            if not long_texts:
                free(data)
            return -2
    if not long_texts:
        free(data)
        node_set_view(out, 2, NO_VARIADIC_SIZES)
        return 0
    sizes = <int64_t*>malloc(8)
    node_set_buffer(out, 3, sizes)
    if sizes == NULL:
        return -1
    sizes[0] = texts
    return 0


cdef object token_view_capsules(TokenArray tokens):
    """(schema, array) capsules of the token column as utf8_view (fill_views)."""
    cdef ArrowSchema* schema = <ArrowSchema*>calloc(1, sizeof(ArrowSchema))
    cdef ArrowArray* array
    cdef int status
    cdef int64_t count = len(tokens._invalid), missing_count = 0, first = 0
    cdef const int64_t* index = NULL
    cdef const int64_t* ends = NULL
    cdef const unsigned char* missing = NULL
    cdef const unsigned char* text = NULL
    cdef bytes texts = b"", nones = None
    if schema == NULL:
        raise MemoryError()
    schema_out = PyCapsule_New(schema, b"arrow_schema",
                               <PyCapsule_Destructor>schema_capsule_free)
    leaf_schema(schema, b"token", b"vu", NULL)
    array = <ArrowArray*>calloc(1, sizeof(ArrowArray))
    if array == NULL:
        raise MemoryError()
    capsule = PyCapsule_New(array, b"arrow_array", <PyCapsule_Destructor>array_capsule_free)
    if count:  # the marked entries' texts, read with the GIL
        rejected = tokens._rejected
        source = None
        if type(rejected) is _marks.MarkedTexts or type(rejected) is _marks.MarkedStrings:
            source = marked_source(rejected)  # their ends as they are kept: no copy
        if source is not None:
            texts, end_array, nones = source
            ends = <const int64_t*>array_address(end_array)
            first = len(end_array)
        else:  # as the export writes them: count + 1 offsets from 0, the ends after
            _, nones, end_array, texts = marked_texts(rejected)
            ends = <const int64_t*>array_address(end_array) + 1
            first = len(end_array) - 1
        if nones is None:
            nones = bytes(count)
        # The ends, one a mark, from 0, ascending, the last within the texts: what keeps
        # fill_views' copies inside them (a result's columns are attributes code may
        # replace)
        if first != count or len(nones) != count or not ascending(ends, count, len(texts)):
            raise ValueError("a result's marked texts are not where their offsets say")
        index = <const int64_t*>array_address(tokens._invalid)
        missing = nones
        missing_count = ones(missing, count)
        text = texts
    if len(texts) >= (1 << 31) - 1:  # a view's offset is an int32
        raise OverflowError("the marked texts of this TokenArray do not fit one Arrow "
                            "utf8_view column (2 GiB of text)")
    with nogil:
        status = fill_views(array, tokens.records, tokens.count, index, missing,
                            missing_count, ends, text, count)
    if status == -2:
        error_set()  # a signal handler's exception (the capsule releases what was built)
    if status < 0:
        raise MemoryError()
    return schema_out, capsule
