# tokenize_many's input, a text a row: a list or tuple of str, or an Arrow string column
# read in place (its bytes copied into the scan's pieces, no Python object per row).
# Part of the compiled core (included by _core_c.pyx, after _arrow_c.pxi); the twin
# reads an Arrow column into a list of str first (_text_py.py).

from cpython.unicode cimport PyUnicode_DecodeUTF8

cdef enum:
    TEXT_BYTES = 0    # ASCII bytes, copied into a piece as they are
    TEXT_MISSING = 1  # None, NaN, pandas.NA, an Arrow null: a row without tokens
    TEXT_OTHER = 2    # any other text: other_text() gives it as a str, read alone
    TEXT_STOP = 3     # a row that cannot be read: stop() raises why


@cython.internal  # not a name of the module
cdef class RowTexts:
    """The rows' texts (tokenize_rows asks for the length of all first, then the rows
    in order, going back to the row after a refused one).  A row that cannot be read
    is TEXT_STOP, not an exception: the rows before it are judged first."""
    cdef Py_ssize_t rows
    # other_text()'s row when it is not UTF-8 (it gave None): its bytes, and where the
    # first sequence that is not UTF-8 starts (as Python's decoder names it)
    cdef const unsigned char* not_text
    cdef Py_ssize_t not_text_at

    cdef Py_ssize_t length(self) except -1:
        """The texts' characters in all, or more: room for their tokens."""
        return 0

    cdef int text(self, Py_ssize_t i, const unsigned char** p, Py_ssize_t* n) noexcept:
        """Row i: TEXT_BYTES (p[0 .. n - 1]), TEXT_MISSING, TEXT_OTHER or TEXT_STOP."""
        return TEXT_MISSING

    cdef str other_text(self, Py_ssize_t i):
        """A TEXT_OTHER row as a str (the row text() read last, as it read it); None for
        bytes that are not UTF-8 (not_text and not_text_at set)."""
        return None

    cdef object row_holder(self, Py_ssize_t i):
        """What keeps row i's bytes (as text() gave them) where they are while Python
        code runs (a signal handler may empty the list): None where the caller's hold
        on the column does."""
        return None

    cdef int stop(self, Py_ssize_t i) except -1:
        """Raises why row i (TEXT_STOP, the row text() read last) cannot be read."""
        return 0

    cdef int check(self) except -1:
        """Between pieces, after pending signals ran their handlers."""
        return 0


@cython.internal
@cython.final
cdef class ListTexts(RowTexts):
    """The items of a list or tuple, which the caller holds under its lock."""
    cdef const char* base  # the PyObject pointers
    cdef object owner

    cdef Py_ssize_t length(self) except -1:
        cdef Py_ssize_t i, total = 0
        cdef PyObject* item
        for i in range(self.rows):
            item = (<PyObject**>self.base)[i]
            if isinstance(<object>item, str):
                total += PyUnicode_GET_LENGTH(<str>item)
        return total

    cdef int text(self, Py_ssize_t i, const unsigned char** p, Py_ssize_t* n) noexcept:
        cdef PyObject* item = (<PyObject**>self.base)[i]
        if isinstance(<object>item, str):
            if not str_is_compact_ascii(item):
                return TEXT_OTHER
            p[0] = <const unsigned char*>str_data(item)
            n[0] = PyUnicode_GET_LENGTH(<str>item)
            return TEXT_BYTES
        return TEXT_MISSING if is_missing(item) else TEXT_STOP

    cdef str other_text(self, Py_ssize_t i):
        cdef object item = <object>(<PyObject**>self.base)[i]
        if type(item) is str:
            return <str>item
        # A subclass: its characters, as an exact str (its methods are never asked)
        return PyUnicode_Substring(item, 0, PyUnicode_GET_LENGTH(item))

    cdef object row_holder(self, Py_ssize_t i):
        return <object>(<PyObject**>self.base)[i]

    cdef int stop(self, Py_ssize_t i) except -1:
        raise TypeError(f"item {i} is {type(<object>(<PyObject**>self.base)[i]).__name__}, "
                        f"not str")

    cdef int check(self) except -1:
        # a handler may have run Python code
        if (PySequence_Fast_GET_SIZE(self.owner) != self.rows
                or <const char*>PySequence_Fast_ITEMS(self.owner) != self.base):
            raise RuntimeError("the list changed while tokenize_many read it")
        return 0


