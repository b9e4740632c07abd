# TokenArray, the result of parse_many: part of the compiled core (included by
# _core_c.pyx).  Its twin is _array_py.py.  The input readers are in _bulk_c.pxi.

from cpython.buffer cimport (PyBUF_FORMAT, PyBUF_RECORDS_RO, PyBUF_WRITABLE,
                             PyBuffer_Release, PyObject_CheckBuffer,
                             PyObject_GetBuffer)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.exc cimport PyErr_CheckSignals
from cpython.object cimport PyObject
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_DECREF, Py_INCREF

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* op)
    void PyObject_GC_Track(void* op)
from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t)
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

cdef object array_type = None


cdef object new_array(str typecode, object items=()):
    """array.array(typecode, items), the array module imported when first asked for:
    it imports collections.abc, which would cost more than the rest of the import."""
    global array_type
    if array_type is None:
        from array import array as loaded
        array_type = loaded
    return array_type(typecode, items)


cdef object array_of_bytes(str typecode, bytes data):
    cdef object result = new_array(typecode)
    result.frombytes(data)
    return result

cdef extern from "_memory.h" nogil:
    void* records_alloc "sashite_records_alloc"(size_t size)
    void* records_realloc "sashite_records_realloc"(void* p, size_t size)
    void* records_grow "sashite_records_grow"(void* p, size_t used, size_t size)
    void* records_fit "sashite_records_fit"(void* p, size_t size)
    void records_free "sashite_records_free"(void* p)
    size_t release_spares "sashite_release_spares"()
    size_t spares_held "sashite_spares_held"()

cdef extern from "_records.h" nogil:
    size_t records_length "sashite_records_length"(const unsigned char* records, size_t n)
    size_t records_length_portable "sashite_records_length_portable"(
        const unsigned char* records, size_t n)
    enum: RECORD_KEYS "SASHITE_RECORD_KEYS"
    unsigned record_key "sashite_record_key"(const unsigned char* record)

cdef extern from "_formats.h" nogil:
    enum: SHAPES "SASHITE_SHAPES"
    ctypedef struct shape_texts "sashite_shapes":
        unsigned char length[SHAPES]
    void shapes_build "sashite_shapes_build"(
        shape_texts* t, const unsigned char (*token)[4], const unsigned char* length,
        const unsigned char* sep, int sep_len)
    void formats_init "sashite_formats_init"(
        const unsigned char (*token)[4], const unsigned char* length)
    # 16 tokens at a time under a kernel with these loops (AVX2, AVX-512, NEON); how
    # many it wrote (0 under another kernel)
    int64_t join_lanes "sashite_join_lanes"(
        int kernel, const unsigned char* records, int64_t n, const shape_texts* t,
        int sep_len, unsigned char** out, const unsigned char* end)

cdef extern from "Python.h":
    ctypedef struct PyListObject:
        PyObject** ob_item
    void Py_SET_SIZE(object o, Py_ssize_t size)

cdef extern from *:
    """
    /* n more references to o, which other threads may hold and count too. */
    static inline void sashite_add_references(PyObject* o, Py_ssize_t n) {
    #ifdef Py_GIL_DISABLED
        /* Free-threaded: a count is split between its owner thread and the others and
           may change under us at any moment; only Py_INCREF's own atomics are safe. */
        while (n-- > 0) Py_INCREF(o);
    #else
        /* The GIL is held: nobody else changes the count, so one addition does it. */
        Py_SET_REFCNT(o, Py_REFCNT(o) + n);
    #endif
    }
    """
    void add_references "sashite_add_references"(PyObject* o, Py_ssize_t n)

from sashite_epin import _selection

# Slack after the last record: a record is written as one 8-byte store.
DEF SLACK = 8
# Long loops run a piece at a time, pending signals checked between pieces (Ctrl-C
# stops a call at once): this many bytes of input, or a quarter as many entries, a few
# milliseconds of work for a check that costs well under a microsecond.
DEF PIECE = 1 << 22
cdef Py_ssize_t piece_size = PIECE  # use_piece_size() changes it, for tests


cdef inline Py_ssize_t piece_entries() noexcept nogil:
    return piece_size // 4 if piece_size >= 4 else 1
cdef const char* RECORD_FORMAT = b"T{B:letter:B:side:B:state:B:terminal:B:derived:}"

# What formatting back needs, per code: the record, the token's bytes and length, its str.
cdef unsigned char record_of[1024][8]         # 0 beyond the valid codes
cdef unsigned char token_bytes[CODE_LIMIT][4]
cdef unsigned char token_length[CODE_LIMIT]
cdef PyObject* token_strs[CODE_LIMIT]
cdef PyObject* strs_by_key[RECORD_KEYS]     # token_strs by record key (_records.h)
# Each shape's token (state * 4 + terminal * 2 + derived) with the letter A of the
# first side, for the AVX2 kernel's formatting by shape (_formats.h).
cdef unsigned char shape_token[SHAPES][4]
cdef unsigned char shape_length[SHAPES]     # 0 for a shape no token has
cdef list kept_strs = []  # owns the references behind token_strs


cdef void build_format_tables() noexcept nogil:
    cdef int code
    memset(record_of, 0, sizeof(record_of))
    for code in range(CODE_LIMIT):
        token_length[code] = 0
        if code_is_valid(code):
            token_length[code] = format_token(code, <char*>token_bytes[code])
            code_record(code, record_of[code])


cdef void build_shape_tables() noexcept nogil:
    cdef unsigned char record[8]
    cdef int shape, code
    memset(shape_token, 0, sizeof(shape_token))
    memset(shape_length, 0, sizeof(shape_length))
    for shape in range(12):
        record[:5] = [65, 0, shape >> 2, (shape >> 1) & 1, shape & 1]
        code = record_code(record)
        memcpy(shape_token[shape], token_bytes[code], 4)
        shape_length[shape] = token_length[code]
    formats_init(shape_token, shape_length)


cdef void keep_token_strs():
    cdef int code
    memset(strs_by_key, 0, sizeof(strs_by_key))
    for code in range(CODE_LIMIT):
        token = format_code(code) if code_is_valid(code) else None
        kept_strs.append(token)
        token_strs[code] = <PyObject*>token
        if token is not None:
            strs_by_key[record_key(record_of[code])] = <PyObject*>token


