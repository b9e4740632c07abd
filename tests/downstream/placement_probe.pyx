# cython: language_level=3
"""A third-party module over the C API's whole placements: scan_placement and
format_placement as an engine calls them, the caller owning every buffer, the scan
without the GIL.  tests/test_placement_capi.py compiles it against the installed
package and checks it against a reference written from FEEN's grammar."""

from libc.stdint cimport int16_t, int32_t, uint8_t
from sashite_epin cimport (CODE_NONE, R_COUNT, R_MISSING, Placement, scan_placement,
                           format_placement, reason_text, LETTER_SHIFT, SIDE_SHIFT,
                           RANK_SHIFT, TERMINAL_SHIFT, DERIVED_SHIFT, LETTER_MASK, SIDE_BIT,
                           RANK_MASK, TERMINAL_BIT, DERIVED_BIT, code_state, STATE_NORMAL,
                           STATE_ENHANCED, STATE_DIMINISHED)

cdef enum:
    SQUARES = 4096
    RANKS = 512
    GUARD = 0x5A5A


def scan(bytes text, bint epin=True, Py_ssize_t square_room=SQUARES,
         Py_ssize_t rank_room=RANKS):
    """(0, squares, rank lengths, separators) or (reason, error_at, reason text,
    squares and ranks written so far)."""
    cdef int16_t squares[SQUARES]
    cdef int32_t lengths[RANKS]
    cdef uint8_t separators[RANKS]
    cdef const unsigned char* data = text
    cdef Py_ssize_t length = len(text)
    cdef Placement p
    cdef int rc
    cdef Py_ssize_t i
    # every element past the rooms holds a guard the scan must leave as it is
    for i in range(SQUARES):
        squares[i] = GUARD
    for i in range(RANKS):
        lengths[i], separators[i] = GUARD, GUARD & 0xFF
    p.squares = squares
    p.square_room = min(square_room, SQUARES)
    p.rank_lengths = lengths
    p.separators = separators
    p.rank_room = min(rank_room, RANKS)
    with nogil:
        rc = scan_placement(data, length, epin, &p)
    for i in range(p.square_room, SQUARES):
        if squares[i] != GUARD:
            raise AssertionError(f"square {i} written, past a room of {p.square_room}")
    for i in range(p.rank_room, RANKS):
        if lengths[i] != GUARD or separators[i] != GUARD & 0xFF:
            raise AssertionError(f"rank {i} written, past a room of {p.rank_room}")
    if rc != 0:
        return (-rc, p.error_at, reason_text(rc, epin).decode("ascii"),
                p.square_count, p.rank_count)
    return (0, [squares[i] for i in range(p.square_count)],
            [lengths[i] for i in range(p.rank_count)],
            [separators[i] for i in range(p.rank_count)])


def scan_count(bytes text, Py_ssize_t square_room):
    """(reason, error_at, square_count) of a text whose count no buffer could hold,
    scanned with a room claimed past the probe's buffer: a count the rank's int32
    length cannot hold must be refused before a square is written."""
    cdef int16_t squares[SQUARES]
    cdef int32_t lengths[RANKS]
    cdef uint8_t separators[RANKS]
    cdef Placement p
    cdef int rc
    p.squares = squares
    p.square_room = square_room
    p.rank_lengths = lengths
    p.separators = separators
    p.rank_room = RANKS
    rc = scan_placement(text, len(text), True, &p)
    return (-rc, p.error_at, p.square_count)


def format(list squares, list lengths, list separators, bint epin=True,
           Py_ssize_t room=65536):
    """(text,) or (reason, error_at)."""
    cdef int16_t[::1] s = memoryview(bytearray(2 * max(len(squares), 1))).cast("h")
    cdef int32_t[::1] r = memoryview(bytearray(4 * max(len(lengths), 1))).cast("i")
    cdef uint8_t[::1] sep = bytearray(max(len(separators), 1))
    out = bytearray(max(room, 1))
    cdef char* o = out
    cdef Placement p
    cdef Py_ssize_t k, i
    for i in range(len(squares)):
        s[i] = squares[i]
    for i in range(len(lengths)):
        r[i] = lengths[i]
        sep[i] = separators[i]
    p.squares = &s[0]
    p.square_count = len(squares)
    p.rank_lengths = &r[0]
    p.separators = &sep[0]
    p.rank_count = len(lengths)
    with nogil:
        k = format_placement(&p, epin, o, room)
    if k < 0:
        return (-k, p.error_at)
    return (bytes(out[:k]),)


def constants():
    """A table of R_COUNT entries holds every reason, R_MISSING included."""
    cdef int t[R_COUNT]
    cdef int i
    for i in range(R_COUNT):
        t[i] = 0
    t[R_MISSING] += 1
    return CODE_NONE, R_COUNT, t[R_MISSING]


def layout():
    """The code layout as the public .pxd gives it."""
    return {
        "LETTER_SHIFT": LETTER_SHIFT, "SIDE_SHIFT": SIDE_SHIFT, "RANK_SHIFT": RANK_SHIFT,
        "TERMINAL_SHIFT": TERMINAL_SHIFT, "DERIVED_SHIFT": DERIVED_SHIFT,
        "LETTER_MASK": LETTER_MASK, "SIDE_BIT": SIDE_BIT, "RANK_MASK": RANK_MASK,
        "TERMINAL_BIT": TERMINAL_BIT, "DERIVED_BIT": DERIVED_BIT,
        "STATE_NORMAL": STATE_NORMAL, "STATE_ENHANCED": STATE_ENHANCED,
        "STATE_DIMINISHED": STATE_DIMINISHED,
    }


def state_of(int code):
    return code_state(code)
