# A column of FEEN piece placements, each scanned whole (Epin.boards): part of the
# compiled core (included by _core_c.pyx, after _texts_c.pxi, whose readers it reuses).
# The rows' bytes are found first, with the GIL (a non-ASCII str narrowed, as
# tokenize_many narrows it); then every row is scanned by _placement.h without it, into
# flat columns the facade (_boards.py) shapes.  The twin is _placement_py.py.

from cpython.buffer cimport (PyBUF_C_CONTIGUOUS, PyBUF_SIMPLE, PyBUF_WRITABLE,
                             PyBuffer_FillInfo, PyBuffer_Release, PyObject_GetBuffer)

DEF BOARD_SQUARES = 65536  # _placement_py.BOARD_SQUARES (tests hold both to it)
# Loops over rows with the GIL (finding the rows' bytes, listing the refused ones) check
# for signals every this many rows: a few milliseconds of work at most.
DEF SIGNAL_ROWS = 1 << 16

cdef extern from "_placement.h" nogil:
    int SASHITE_FAST_MAX
    int SASHITE_FAST_PAD
    int sashite_board_fast(const unsigned char* p, Py_ssize_t n, int epin, unsigned char* q,
                           int16_t* squares, int32_t* rank_lengths, uint8_t* separators,
                           Py_ssize_t* square_count, Py_ssize_t* rank_count)


cdef struct BoardRow:  # a row as pass one found it
    const unsigned char* p
    Py_ssize_t n
    int kind           # TEXT_BYTES, or TEXT_MISSING
    int reason         # after the scan: 0, or why it was refused
    Py_ssize_t at      # where


cdef struct BoardOut:  # the flat columns, grown as the scan goes
    int16_t* base      # squares - 16
    int16_t* squares
    unsigned char* scratch  # the fast path's copy of a row
    int32_t* lengths
    uint8_t* separators
    Py_ssize_t square_count, square_room, rank_count, rank_room


cdef int board_room(BoardOut* o, Py_ssize_t squares, Py_ssize_t n) noexcept nogil:
    """Room for one more board of n bytes: the squares its scan may write, and a rank
    for each byte; 0, or -1 out of memory.  The rooms were made for the whole column
    (board_rooms): this grows them, twice over, only for boards denser than that.  The
    memory is _memory.h's, as a TokenArray's: a column like the last one writes the
    pages the last result wrote, instead of faulting fresh ones in (a quarter of the
    time of a column of 300,000 boards went to the kernel's page faults)."""
    cdef void* more
    cdef Py_ssize_t need = o.square_count + squares
    if need > o.square_room:
        need = max(need, 2 * o.square_room)
        more = records_grow(o.base, 2 * (o.square_count + 16), 2 * (need + 16))
        if more == NULL:
            return -1
        o.base, o.square_room = <int16_t*>more, need
        o.squares = o.base + 16
    need = o.rank_count + n + 1
    if need > o.rank_room:
        need = max(need, 2 * o.rank_room)
        more = records_grow(o.lengths, 4 * o.rank_count, 4 * need)
        if more == NULL:
            return -1
        o.lengths = <int32_t*>more
        more = records_grow(o.separators, o.rank_count, need)
        if more == NULL:
            return -1
        o.separators, o.rank_room = <uint8_t*>more, need
    return 0