cdef void check_record_sums() except *:
    """_records.h reads a record's length and key from its bytes, not from the core's
    tables: the module refuses to load if either ever disagrees with them (every valid
    code's length, and a distinct key for each, which join_short's tables rely on)."""
    cdef int code
    cdef unsigned key
    cdef unsigned char seen[RECORD_KEYS]
    memset(seen, 0, sizeof(seen))
    for code in range(CODE_LIMIT):
        if token_length[code]:
            key = record_key(record_of[code])
            if (key >= RECORD_KEYS or seen[key]
                    or records_length_portable(record_of[code], 1) != token_length[code]):
                raise ImportError(f"_records.h disagrees with the core at code {code}")
            seen[key] = 1


build_format_tables()
build_shape_tables()
check_record_sums()
keep_token_strs()  # after the check: every token's record key is then its own


cdef struct Mark:  # an entry marked invalid under errors="mark"
    Py_ssize_t index    # its index in the result
    Py_ssize_t start    # where the reader found its text: an item, a byte offset, ...
    Py_ssize_t length   # the text's length, in the reader's units
    int reason
    Py_ssize_t line     # byte buffers: the line its text starts on (0 elsewhere)


cdef struct MarkList:  # grown without the GIL
    Mark* items
    Py_ssize_t count
    Py_ssize_t room


cdef int mark_add(MarkList* lst, Py_ssize_t index, Py_ssize_t start, Py_ssize_t length,
                  int reason) noexcept nogil:
    cdef Mark* grown
    if lst.count == lst.room:
        # Through _memory.h (freed by mark_list_free): a column with many marks, parsed
        # again, takes the block the last one gave back, not fresh memory to fault in.
        grown = <Mark*>records_realloc(lst.items, (lst.room * 2 + 16) * sizeof(Mark))
        if grown == NULL:
            return -1
        lst.room = lst.room * 2 + 16
        lst.items = grown
    lst.items[lst.count] = Mark(index, start, length, reason, 0)
    lst.count += 1
    return 0


cdef void mark_list_free(MarkList* lst) noexcept nogil:
    records_free(lst.items)
    lst.items = NULL


cdef extern from "Python.h":
    object PyMemoryView_FromMemory(char* mem, Py_ssize_t size, int flags)
    int PyBUF_READ


cdef void set_mark_columns(TokenArray result, const Py_ssize_t* indices, Py_ssize_t n,
                           object rejected) except *:
    """set_marks from a column of indices (a reader that keeps them so, not in a
    MarkList): one copy into the result's array."""
    cdef object invalid = new_array("q")
    if sizeof(Py_ssize_t) == 8:
        invalid.frombytes(PyMemoryView_FromMemory(<char*>indices, 8 * n, PyBUF_READ))
    else:
        invalid.extend([indices[i] for i in range(n)])
    result._invalid = invalid
    result._rejected = rejected