cdef ListTexts list_texts(object texts):
    cdef ListTexts source = ListTexts.__new__(ListTexts)
    source.base = <const char*>PySequence_Fast_ITEMS(texts)
    source.rows = PySequence_Fast_GET_SIZE(texts)  # the items', not a subclass's __len__
    source.owner = texts
    return source


cdef inline bint all_ascii(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    cdef uint64_t word, seen = 0
    cdef Py_ssize_t i = 0
    while i + 8 <= n:
        memcpy(&word, p + i, 8)
        seen |= word
        i += 8
    while i < n:
        seen |= p[i]
        i += 1
    return not (seen & <uint64_t>0x8080808080808080)


DEF UTF8_WINDOW = 1 << 16


cdef Py_ssize_t first_not_utf8(const unsigned char* p, Py_ssize_t n) except -2:
    """-1 when p[0 .. n - 1] is UTF-8, else where its first sequence that is not starts,
    as Python's decoder names it: decoded a window at a time (a failure's error holds a
    copy of what was decoded, not of the whole row), each window cut before a byte that
    continues no sequence, so that no sequence is split."""
    cdef Py_ssize_t start = 0, end
    while start < n:
        end = min(n, start + UTF8_WINDOW)
        while end < n and (p[end] & 0xC0) == 0x80:
            end += 1
        try:
            PyUnicode_DecodeUTF8(<const char*>p + start, end - start, NULL)
        except UnicodeDecodeError as error:
            return start + error.start
        start = end
        if start & ((UTF8_WINDOW << 6) - 1) < UTF8_WINDOW:  # Ctrl-C, every 4 MiB or so
            PyErr_CheckSignals()
    return -1


@cython.internal
@cython.final
cdef class ArrowTexts(RowTexts):
    """The rows of an Arrow string column (utf8, large_utf8, string_view, each plain,
    dictionary-encoded or a one-column table's), its chunks checked (check_chunk) and
    held by the caller.  What the rows need is checked as they are read, in the twin's
    order (_arrow_py.arrow_texts): a chunk's buffers and its whole dictionary when the
    first row of the chunk is read, then each row's bytes (entry_text)."""
    cdef ArrowArray** chunks
    cdef Py_ssize_t count          # chunks
    cdef ColumnType t
    cdef Py_ssize_t chunk          # the chunk of the last row asked
    cdef int64_t chunk_first       # its first row
    cdef int opened                # S_OK, or why the chunk cannot be read
    cdef Reader reader             # its strings (its dictionary, for dictionary columns)
    cdef const ArrowArray* values  # its array of strings or indexes
    cdef const ArrowArray* table   # its table row (one-column tables), else NULL
    cdef ArrowArray child          # a table's child, moved to the table's offset
    cdef int64_t dictionary_size
    # What text() read of its row, kept for other_text() and stop(): read again, the
    # row may have been rewritten meanwhile (another thread, a shared buffer)
    cdef const unsigned char* read_bytes
    cdef int64_t read_length
    cdef int read_kind
    # The last dictionary checked whole: chunks that share one (unify_dictionaries, a
    # categorical's) have it checked once, not once a chunk.  Every chunk is held for
    # the call, so buffers at the same addresses are the same buffers.
    cdef const void* checked[4]
    cdef int64_t checked_offset, checked_length, checked_buffers

    cdef void open_chunk(self, Py_ssize_t c) noexcept:
        cdef const ArrowArray* a = self.chunks[c]
        cdef const unsigned char* p
        cdef int64_t j, n
        self.chunk = c
        self.table = NULL
        self.values = a
        self.opened = S_OK
        if self.t.in_struct:  # as scan_chunk reads it
            if a.n_children != 1 or a.children == NULL or a.children[0] == NULL:
                self.opened = S_BUFFERS
                return
            self.child = a.children[0][0]
            if self.child.length < a.offset + a.length:
                self.opened = S_BUFFERS
                return
            self.child.offset += a.offset
            self.child.length = a.length
            self.table, self.values = a, &self.child
        if not self.t.index_size:
            self.opened = open_reader(&self.reader, self.values, self.t.layout)
            return
        if (self.values.dictionary == NULL
                or (self.values.length and self.values.buffers[1] == NULL)):
            self.opened = S_BUFFERS
            return
        self.dictionary_size = self.values.dictionary.length
        self.opened = open_reader(&self.reader, self.values.dictionary, self.t.layout)
        if self.opened != S_OK or self.was_checked(self.values.dictionary):
            return
        # the dictionary's entries, all checked first (as parse_many scans them)
        j = 0
        while self.opened == S_OK and self.t.layout != A_NULL and j < self.dictionary_size:
            if not is_null(self.reader.values, j):
                self.opened = entry_text(&self.reader, j, &p, &n)
            j += 1
        if self.opened == S_OK:
            self.remember_checked(self.values.dictionary)

    cdef bint was_checked(self, const ArrowArray* d) noexcept:
        cdef int64_t b
        if (d.n_buffers != self.checked_buffers or d.offset != self.checked_offset
                or d.length != self.checked_length or d.buffers == NULL):
            return False
        for b in range(d.n_buffers):
            if d.buffers[b] != self.checked[b]:
                return False
        return True

    cdef void remember_checked(self, const ArrowArray* d) noexcept:
        cdef int64_t b
        self.checked_buffers = 0  # none remembered (more buffers than kept)
        if d.n_buffers > 4 or d.buffers == NULL:
            return
        for b in range(d.n_buffers):
            self.checked[b] = d.buffers[b]
        self.checked_offset, self.checked_length = d.offset, d.length
        self.checked_buffers = d.n_buffers

    cdef int row_bytes(self, Py_ssize_t i, const unsigned char** p, int64_t* n) noexcept:
        """Row i's bytes (TEXT_BYTES), TEXT_MISSING, or a status S_* (< 0)."""
        cdef int64_t j, index
        if i < self.chunk_first:  # back to rows read before (after a refused row)
            self.chunk_first = 0
            self.open_chunk(0)
        # A chunk that cannot be read stops the reading there, even an empty one (its
        # dictionary is read whole first): the rows after it are never reached.
        while self.opened == S_OK and i - self.chunk_first >= self.chunks[self.chunk].length:
            self.chunk_first += self.chunks[self.chunk].length
            self.open_chunk(self.chunk + 1)
        if self.opened != S_OK:
            return self.opened
        j = i - self.chunk_first
        if self.table != NULL and is_null(self.table, j):
            return TEXT_MISSING
        if self.t.index_size:
            if is_null(self.values, j):
                return TEXT_MISSING
            index = dictionary_index(self.values, j, self.t.index_size, self.t.index_signed)
            if index < 0 or index >= self.dictionary_size:
                return S_INDEX
            j = index
        if self.t.layout == A_NULL or is_null(self.reader.values, j):
            return TEXT_MISSING
        index = entry_text(&self.reader, j, p, n)
        return TEXT_BYTES if index == S_OK else <int>index

    cdef Py_ssize_t length(self) except -1:
        # The bytes of every row up to one that cannot be read (at least the rows'
        # characters): reading that one in order raises.
        cdef int64_t total = 0, n
        cdef const unsigned char* p
        cdef Py_ssize_t i
        cdef int kind
        for i in range(self.rows):
            kind = self.row_bytes(i, &p, &n)
            if kind < 0:
                break
            if kind == TEXT_BYTES:
                total += n
        self.chunk_first = 0
        if self.count:
            self.open_chunk(0)
        return total

    cdef int text(self, Py_ssize_t i, const unsigned char** p, Py_ssize_t* n) noexcept:
        cdef int64_t length = 0
        cdef int kind = self.row_bytes(i, p, &length)
        self.read_kind = kind
        if kind == TEXT_BYTES:
            self.read_bytes, self.read_length = p[0], length
        if kind != TEXT_BYTES:
            return TEXT_STOP if kind < 0 else kind
        n[0] = <Py_ssize_t>length
        return TEXT_BYTES if all_ascii(p[0], n[0]) else TEXT_OTHER

    cdef str other_text(self, Py_ssize_t i):
        cdef Py_ssize_t bad = first_not_utf8(self.read_bytes, self.read_length)
        if bad >= 0:
            self.not_text, self.not_text_at = self.read_bytes, bad
            return None
        return PyUnicode_DecodeUTF8(<const char*>self.read_bytes, self.read_length, NULL)

    cdef int stop(self, Py_ssize_t i) except -1:
        raise ValueError(MALFORMED[self.read_kind])


@cython.internal
@cython.final
cdef class ArrowChunks:
    """An Arrow column's chunks, for ArrowTexts: one array, held by its capsule; or a
    stream's, each moved here and released with this object."""
    cdef ArrowArray** pointers
    cdef ArrowArray* owned         # the stream's chunks, moved
    cdef Py_ssize_t count, room
    cdef object capsules
    cdef ColumnType t

    def __dealloc__(self):
        cdef Py_ssize_t c
        if self.owned != NULL:
            for c in range(self.count):
                release_array(&self.owned[c])
        free(self.owned)
        free(self.pointers)

    cdef int add(self, ArrowArray* chunk, bint move) except -1:
        cdef void* more
        cdef Py_ssize_t room, c
        if self.count == self.room:
            room = 2 * self.room + 8
            more = realloc(self.pointers, sizeof(ArrowArray*) * room)
            if more == NULL:
                raise MemoryError()
            self.pointers = <ArrowArray**>more
            if move:
                more = realloc(self.owned, sizeof(ArrowArray) * room)
                if more == NULL:
                    raise MemoryError()
                self.owned = <ArrowArray*>more
                # The moved chunks may have moved with their block: point at them anew
                # (pointers into the old block would be read after it was freed).
                for c in range(self.count):
                    self.pointers[c] = &self.owned[c]
            self.room = room
        if move:  # the struct moved here (the spec's move: copied, the source released)
            self.owned[self.count] = chunk[0]
            chunk.release = NULL
            self.pointers[self.count] = &self.owned[self.count]
        else:
            self.pointers[self.count] = chunk
        self.count += 1
        return 0


cdef ArrowChunks arrow_column(object exporter):
    """The chunks of an Arrow column (an object with __arrow_c_array__ or
    __arrow_c_stream__), each checked as parse_many checks it; TypeError for a binary
    column (its entries are bytes, not texts) or any other type than strings."""
    cdef ArrowChunks column = ArrowChunks.__new__(ArrowChunks)
    cdef ArrowSchema* schema
    cdef ArrowArray* array
    cdef ArrowArrayStream* stream
    cdef ArrowSchema stream_schema_
    cdef ArrowArray chunk
    cdef int64_t rows = 0
    if hasattr(type(exporter), "__arrow_c_array__"):
        schema_capsule, array_capsule = exporter.__arrow_c_array__()
        column.capsules = (schema_capsule, array_capsule)
        schema = <ArrowSchema*>PyCapsule_GetPointer(schema_capsule, "arrow_schema")
        array = <ArrowArray*>PyCapsule_GetPointer(array_capsule, "arrow_array")
        column.t = texts_type(schema)
        if array.release == NULL:
            raise ValueError(_inputs.arrow_lie("array", "released (release is NULL)"))
        check_chunk(array, column.t)
        _inputs.check_fits(array.length, 8)  # a row's range: 8 bytes
        column.add(array, False)
        return column
    capsule = exporter.__arrow_c_stream__()
    column.capsules = capsule
    stream = <ArrowArrayStream*>PyCapsule_GetPointer(capsule, "arrow_array_stream")
    if stream.release == NULL:
        raise ValueError(_inputs.arrow_lie("stream", "released (release is NULL)"))
    missing = ("get_schema" if stream.get_schema == NULL else
               "get_next" if stream.get_next == NULL else
               "get_last_error" if stream.get_last_error == NULL else None)
    if missing is not None:
        raise ValueError(_inputs.arrow_lie("stream", f"{missing} is NULL"))
    memset(&stream_schema_, 0, sizeof(stream_schema_))
    memset(&chunk, 0, sizeof(chunk))
    try:
        if stream_schema(stream, &stream_schema_) != 0:
            raise_stream_error(stream)
        column.t = texts_type(&stream_schema_)
        while True:
            if stream_next(stream, &chunk) != 0:
                raise_stream_error(stream)
            if chunk.release == NULL:  # the end of the stream
                return column
            check_chunk(&chunk, column.t)
            rows += chunk.length
            _inputs.check_fits(rows, 8)
            column.add(&chunk, True)
    finally:
        release_array(&chunk)
        release_schema(&stream_schema_)


cdef ColumnType texts_type(ArrowSchema* schema) except *:
    cdef ColumnType t = column_type(schema, "tokenize_many")
    if t.binary:
        raise TypeError("tokenize_many reads texts (str): this Arrow column is binary")
    return t


cdef ArrowTexts arrow_texts(ArrowChunks column):
    cdef ArrowTexts source = ArrowTexts.__new__(ArrowTexts)
    cdef Py_ssize_t c
    source.chunks, source.count, source.t = column.pointers, column.count, column.t
    for c in range(column.count):
        source.rows += column.pointers[c].length
    if column.count:
        source.open_chunk(0)
    return source