cdef int board_rooms(BoardOut* o, Py_ssize_t rows, Py_ssize_t text_bytes) noexcept nogil:
    """The rooms of a column of rows holding text_bytes in all, made once (growing them
    row by row copied them over and over): 2 squares a byte and 32 a row, as games'
    placements hold (chess 1.3 a byte, a one-layer 5x5x5 board 4.3: then it grows), and
    a rank every 2 bytes.  0, or -1 out of memory."""
    return board_room(o, 2 * text_bytes + 32 * rows + BOARD_SQUARES, text_bytes // 2 + rows)


cdef void board_fit(BoardOut* o) noexcept nogil:
    """Rooms far larger than what the column holds handed back (_memory.h's rule)."""
    cdef void* less
    less = records_fit(o.base, 2 * (o.square_count + 16))
    if less != NULL:
        o.base = <int16_t*>less
        o.squares = o.base + 16
    less = records_fit(o.lengths, 4 * o.rank_count)
    if less != NULL:
        o.lengths = <int32_t*>less
    less = records_fit(o.separators, o.rank_count)
    if less != NULL:
        o.separators = <uint8_t*>less


cdef Py_ssize_t scan_board_rows(BoardRow* rows, Py_ssize_t first, Py_ssize_t count,
                                bint epin, bint mark, BoardOut* o, int64_t* square_rows,
                                int64_t* rank_rows, Py_ssize_t* next) noexcept nogil:
    """A piece of the rows from first into o (rows up to piece_size bytes, a byte
    counted for each row, at least one row; *next: the row after it): -1 when all were
    read, else the row that stopped the scan (refused under raise), or -2 out of
    memory.  The caller checks for signals between pieces, the GIL taken back."""
    cdef Py_ssize_t i, used = 0
    cdef Placement pl
    cdef int status
    for i in range(first, count):
        if used >= piece_size:
            next[0] = i
            return -1
        used += rows[i].n + 1
        if rows[i].kind == TEXT_MISSING:
            rows[i].reason, rows[i].at = R_MISSING, 0
        else:
            # the fast road writes 9 squares a byte at most and 16 past the last
            if board_room(o, min(9 * rows[i].n + 24, BOARD_SQUARES + 8), rows[i].n) < 0:
                return -2
            if not sashite_board_fast(rows[i].p, rows[i].n, epin, o.scratch,
                                      o.squares + o.square_count,
                                      o.lengths + o.rank_count, o.separators + o.rank_count,
                                      &pl.square_count, &pl.rank_count):
                o.square_count += pl.square_count
                o.rank_count += pl.rank_count
                square_rows[i + 1] = o.square_count
                rank_rows[i + 1] = o.rank_count
                continue
            if board_room(o, BOARD_SQUARES + 8, rows[i].n) < 0:
                return -2
            pl.squares = o.squares + o.square_count
            pl.square_room = BOARD_SQUARES
            pl.rank_lengths = o.lengths + o.rank_count
            pl.separators = o.separators + o.rank_count
            pl.rank_room = BOARD_SQUARES  # never reached: a rank holds a square
            status = scan_placement(rows[i].p, rows[i].n, epin, &pl)
            rows[i].reason = -status
            rows[i].at = pl.error_at
            if not status:
                o.square_count += pl.square_count
                o.rank_count += pl.rank_count
        if rows[i].reason and not mark:
            return i
        square_rows[i + 1] = o.square_count
        rank_rows[i + 1] = o.rank_count
    next[0] = count
    return -1


@cython.internal
@cython.final
cdef class BoardColumn:
    """One of the scan's flat columns, read-only bytes where the scan wrote them (owned
    from the block's start, read from data on): a column's boards are its largest
    output, and copying them cost as much as scanning them."""
    cdef void* block
    cdef const void* data
    cdef Py_ssize_t size  # bytes

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, <void*>self.data, self.size, 1, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass

    def __dealloc__(self):
        records_free(self.block)


cdef BoardColumn board_column(void* block, const void* data, Py_ssize_t size):
    cdef BoardColumn column = BoardColumn.__new__(BoardColumn)
    column.block, column.data, column.size = block, data, size
    return column


def scan_boards(texts, bint epin, errors="raise"):
    """Every placement of a list or tuple of texts (None, NaN, pandas.NA: missing) or
    of an Arrow string column, as flat columns: squares (int16), rank lengths (int32),
    separators (uint8), each row's start in squares and in ranks (int64, rows + 1), and
    the refused rows (row, reason, offset, text); ParseError at the first one unless
    errors is "mark"."""
    cdef bint mark
    cdef RowTexts source
    cdef ArrowChunks column = None
    cdef Py_ssize_t count, i, stop_row, failed = -1, first = 0
    cdef BoardRow* rows = NULL
    cdef BoardOut o
    cdef const unsigned char* p
    cdef Py_ssize_t n
    cdef int kind
    cdef bytes square_rows, rank_rows
    cdef int64_t* starts
    cdef int64_t* rank_starts
    cdef Py_ssize_t text_bytes = 0
    cdef BoardColumn squares, lengths, separators
    cdef str s
    if errors == "raise":
        mark = False
    elif errors == "mark":
        mark = True
    else:
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
    know_missing_types()
    if isinstance(texts, (list, tuple)):
        # our own copy of the items: nothing can free a row's str while the GIL is off
        if isinstance(texts, list):
            texts = list.copy(texts)  # exact: a subclass's methods are not asked
        elif type(texts) is not tuple:
            texts = tuple.__getitem__(texts, slice(None))
        source = list_texts(texts)
    elif hasattr(type(texts), "__arrow_c_array__") or hasattr(type(texts), "__arrow_c_stream__"):
        column = arrow_column(texts)  # held until the rows are read
        source = arrow_texts(column)
    else:
        raise TypeError(f"boards reads a list or tuple of str or an Arrow string "
                        f"column here, not {type(texts).__name__}")
    count = source.rows
    keep = {}  # row -> the narrowed bytes of a row that is not ASCII, or its str
    memset(&o, 0, sizeof(o))
    rows = <BoardRow*>calloc(count + 1, sizeof(BoardRow))
    o.scratch = <unsigned char*>malloc(SASHITE_FAST_MAX + SASHITE_FAST_PAD)
    square_rows = PyBytes_FromStringAndSize(NULL, 8 * (count + 1))
    rank_rows = PyBytes_FromStringAndSize(NULL, 8 * (count + 1))
    if rows == NULL or o.scratch == NULL:
        free(rows)
        free(o.scratch)
        raise MemoryError()
    try:
        stop_row = count
        for i in range(count):  # pass one: where each row's bytes are
            if i % SIGNAL_ROWS == SIGNAL_ROWS - 1:  # Ctrl-C stops a long column
                PyErr_CheckSignals()
            kind = source.text(i, &p, &n)
            if kind == TEXT_OTHER:
                s = source.other_text(i)
                if s is None:  # an Arrow row that is not UTF-8: its U+FFFD is no letter
                    s = PyUnicode_DecodeUTF8(<const char*>source.not_text,
                                             source.not_text_at, NULL) + "\ufffd"
                copy = byte_copy(s)
                keep[i] = (s, copy)
                p, n, kind = text_of(s, copy), PyUnicode_GET_LENGTH(s), TEXT_BYTES
            elif kind == TEXT_STOP:
                stop_row = i  # judged after the rows before it
                break
            elif kind == TEXT_MISSING:
                p, n = NULL, 0  # the reader leaves them as the row before had them
            rows[i].p, rows[i].n, rows[i].kind = p, n, kind
            text_bytes += n
        starts = <int64_t*>PyBytes_AS_STRING(square_rows)
        rank_starts = <int64_t*>PyBytes_AS_STRING(rank_rows)
        starts[0] = rank_starts[0] = 0
        with nogil:
            if board_rooms(&o, stop_row, text_bytes) < 0:
                failed = -2
        # A piece at a time without the GIL, pending signals checked between pieces: a
        # column scanned whole kept Ctrl-C waiting a second or more.
        while failed == -1 and first < stop_row:
            if first:
                PyErr_CheckSignals()
            with nogil:
                failed = scan_board_rows(rows, first, stop_row, epin, mark, &o, starts,
                                         rank_starts, &first)
        if failed == -2:
            raise MemoryError()
        with nogil:
            board_fit(&o)
        refused = []
        for i in range(stop_row if failed < 0 else failed + 1):
            if i % SIGNAL_ROWS == SIGNAL_ROWS - 1:
                PyErr_CheckSignals()
            if rows[i].reason:
                text = board_text(source, texts, keep, rows, i)
                at = None if rows[i].reason == R_MISSING else rows[i].at
                if not mark:
                    raise _ParseError(text, _reason_text(rows[i].reason, notation_of(epin)),
                                      notation_of(epin), i, at, row=i)
                refused.append((i, rows[i].reason, at, text))
        if stop_row < count:
            source.stop(stop_row)  # the row text() read last
        squares = board_column(o.base, o.squares, 2 * o.square_count)
        o.base = NULL  # the column's now
        lengths = board_column(o.lengths, o.lengths, 4 * o.rank_count)
        o.lengths = NULL
        separators = board_column(o.separators, o.separators, o.rank_count)
        o.separators = NULL
        return squares, lengths, separators, square_rows, rank_rows, refused
    finally:
        free(rows)
        records_free(o.base)
        free(o.scratch)
        records_free(o.lengths)
        records_free(o.separators)


cdef object board_text(RowTexts source, object texts, dict keep, BoardRow* rows,
                       Py_ssize_t i):
    """A refused row's text, as the twin names it: the str (exact), the missing value."""
    if i in keep:
        return keep[i][0]
    if rows[i].kind == TEXT_MISSING:
        return texts[i] if isinstance(texts, (list, tuple)) else None
    return (<bytes>rows[i].p[:rows[i].n]).decode("ascii")


def format_boards(squares, lengths, separators, square_rows, rank_rows, bint epin):
    """Each row's placement text (None for a row of no rank: refused or missing);
    ValueError naming the first row whose starts or ranks lie."""
    # The columns are read through the buffer protocol: a typed memoryview's support
    # code would import collections when the package is imported.
    cdef Py_buffer views[5]
    cdef int taken = 0
    cdef Py_ssize_t r, a, b, s0, s1, room = 0, got, rows, square_count, rank_count
    cdef Py_ssize_t written = 0
    cdef const int16_t* sq
    cdef const int32_t* ln
    cdef const uint8_t* sp
    cdef int64_t* starts = NULL
    cdef Placement pl
    cdef char* out = NULL
    cdef list result = []
    try:
        for column in (squares, lengths, separators, square_rows, rank_rows):
            PyObject_GetBuffer(column, &views[taken], PyBUF_SIMPLE)
            taken += 1
        if views[3].len // 8 != views[4].len // 8:
            raise ValueError("square_rows and rank_rows must hold as many rows")
        rows = views[3].len // 8 - 1
        sq, ln = <const int16_t*>views[0].buf, <const int32_t*>views[1].buf
        sp = <const uint8_t*>views[2].buf
        square_count = views[0].len // 2
        rank_count = min(views[1].len // 4, views[2].len)
        # The row starts copied before they are judged, as lay_out_boards copies them:
        # whoever holds the columns may write them (another thread, a lying Boards),
        # and each row's squares and ranks are read where the copy, judged, says.
        starts = <int64_t*>malloc(16 * (rows + 1) if rows > 0 else 16)
        if starts == NULL:
            raise MemoryError()
        if rows > 0:
            memcpy(starts, views[3].buf, 8 * (rows + 1))
            memcpy(starts + rows + 1, views[4].buf, 8 * (rows + 1))
        for r in range(rows):
            s0, s1 = starts[r], starts[r + 1]
            a, b = starts[rows + 1 + r], starts[rows + 2 + r]
            if not (0 <= s0 <= s1 <= square_count and 0 <= a <= b <= rank_count):
                raise ValueError(f"row {r} is no board: its starts lie outside the columns")
            if a == b:
                result.append(None)
                continue
            # at most 4 bytes a square and 2 a separator
            if 4 * (s1 - s0) + 2 * (b - a) > room:
                room = 2 * (4 * (s1 - s0) + 2 * (b - a))
                free(out)
                out = <char*>malloc(room)
                if out == NULL:
                    raise MemoryError()
            pl.squares = <int16_t*>(sq + s0)
            pl.square_count = s1 - s0
            pl.rank_lengths = <int32_t*>(ln + a)
            pl.separators = <uint8_t*>(sp + a)
            pl.rank_count = b - a
            got = format_placement(&pl, epin, out, room)
            if got < 0:
                raise ValueError(f"row {r} is no board: {_reason_text(-got, notation_of(epin))}")
            result.append(out[:got].decode("ascii"))
            # Ctrl-C stops a long column: a check every piece_size bytes written (the
            # loop holds the GIL, but runs no bytecode where Python would check)
            written += got + 64
            if written >= piece_size:
                written = 0
                PyErr_CheckSignals()
        return result
    finally:
        free(out)
        free(starts)
        while taken:
            taken -= 1
            PyBuffer_Release(&views[taken])


def lay_out_boards(squares, square_rows, out):
    """Each row's squares (int16, the rows one after the other, row r from
    square_rows[r] to square_rows[r + 1]) into row r of out, a writable C-contiguous
    int16 array of rows x width, CODE_NONE after them: what Boards.squares() gives."""
    # Without a mask as large as the result (numpy's boolean assignment was most of
    # squares()' time).
    cdef Py_buffer views[3]
    cdef int taken = 0
    cdef const int16_t* flat
    cdef int64_t* starts = NULL
    cdef int16_t* to
    cdef Py_ssize_t rows, width, r, n, flat_count, first, last
    try:
        PyObject_GetBuffer(squares, &views[0], PyBUF_SIMPLE)
        taken += 1
        PyObject_GetBuffer(square_rows, &views[1], PyBUF_SIMPLE)
        taken += 1
        PyObject_GetBuffer(out, &views[2], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
        taken += 1
        if views[2].itemsize != 2:
            raise TypeError("out must hold int16")
        rows = views[1].len // 8 - 1
        flat, flat_count = <const int16_t*>views[0].buf, views[0].len // 2
        to = <int16_t*>views[2].buf
        width = views[2].len // 2 // rows if rows > 0 else 0
        if rows > 0 and width * rows * 2 != views[2].len:
            raise ValueError("out is no rows x width int16 array")
        # The row starts copied before they are judged: whoever holds square_rows may
        # change it once the GIL is released, and the copy loop trusts what was judged.
        starts = <int64_t*>malloc(8 * (rows + 1) if rows > 0 else 8)
        if starts == NULL:
            raise MemoryError()
        memcpy(starts, views[1].buf, 8 * (rows + 1) if rows > 0 else 0)
        for r in range(rows):
            n = starts[r + 1] - starts[r]
            if starts[r] < 0 or n < 0 or n > width or starts[r + 1] > flat_count:
                raise ValueError(f"row {r} does not fit out")
        # A piece of rows (piece_size bytes written) at a time, signals checked between
        first = 0
        while first < rows:
            if first:
                PyErr_CheckSignals()
            last = min(rows, first + max(1, piece_size // max(2 * width, 1)))
            with nogil:
                for r in range(first, last):
                    n = starts[r + 1] - starts[r]
                    memcpy(to + r * width, flat + starts[r], 2 * n)
                    memset(to + r * width + n, 0xFF, 2 * (width - n))  # CODE_NONE
            first = last
    finally:
        free(starts)
        while taken:
            taken -= 1
            PyBuffer_Release(&views[taken])