@cython.final
cdef class TokenArray:
    """The result of ``parse_many``: one 5-byte record per token.

    ``len()``, indexing and iteration give the interned Pin / Epin objects (``None`` at
    an entry marked invalid); the records are a structured array with uint8 fields
    ``letter, side, state, terminal, derived`` (zero-copy with ``numpy.asarray``).
    ``tokens()``, ``to_bytes()`` and ``codes()`` format back.
    """

    cdef unsigned char* records
    cdef Py_ssize_t count
    cdef bint epin
    cdef object _invalid       # array('q') of the indices of entries marked invalid, or ()
    # for each: (token, reason number, byte offset, line): a list, or tokenize_many's
    # _marks.MarkedTexts (the same as columns)
    cdef object _rejected
    cdef object _labels        # the input's pandas Index, or None
    # tokenize_many's (offsets, row_offsets, missing rows, row labels), a selection's
    # (offsets, None, None, None, rows, texts) (see _marks), or None
    cdef object _layout
    cdef Py_ssize_t view_shape[1]
    cdef Py_ssize_t view_strides[1]

    def __cinit__(self):
        self.records = NULL
        self.count = 0
        self._invalid = ()
        self._rejected = []
        self._labels = None
        self._layout = None

    def __dealloc__(self):
        records_free(self.records)

    @property
    def notation(self):
        """``"PIN"`` or ``"EPIN"``."""
        return "EPIN" if self.epin else "PIN"

    @property
    def labels(self):
        """The pandas Index of the input the entries were read from (a Series' index,
        an Index itself), following the entries through selections; None otherwise."""
        return self._labels

    @property
    def offsets(self):
        """``tokenize_many``'s: each token's offset in its text (characters from 0), as
        array('q'), following the entries through selections and ``+``; None for other
        results."""
        return None if self._layout is None else self._layout[0]

    @property
    def row_offsets(self):
        """``tokenize_many``'s: the token range of each text, Arrow-style (array('q') of
        texts + 1 entries: text i's tokens are entries ``row_offsets[i]`` up to
        ``row_offsets[i + 1]``); None for other results.  A selection of one has no
        such grouping (ValueError): its ``rows`` and ``offsets`` say where each entry
        came from."""
        if self._layout is None:
            return None
        if len(self._layout) != 4:
            raise ValueError(_marks.NO_GROUPING.format("row_offsets"))
        return self._layout[1]

    @property
    def rows(self):
        """``tokenize_many``'s: each token's text (its row), as array('q'), following
        the entries through selections and ``+`` (a later part's rows numbered after
        the earlier parts' texts); None for other results."""
        if self._layout is None:
            return None
        if len(self._layout) != 4:
            return new_array("q", self._layout[4])
        # rows_of writes by them: a copy, checked, which no other thread can change
        ranges = ranges_copy(self._layout[1])
        check_ranges(ranges, self.count)
        return rows_of(ranges)

    @property
    def missing_rows(self):
        """``tokenize_many``'s: the rows whose text was missing (None, NaN, pandas.NA),
        as array('q'): they hold no token; None for other results, ValueError for a
        selection of one (it has no row grouping)."""
        if self._layout is None:
            return None
        if len(self._layout) != 4:
            raise ValueError(_marks.NO_GROUPING.format("missing_rows"))
        return self._layout[2]

    @property
    def invalid(self):
        """Indices of the entries marked invalid (``errors="mark"``), a new array('q')
        each time (changing it changes nothing else)."""
        return new_array("q", self._invalid)

    def errors(self):
        """A ParseError for each entry marked invalid, in index order: its ``token``
        (the text as read: str, bytes for bytes and numpy S input, the missing value
        itself), ``reason``, ``index`` (the entry; in tokenize_many's result the row,
        as under errors="raise", also its ``row``), for bytes input ``position`` (byte
        offset) and ``line``, and ``label`` where the input had a pandas index.  A
        sequence that makes each error when it is read (``list()`` makes them all)."""
        return _marks.ErrorList(notation_of(self.epin), self._invalid, self._rejected,
                                self._labels, self._layout)

    def valid_mask(self):
        """A numpy bool array, True at each valid entry (no Python object per entry)."""
        return _marks.valid_mask(self)

    def reason_codes(self):
        """A numpy uint8 array: 0 at a valid entry, else the number of its Reason."""
        return _marks.reason_codes(self.count, self._invalid, self._rejected)

    def __len__(self):
        return self.count

    cdef object entry(self, Py_ssize_t i):
        cdef int code = record_code(self.records + 5 * i)
        return None if code < 0 else table_object(code, self.epin)

    def __getitem__(self, index):
        """An entry (an int index), or a new TokenArray of the entries a slice, a
        boolean mask of the same length or an array of integers picks."""
        cdef Py_ssize_t i
        # An exact int first: no call on the common path.
        one = index if type(index) is int else _selection.scalar(index)
        if one is not None:
            i = one
            if i < 0:
                i += self.count
            if not 0 <= i < self.count:
                raise IndexError("TokenArray index out of range")
            return self.entry(i)
        if _selection.is_index_array(index):
            return self.gather(index)
        return self.take(_selection.positions(index, self.count))

    cdef TokenArray gather(self, object positions):
        """take() for a numpy array of integers, read through its buffer without a
        Python object per entry (negative positions count from the end)."""
        cdef Py_buffer view
        cdef TokenArray part
        cdef Py_ssize_t marked = 0, bad = -1, n
        cdef int64_t* index = NULL
        cdef int64_t* row = NULL
        cdef unsigned char* reasons = NULL
        cdef const int64_t* at_of = NULL
        cdef const unsigned char* reason_of = NULL
        cdef void* block = NULL
        by_row = index_column = row_column = None
        PyObject_GetBuffer(positions, &view, PyBUF_RECORDS_RO)
        try:
            kind = index_kind(view.format, view.itemsize)
            if kind == 0:
                raise TypeError(f"a TokenArray index array must be bool or integer, not "
                                f"{positions.dtype}")
            n = view.shape[0]
            part = new_token_array(n, self.epin)
            if len(self._invalid):
                # The picked marks' indices here and rows there (or, read by row, their
                # places in the source's columns and their reasons), as columns with
                # room for every entry (pages never written cost nothing; malloc's, not
                # the kept blocks, which would keep a gather's worth of them after it):
                # a result with half its entries marked, gathered (a categorical's
                # codes), makes no Python object per entry and grows no list
                if self.count <= n:  # a table of this result's size is no extra pass
                    by_row = _marks.by_row(self._rejected, self._invalid, self.count)
                if by_row is not None:
                    at_of = <const int64_t*>PyBytes_AS_STRING(by_row[1])
                    reason_of = <const unsigned char*>PyBytes_AS_STRING(by_row[2])
                if offsets_in_place():  # written into the result's arrays themselves
                    index_column, row_column = new_array("q"), new_array("q")
                    index = <int64_t*>pyarray_resize(index_column, n, 8)
                    row = <int64_t*>pyarray_resize(row_column, n, 8)
                    block = malloc(n + 1)
                    reasons = <unsigned char*>block
                else:
                    block = malloc(17 * n + 16)
                    index = <int64_t*>block
                    row = index + n
                    reasons = <unsigned char*>(row + n)
                if block == NULL:
                    raise MemoryError()
            with nogil:
                gather_records(self.records, self.count, <const char*>view.buf, n,
                               view.strides[0], kind, part.records, index, row, at_of,
                               reason_of, reasons, &marked, &bad)
            if bad >= 0:
                raise IndexError(f"TokenArray index {positions[bad]} out of range")
            if marked:
                part._invalid = fitted_column(index_column, index, marked, n)
                if by_row is not None:
                    part._rejected = _marks.taken(
                        by_row[0], fitted_column(row_column, row, marked, n),
                        PyBytes_FromStringAndSize(<const char*>reasons, marked))
                else:
                    part._rejected = _marks.picked(
                        self._rejected, self._invalid,
                        PyBytes_FromStringAndSize(<const char*>row, 8 * marked))
            part._labels = _marks.take_labels(self._labels, positions)
            if self._layout is not None:
                part._layout = _marks.take_layout(self._layout, positions)
            return part
        finally:
            free(block)
            PyBuffer_Release(&view)

    def valid(self):
        """A new TokenArray of the entries not marked invalid, in order (with their
        labels, rows and offsets; itself where none is marked)."""
        cdef TokenArray result
        cdef Py_ssize_t i, k = 0
        if not len(self._invalid):
            return self
        result = new_token_array(self.count - len(self._invalid), self.epin)
        for i in range(self.count):
            if self.records[5 * i]:
                memcpy(result.records + 5 * k, self.records + 5 * i, 5)
                k += 1
        result._labels = _marks.valid_labels(self._labels, self)
        if self._layout is not None:
            result._layout = _marks.valid_layout(self._layout, self)
        return result

    def __add__(self, other):
        """The entries of both, in order (same notation only).  Labels are joined as
        pandas' ``Index.append`` joins them, refused (ValueError) where one side has
        none or their depths differ; rows and offsets are kept, the other's rows
        numbered after this one's texts, refused (ValueError) between a tokenize_many
        result and a parse_many one (see the guide)."""
        if not isinstance(other, TokenArray):
            return NotImplemented
        if (<TokenArray>other).epin != self.epin:
            raise TypeError("a PIN TokenArray and an EPIN one do not concatenate")
        return concatenate([self, other], self.epin)

    cdef TokenArray take(self, object indices):
        cdef Py_ssize_t k = 0, i
        cdef TokenArray part = new_token_array(len(indices), self.epin)
        cdef dict rejected = self.rejected_by_index()
        marked = []
        for i in indices:
            memcpy(part.records + 5 * k, self.records + 5 * i, 5)
            if self.records[5 * i] == 0:
                marked.append(k)
                part._rejected.append(rejected[i])
            k += 1
        if marked:
            part._invalid = new_array("q", marked)
        part._labels = _marks.take_labels(self._labels, indices)
        if self._layout is not None:
            part._layout = _marks.take_layout(self._layout, indices)
        return part

    cdef dict rejected_by_index(self):
        return dict(zip(self._invalid, self._rejected)) if self._rejected else {}

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
        cdef Py_ssize_t uses[RECORD_KEYS]
        cdef unsigned key
        cdef PyObject** items
        cdef Py_ssize_t start = 0, stop
        self.first_marked()  # so every record is a token's, with a key in the table
        result = PyList_New(self.count)
        items = (<PyListObject*>result).ob_item
        memset(uses, 0, sizeof(uses))
        # Out of the collector's sight while it fills: from CPython 3.12 on a signal
        # check may run a collection, which would walk every entry of a list this long
        # while Ctrl-C waits.  Only this frame holds the list, and strs make no cycle.
        PyObject_GC_UnTrack(<PyObject*>result)
        # Each token's str by its record key (one load and a multiply, where its code
        # takes five byte loads).  The references are counted per key, then added once
        # per token str: a million increments of 624 refcounts spread over memory cost
        # more than the same increments in one small array.
        try:
            while start < self.count:
                stop = min(self.count, start + piece_entries())
                with nogil:
                    for i in range(start, stop):
                        key = record_key(self.records + 5 * i)
                        items[i] = strs_by_key[key]
                        uses[key] += 1
                start = stop
                if start < self.count:
                    PyErr_CheckSignals()
        except BaseException:
            # Interrupted: the list, about to be freed, is made to hold nothing, rather
            # than given references to drop again (one by one where threads run free:
            # as long as the work it stopped).  Its length 0, not its entries cleared:
            # the deallocator reads every entry up to the length, and those past the
            # ones written are pages never touched, each a fault of its own (2.4 GB,
            # half a second, for 300M tokens).
            Py_SET_SIZE(result, 0)
            raise
        for key in range(<unsigned>RECORD_KEYS):  # the list owns what it holds
            if uses[key]:
                add_references(strs_by_key[key], uses[key])
        PyObject_GC_Track(<PyObject*>result)  # the caller's list, like any other
        return result

    def to_bytes(self, sep=b"\n"):
        """The tokens joined by ``sep`` (bytes): what parse_many read, for single separators."""
        # Bytes, not a typed memoryview: Cython's memoryview support imports
        # collections.abc when the module loads, a third of the import time.
        cdef bytes sep_bytes = sep if type(sep) is bytes else bytes(memoryview(sep).cast("B"))
        cdef const unsigned char* separator = sep_bytes
        cdef Py_ssize_t sep_len = len(sep_bytes), total, done, start = 0, stop
        cdef char* out
        cdef unsigned char* at
        cdef unsigned char* end
        cdef const unsigned char* records
        cdef JoinTable own
        cdef const JoinTable* table = NULL
        self.first_marked()
        if self.count == 0:
            return b""
        # The exact length first, then one bytes object of that size, never resized:
        # the same size on every call lets the allocator hand back the memory the last
        # result freed, where room for the longest tokens, shrunk after, is a fresh
        # mapping each time (page faults cost more than the whole copy).
        with nogil:
            total = records_length(self.records, self.count) + sep_len * (self.count - 1)
        result = PyBytes_FromStringAndSize(NULL, total)
        out = PyBytes_AS_STRING(result)
        end = <unsigned char*>out + total
        at = <unsigned char*>out
        if sep_len == 1 and separator[0] in b"\n ":  # built once, at import
            table = &JOIN_NEWLINE if separator[0] == b"\n" else &JOIN_SPACE
        elif sep_len <= 4:
            fill_join_table(&own, separator, sep_len)  # a few microseconds
            table = &own
        # A piece of entries at a time, pending signals checked between (Ctrl-C stops a
        # long call); a piece's last token is written with its separator, as more follow.
        while True:
            stop = min(self.count, start + piece_entries())
            with nogil:
                records = self.records + 5 * start
                if table != NULL:
                    done = join_lanes(bytes_kernel_id, records, stop - start, &table.shapes,
                                      sep_len, &at, end)
                    at = <unsigned char*>join_short(records + 5 * done, stop - start - done,
                                                    table, separator, sep_len, <char*>at,
                                                    end - at, stop < self.count)
                else:
                    at = <unsigned char*>join_tokens(records, stop - start, separator,
                                                     sep_len, <char*>at, stop < self.count)
            if stop >= self.count:
                break
            start = stop
            PyErr_CheckSignals()
        return result

    def codes(self):
        """The codes as an array('h'); CODE_NONE (-1) at entries marked invalid."""
        cdef bytes data = PyBytes_FromStringAndSize(NULL, 2 * self.count)
        cdef int16_t* codes = <int16_t*>PyBytes_AS_STRING(data)  # new: no one else sees it
        cdef Py_ssize_t i, start = 0, stop
        cdef int code
        while True:  # a piece at a time, pending signals checked between
            stop = min(self.count, start + piece_entries())
            with nogil:
                for i in range(start, stop):
                    code = record_code(self.records + 5 * i)
                    codes[i] = CODE_NONE if code < 0 else code
            if stop >= self.count:
                return array_of_bytes("h", data)
            start = stop
            PyErr_CheckSignals()

    def sorted(self):
        """A new TokenArray of the same tokens in code order, which is FEEN's canonical
        hand order (a counting sort: O(n)); ValueError if any entry is marked invalid."""
        cdef Py_ssize_t i, start = 0
        cdef Py_ssize_t count[CODE_LIMIT]
        cdef int code
        cdef TokenArray result
        self.first_marked()
        result = new_token_array(self.count, self.epin)
        memset(count, 0, sizeof(count))
        with nogil:
            for i in range(self.count):
                count[record_code(self.records + 5 * i)] += 1
            for code in range(CODE_LIMIT):
                for i in range(start, start + count[code]):
                    memcpy(result.records + 5 * i, record_of[code], 8)
                start += count[code]
        if self._labels is not None or self._layout is not None:
            codes = self.codes()
            result._labels = _marks.sorted_labels(self._labels, codes)
            result._layout = _marks.sorted_layout(self._layout, codes)
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
        return (rebuild_token_array,
                (self.epin, bytes(self), self._rejected, self._labels, self._layout))

    # -- Arrow: the PyCapsule interface (see _export_c.pxi for the columns) -----------
    def __arrow_c_schema__(self):
        """The Arrow schema of the export, the same whatever the data: a struct of
        token, abbr, side, state, terminal, (derived for EPIN,) valid and reason (and
        for tokenize_many's results row and offset)."""
        return schema_capsule(shape_of(self, False))

    def __arrow_c_array__(self, requested_schema=None):
        """The entries as one Arrow struct array (invalid entries null): what
        ``pyarrow.array(result)`` and ``pyarrow.table(result)`` read.  A
        ``requested_schema`` is honoured where it is the export's or its plain form
        (``sashite_epin.schema``), refused (ValueError) otherwise; it needs pyarrow."""
        cdef int shape = shape_of(self, False)
        if requested_schema is not None:
            from sashite_epin import _requested  # pyarrow decodes the asked-for fields
            return _requested.requested_array(self, requested_schema)
        return schema_capsule(shape), array_capsule(self, shape)

    def __arrow_c_stream__(self, requested_schema=None):
        """The entries as an Arrow stream of one chunk: what ``polars.DataFrame``,
        DuckDB and pandas read; ``requested_schema`` as for ``__arrow_c_array__``."""
        if requested_schema is not None:
            from sashite_epin import _requested  # pyarrow decodes the asked-for fields
            return _requested.requested_stream(self, requested_schema)
        return stream_capsule(self, shape_of(self, False))

    def by_row(self):
        """``tokenize_many``'s result as one entry per input row (a ``TokenRows``):
        exported as a list of the row's tokens, null where the text was missing.  The
        whole result's only (and that of ``+`` of whole results): a selection of one
        has no row grouping (ValueError)."""
        from sashite_epin import _frames  # with the class it makes
        shape_of(self, True)  # only tokenize_many's results have rows
        return _frames.TokenRows(self, self._layout[3])

    def _frame_fields(self):
        """(fields, stride): seven byte columns of count entries, column k from k *
        stride in fields, what to_polars builds its columns from, in one pass over the
        records (numpy's passes, a strided copy of each field then arithmetic on each,
        were 2.4 ns an entry): the letter (0 where invalid), side and state (2 and 3
        where invalid: the words' tables' missing word), terminal, derived, valid and
        invalid (0 or 1 each).  The AVX2 and AVX-512 kernels write 16 entries a store
        (_formats.h); the scalar loop, a byte store per entry and column, is
        store-bound (2 ns an entry)."""
        cdef Py_ssize_t n = self.count, i, stride = n + 16
        cdef bytes out = PyBytes_FromStringAndSize(NULL, 7 * stride)
        cdef unsigned char* p = <unsigned char*>PyBytes_AS_STRING(out)  # new: ours alone
        cdef const unsigned char* records = self.records
        cdef const unsigned char* r
        cdef unsigned char blank
        with nogil:
            for i in range(frame_fields_lanes(bytes_kernel_id, records, n, p, stride), n):
                r = records + 5 * i
                blank = r[0] == 0
                p[i] = r[0]
                p[stride + i] = r[1] + 2 * blank  # a marked entry's record is 0
                p[2 * stride + i] = r[2] + 3 * blank
                p[3 * stride + i] = r[3]
                p[4 * stride + i] = r[4]
                p[5 * stride + i] = 1 - blank
                p[6 * stride + i] = blank
        return out, stride

    def _token_view_arrow(self):
        """The token column alone as Arrow utf8_view capsules (schema, array): what a
        polars String column is, taken by polars as it is."""
        return token_view_capsules(self)

    def _by_row_arrow(self, str what):
        """by_row()'s Arrow capsules: "schema", "array" (schema and array), "stream"."""
        cdef int shape = shape_of(self, True)
        if what == "schema":
            return schema_capsule(shape)
        if what == "array":
            return schema_capsule(shape), array_capsule(self, shape)
        return stream_capsule(self, shape)

    def to_arrow(self, *, token=True, prefix=""):
        """A pyarrow Table of the export's columns; needs pyarrow.  ``token=False``
        leaves out the token column (the input's text), ``prefix`` is put before every
        column's name."""
        if token is True and type(prefix) is str and not prefix:
            table = arrow_table(self)  # an engine's batch: no per-call Python beyond it
            if table is not None:
                return table
        from sashite_epin import _frames  # with the library it calls
        return _frames.named(_frames.to_arrow(self), token, prefix)

    def to_pandas(self, index=None, *, token=True, prefix=""):
        """A pandas DataFrame of the export's columns, with the same dtypes whatever the
        data (abbr, side, state and reason categorical, terminal and derived
        ``boolean``, valid ``bool``), on the input's index (``labels``): ``index=``
        gives another, ``index=False`` a RangeIndex.  ``token=False`` leaves out the
        token column (the input's text), ``prefix`` is put before every column's name.
        Needs pandas and pyarrow."""
        from sashite_epin import _frames  # with the library it calls
        return _frames.named(_frames.to_pandas(self, index, token), token, prefix)

    def to_polars(self, *, token=True, prefix=""):
        """A polars DataFrame of the same columns (side and state categorical); needs
        polars.  ``token=False`` leaves out the token column (the input's text),
        ``prefix`` is put before every column's name."""
        from sashite_epin import _frames  # with the library it calls
        # token=False: no token column made at all (not made, then dropped)
        return _frames.named(_frames.to_polars(self, False if token is False else None),
                             token, prefix)


cdef struct JoinTable:  # what to_bytes needs for one separator of at most 4 bytes
    unsigned char with_sep[RECORD_KEYS][8]  # each token then the separator, by record key
    unsigned char length[RECORD_KEYS]
    shape_texts shapes  # the same texts by shape, for the AVX2 kernel (_formats.h)


cdef void fill_join_table(JoinTable* table, const unsigned char* sep,
                          Py_ssize_t sep_len) noexcept nogil:
    cdef unsigned key
    cdef int code
    for code in range(CODE_LIMIT):
        if token_length[code]:
            key = record_key(record_of[code])
            memcpy(table.with_sep[key], token_bytes[code], 4)
            memcpy(table.with_sep[key] + token_length[code], sep, sep_len)
            table.length[key] = <unsigned char>(token_length[code] + sep_len)
    shapes_build(&table.shapes, shape_token, shape_length, sep, <int>sep_len)


# The separators parse_many reads, so that joining by them costs no table per call.
cdef JoinTable JOIN_NEWLINE, JOIN_SPACE
fill_join_table(&JOIN_NEWLINE, b"\n", 1)
fill_join_table(&JOIN_SPACE, b" ", 1)


cdef char* join_short(const unsigned char* records, Py_ssize_t count,
                      const JoinTable* table, const unsigned char* sep, Py_ssize_t sep_len,
                      char* out, Py_ssize_t size, bint trailing) noexcept nogil:
    """join_tokens for a separator of at most 4 bytes, into the size bytes from out
    (what follows the last token may be written over; its end is returned).  Each
    token and its separator are one 8-byte store from the separator's table, indexed
    by the record's key, so no copy depends on a length; the last tokens, whose 8 bytes
    would run past the end, are copied by length."""
    cdef Py_ssize_t i = 0
    cdef unsigned key
    cdef char* last = out + size - 8  # an 8-byte store at or before it stays inside
    while i < count and out <= last:
        key = record_key(records + 5 * i)
        memcpy(out, table.with_sep[key], 8)
        out += table.length[key]
        i += 1
    return join_tokens(records + 5 * i, count - i, sep, sep_len, out, trailing)


cdef char* join_tokens(const unsigned char* records, Py_ssize_t count,
                       const unsigned char* sep, Py_ssize_t sep_len, char* out,
                       bint trailing) noexcept nogil:
    """The tokens of count records with sep between them (and after the last, trailing:
    more follow), from out; returns their end."""
    cdef Py_ssize_t i
    cdef int code
    for i in range(count):
        code = record_code(records + 5 * i)
        if code < 0:
            # Never taken: only results with no marked entry are formatted.  Said for
            # gcc -O3, whose -Warray-bounds otherwise sees token_bytes[-1] here.
            continue
        memcpy(out, token_bytes[code], token_length[code])
        out += token_length[code]
        if i + 1 < count or trailing:
            if sep_len == 1:
                out[0] = sep[0]
            else:
                memcpy(out, sep, sep_len)
            out += sep_len
    return out


cdef int index_kind(const char* fmt, Py_ssize_t itemsize) noexcept:
    """+size for a signed integer format, -size for an unsigned one, 0 otherwise."""
    if fmt == NULL:
        return 0
    if fmt[0] in b"@=<" and fmt[1] != 0:  # native order only: a ">" array is refused
        fmt += 1
    if fmt[0] == 0 or fmt[1] != 0 or itemsize not in (1, 2, 4, 8):
        return 0
    if fmt[0] in b"bhilq":
        return <int>itemsize
    if fmt[0] in b"BHILQ":
        return -<int>itemsize
    return 0


ctypedef fused position_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    int64_t
    uint64_t


cdef object fitted_column(object column, int64_t* values, Py_ssize_t count,
                          Py_ssize_t room):
    """The array('q') of values[.. count]: column itself, where values were written
    into it (room for room items), its length set (its room given back where few
    were used); else a new one, copied."""
    if column is None:
        return int64_column(values, count)
    if count < room // 4:
        pyarray_resize(column, count, 8)
    pyarray_set_size(column, count)
    return column


cdef int gather_records(const unsigned char* records, Py_ssize_t count, const char* at,
                        Py_ssize_t n, Py_ssize_t stride, int kind, unsigned char* out,
                        int64_t* index, int64_t* row, const int64_t* at_of,
                        const unsigned char* reason_of, unsigned char* reasons,
                        Py_ssize_t* marked, Py_ssize_t* bad) noexcept nogil:
    """out[k] = records[positions[k]]; the first position out of range in bad, the
    entries copied from a marked one in index[.. marked[0]] (k) and row (the position,
    or at_of[position] where at_of is given, with reasons[..] = reason_of[position]);
    room for n in each.  kind (index_kind's) picks one loop per integer type, so no
    test of it runs per entry."""
    if kind == 1:
        return gather_typed(records, count, <const int8_t*>at, n, stride, out, index, row,
                            at_of, reason_of, reasons, marked, bad)
    if kind == -1:
        return gather_typed(records, count, <const uint8_t*>at, n, stride, out, index, row,
                            at_of, reason_of, reasons, marked, bad)
    if kind == 2:
        return gather_typed(records, count, <const int16_t*>at, n, stride, out, index, row,
                            at_of, reason_of, reasons, marked, bad)
    if kind == -2:
        return gather_typed(records, count, <const uint16_t*>at, n, stride, out, index, row,
                            at_of, reason_of, reasons, marked, bad)
    if kind == 4:
        return gather_typed(records, count, <const int32_t*>at, n, stride, out, index, row,
                            at_of, reason_of, reasons, marked, bad)
    if kind == -4:
        return gather_typed(records, count, <const uint32_t*>at, n, stride, out, index, row,
                            at_of, reason_of, reasons, marked, bad)
    if kind == 8:
        return gather_typed(records, count, <const int64_t*>at, n, stride, out, index, row,
                            at_of, reason_of, reasons, marked, bad)
    return gather_typed(records, count, <const uint64_t*>at, n, stride, out, index, row,
                        at_of, reason_of, reasons, marked, bad)


cdef inline int64_t read_position(const position_t* at, Py_ssize_t count) noexcept nogil:
    """The position at ``at``, counted from the end where negative; count where it is
    out of range."""
    cdef int64_t i
    cdef uint64_t u
    if position_t is uint64_t:
        # Above 2**63 it would read negative and count from the end: out of range.
        u = at[0]
        i = <int64_t>u if u < <uint64_t>count else count
    else:
        i = <int64_t>at[0]
        # counted from the end where negative, by a mask: a pandas category Series
        # half missing (code -1) made a test mispredict every other entry
        i += count & (i >> 63)
    return i if <uint64_t>i < <uint64_t>count else count


cdef int gather_typed(const unsigned char* records, Py_ssize_t count,
                      const position_t* positions, Py_ssize_t n, Py_ssize_t stride,
                      unsigned char* out, int64_t* index, int64_t* row,
                      const int64_t* at_of, const unsigned char* reason_of,
                      unsigned char* reasons, Py_ssize_t* marked,
                      Py_ssize_t* bad) noexcept nogil:
    """gather_records for one integer type; stride in bytes, as the buffer gives it.

    A piece at a time, by how often the last piece's entries were marked: rarely, a
    test per entry (a branch always taken the same way); often, each entry's mark
    written whether or not it is one and kept by counting it (half marked at random
    would mispredict every other test).  The counted writes cost a clean gather 0.6 ns
    an entry, the mispredicted tests a marked one more."""
    cdef Py_ssize_t k = 0, j, end, m = 0, before
    cdef int64_t i
    cdef bint often = False
    cdef const char* at = <const char*>positions
    while k < n:
        end = min(k + 1024, n)
        before = m
        if not often or index == NULL:
            for j in range(k, end):
                i = read_position(<const position_t*>(at + j * stride), count)
                if i == count:
                    bad[0] = j
                    return 0
                memcpy(out + 5 * j, records + 5 * i, 8)  # both have SLACK after the end
                if records[5 * i] == 0 and index != NULL:
                    index[m] = j
                    if at_of != NULL:
                        row[m], reasons[m] = at_of[i], reason_of[i]
                    else:
                        row[m] = i
                    m += 1
        elif at_of != NULL:
            for j in range(k, end):
                i = read_position(<const position_t*>(at + j * stride), count)
                if i == count:
                    bad[0] = j
                    return 0
                memcpy(out + 5 * j, records + 5 * i, 8)
                index[m] = j
                row[m] = at_of[i]
                reasons[m] = reason_of[i]
                m += records[5 * i] == 0
        else:
            for j in range(k, end):
                i = read_position(<const position_t*>(at + j * stride), count)
                if i == count:
                    bad[0] = j
                    return 0
                memcpy(out + 5 * j, records + 5 * i, 8)
                index[m] = j
                row[m] = i
                m += records[5 * i] == 0
        often = (m - before) * 16 > end - k
        k = end
        marked[0] = m
    return 0


cdef TokenArray new_token_array(Py_ssize_t count, bint epin):
    cdef TokenArray result = TokenArray.__new__(TokenArray)
    result.records = <unsigned char*>records_alloc(5 * count + SLACK)
    if result.records == NULL:
        raise MemoryError()
    result.count = count
    result.epin = epin
    return result


def rebuild_token_array(bint epin, bytes records, rejected=(), labels=None, layout=None):
    """Unpickling: records are checked, never trusted; rejected holds one
    (token, reason, byte offset, line) per zero record."""
    cdef Py_ssize_t count = len(records) // 5, i
    cdef TokenArray result
    cdef const unsigned char* r = records
    if len(records) % 5:
        raise ValueError("records must be a multiple of 5 bytes")
    result = new_token_array(count, epin)
    marked = []
    for i in range(count):
        code = record_code(r + 5 * i)
        if code < 0 and r[5 * i + 1 : 5 * i + 5] == b"\0\0\0\0":
            marked.append(i)
        elif not (code_is_valid(code) and (epin or not code & 1)
                  and memcmp5(record_of[code], r + 5 * i)):
            raise ValueError(f"record {i} is not a valid {'EPIN' if epin else 'PIN'} record")
    memcpy(result.records, r, 5 * count)
    if marked:
        result._invalid = new_array("q", marked)
    result._rejected = checked_rejected(rejected, len(marked))
    set_labels(result, labels)
    result._layout = _marks.checked_layout(layout, count)
    return result


cdef list checked_rejected(object rejected, Py_ssize_t count):
    rejected = list(rejected)
    if not rejected:
        return [(None, R_MISSING, None, None)] * count
    if len(rejected) != count or not all(
            isinstance(r, tuple) and len(r) == 4 and type(r[1]) is int
            and 1 <= r[1] <= R_MISSING for r in rejected):
        raise ValueError("rejected entries do not match the marked records")
    return rejected


cdef inline bint memcmp5(const unsigned char* a, const unsigned char* b) noexcept nogil:
    return a[0] == b[0] and a[1] == b[1] and a[2] == b[2] and a[3] == b[3] and a[4] == b[4]


cdef TokenArray concatenate(list parts, bint epin):
    """One TokenArray of the parts' entries in order (their marks shifted with them,
    kept as columns where the parts' are: an iterable read a chunk at a time, half of
    it marked, makes no object per mark here)."""
    cdef Py_ssize_t total = 0, at = 0, marks = 0, n, i, k = 0
    cdef TokenArray part, result
    cdef bytes data
    cdef int64_t* indices = NULL
    cdef const int64_t* shifted
    for part in parts:
        total += part.count
        marks += len(part._invalid)
    result = new_token_array(total, epin)
    if marks:
        data = PyBytes_FromStringAndSize(NULL, 8 * marks)
        indices = <int64_t*>PyBytes_AS_STRING(data)  # new: ours alone
    rejected = []
    for part in parts:
        memcpy(result.records + 5 * at, part.records, 5 * part.count)
        n = len(part._invalid)
        if n:
            invalid = part._invalid
            if type(invalid) is not array_type:  # an array('q') where the core made it
                invalid = new_array("q", invalid)
            shifted = <const int64_t*>array_address(invalid)
            for i in range(n):
                indices[k + i] = shifted[i] + at
            k += n
            rejected.append(part._rejected)
        at += part.count
    if marks:
        result._invalid = array_of_bytes("q", data)
        result._rejected = _marks.joined(rejected)
    result._labels = _marks.joined_labels([part._labels for part in parts])
    layouts = [part._layout for part in parts]
    if layouts.count(None) != len(layouts):
        result._layout = _marks.joined_layout(layouts)
    return result


def set_labels(TokenArray result, labels, row_labels=None):
    """Give a result made just now the pandas Index its input had (parse_many's
    facade, before anyone else sees the result); for tokenize_many's, labels per
    token and row_labels, the input's own, per row."""
    if labels is not None and len(labels) != result.count:
        raise ValueError(f"{len(labels)} labels for {result.count} entries")
    if row_labels is not None:
        if (result._layout is None or len(result._layout) != 4
                or len(row_labels) != len(result._layout[1]) - 1):
            raise ValueError("row labels need a tokenize_many result with as many rows")
        result._layout = (*result._layout[:3], row_labels)
    result._labels = labels
    return result


def from_codes(codes, bint epin):
    """A TokenArray of the tokens whose codes these are (what ``codes()`` gives: an
    array('h'), a numpy integer array, any iterable of ints).  CODE_NONE (-1), the
    code ``codes()`` gives an entry marked invalid, marks the entry invalid again (its
    text is not in a code: the reason is "missing value"), and so does 0xFFFF, what
    ``codes()`` gave before (array('H')); any other value that is no code of the
    notation is a ValueError."""
    cdef Py_buffer view
    cdef int kind = 0
    if PyObject_CheckBuffer(codes):  # an integer array: read in place, a piece at a time
        PyObject_GetBuffer(codes, &view, PyBUF_RECORDS_RO)
        try:
            if view.ndim == 1:
                kind = index_kind(view.format, view.itemsize)
            if kind != 0:
                return codes_from_buffer(codes, &view, kind, epin)
        finally:
            PyBuffer_Release(&view)
    values = codes.tolist() if hasattr(codes, "tolist") else list(codes)
    cdef Py_ssize_t i, count = len(values)
    cdef TokenArray result = new_token_array(count, epin)
    cdef object value
    marked = []
    for i in range(count):
        if i and i % piece_entries() == 0:
            PyErr_CheckSignals()  # Ctrl-C stops a long list
        value = values[i]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"code {i} is {type(value).__name__}, not int")
        if value == CODE_NONE or value == 0xFFFF:
            memset(result.records + 5 * i, 0, 5)
            marked.append(i)
        elif not (0 <= value < CODE_LIMIT and code_is_valid(value) and (epin or not value & 1)):
            raise ValueError(f"code {i}, {value}, is no {notation_of(epin)} token's code")
        else:
            memcpy(result.records + 5 * i, record_of[<int>value], 5)
    if marked:
        result._invalid = new_array("q", marked)
        result._rejected = [(None, R_MISSING, None, None)] * len(marked)
    return result


cdef TokenArray codes_from_buffer(object codes, Py_buffer* view, int kind, bint epin):
    """from_codes for a 1-dimensional integer buffer (kind: index_kind's), without a
    Python object per entry; pending signals checked between pieces."""
    cdef Py_ssize_t count = view.shape[0], start = 0, stop, bad = -1
    cdef TokenArray result = new_token_array(count, epin)
    cdef MarkList marked = MarkList(NULL, 0, 0)
    cdef int status = 0
    try:
        while start < count:
            stop = min(count, start + piece_entries())
            with nogil:
                status = codes_records(<const char*>view.buf, start, stop, view.strides[0],
                                       kind, epin, result.records, &marked, &bad)
            if status < 0:
                raise MemoryError()
            if bad >= 0:
                raise ValueError(f"code {bad}, {int(codes[bad])}, is no "
                                 f"{notation_of(epin)} token's code")
            start = stop
            if start < count:
                PyErr_CheckSignals()
        if marked.count:
            result._invalid = new_array("q", [m.index for m in marked.items[:marked.count]])
            result._rejected = [(None, R_MISSING, None, None)] * marked.count
        return result
    finally:
        mark_list_free(&marked)


cdef int codes_records(const char* base, Py_ssize_t start, Py_ssize_t stop,
                       Py_ssize_t stride, int kind, bint epin, unsigned char* out,
                       MarkList* marked, Py_ssize_t* bad) noexcept nogil:
    """codes_typed for the integer type kind (index_kind's)."""
    if kind == 1:
        return codes_typed(<const int8_t*>base, start, stop, stride, epin, out, marked, bad)
    if kind == -1:
        return codes_typed(<const uint8_t*>base, start, stop, stride, epin, out, marked, bad)
    if kind == 2:
        return codes_typed(<const int16_t*>base, start, stop, stride, epin, out, marked, bad)
    if kind == -2:
        return codes_typed(<const uint16_t*>base, start, stop, stride, epin, out, marked, bad)
    if kind == 4:
        return codes_typed(<const int32_t*>base, start, stop, stride, epin, out, marked, bad)
    if kind == -4:
        return codes_typed(<const uint32_t*>base, start, stop, stride, epin, out, marked, bad)
    if kind == 8:
        return codes_typed(<const int64_t*>base, start, stop, stride, epin, out, marked, bad)
    return codes_typed(<const uint64_t*>base, start, stop, stride, epin, out, marked, bad)


cdef int codes_typed(const position_t* values, Py_ssize_t start, Py_ssize_t stop,
                     Py_ssize_t stride, bint epin, unsigned char* out, MarkList* marked,
                     Py_ssize_t* bad) noexcept nogil:
    """The records of entries start .. stop - 1 (stride bytes apart from values); the
    first entry that is no code of the notation in bad; -1 when out of memory."""
    cdef Py_ssize_t i
    cdef int64_t code
    cdef uint64_t u
    cdef const char* at = <const char*>values + start * stride
    for i in range(start, stop):
        if position_t is uint64_t:
            u = (<const uint64_t*>at)[0]
            code = <int64_t>u if u <= 0xFFFF else -2  # above: no code (nor CODE_NONE)
        else:
            code = <int64_t>(<const position_t*>at)[0]
        at += stride
        if code == CODE_NONE or code == 0xFFFF:
            memset(out + 5 * i, 0, 5)
            if mark_add(marked, i, i, 0, R_MISSING) < 0:
                return -1
        elif 0 <= code < CODE_LIMIT and code_is_valid(<int>code) and (epin or not code & 1):
            memcpy(out + 5 * i, record_of[<int>code], 8)  # 3 bytes of slack after the end
        else:
            bad[0] = i
            return 0
    return 0


def release_memory():
    """Hand back to the system the blocks kept from freed results for the next big one
    and return the bytes they held.  The compiled core keeps the last freed blocks of
    1 MiB or more, four at most and 128 MiB in all, so that a loop of big calls does not
    fault in fresh memory each time; after this the next big result maps fresh memory.
    On glibc the compiled core also has malloc trim its free heap pages
    (``malloc_trim``).  The pure-Python twin keeps none, and returns 0."""
    cdef size_t released
    with nogil:  # malloc_trim walks the heap
        released = release_spares()
    return released


def memory_held():
    """The bytes of the blocks kept from freed results for the next big one (what
    ``release_memory()`` would hand back): at most 128 MiB (and for a moment a block
    another thread is handing in), 0 after ``release_memory()``.  The pure-Python twin
    keeps none, and returns 0."""
    return spares_held()
