# cython: language_level=3
"""A FEEN placement decoded into a board, in nogil Cython over sashite_epin's C API.

The placement field of a FEEN position writes a board rank by rank, "/" between ranks
and "//" between layers; on a rank, each piece is an EPIN token and a number is a run
of empty squares ("lnsgk^gsnl/1r5b1/ppppppppp/9/...").  scan_placement reads one whole
into buffers the caller owns: a code a square in the order written (CODE_NONE for an
empty square), each rank's length and the separator after it, with no Python object
and without the GIL; on a fault, the offset and the reason Epin.tokenize gives there.

(Only the placement field: FEEN as a whole, with its hands and side to move, stays with
FEEN's own libraries.)  docs/capi.md shows this file; tests/test_capi.py compiles it
against the installed package and checks it, and benchmarks/test_bench_scan.py times it.
"""

from cpython.array cimport array, clone
from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.string cimport memcpy
from libc.time cimport clock, clock_t, CLOCKS_PER_SEC
from sashite_epin cimport Placement, reason_text, scan_placement

cdef enum:
    MAX_SQUARES = 4096  # a board, on the stack: 8 KiB of codes
    MAX_RANKS = 512

cdef array SHORTS = array("h")
cdef array INTS = array("i")


def board(bytes placement, bint epin=True, Py_ssize_t room=MAX_SQUARES):
    """The squares (array('h') of codes, -1 empty), the rank lengths (array('i')) and
    the separators (bytes: 1 "/", 2 "//", 0 after the last rank) of a FEEN placement of
    at most room squares (up to MAX_SQUARES); ValueError naming the offset and the
    reason where it is not one."""
    cdef int16_t squares[MAX_SQUARES]
    cdef int32_t lengths[MAX_RANKS]
    cdef uint8_t separators[MAX_RANKS]
    cdef const unsigned char* text = placement
    cdef Py_ssize_t n = len(placement)
    cdef Placement p
    cdef int rc
    cdef array board_squares, board_ranks
    p.squares, p.square_room = squares, min(room, MAX_SQUARES)
    p.rank_lengths, p.separators, p.rank_room = lengths, separators, MAX_RANKS
    with nogil:
        rc = scan_placement(text, n, epin, &p)
    if rc < 0:
        raise ValueError(f"offset {p.error_at}: {reason_text(rc, epin).decode('ascii')}")
    board_squares = clone(SHORTS, p.square_count, False)
    board_ranks = clone(INTS, p.rank_count, False)
    memcpy(board_squares.data.as_shorts, squares, p.square_count * sizeof(int16_t))
    memcpy(board_ranks.data.as_ints, lengths, p.rank_count * sizeof(int32_t))
    return board_squares, board_ranks, bytes(separators[:p.rank_count])


def placements_per_second(list placements, int rounds=5):
    """Decodes every placement (bytes) of the list, rounds times, and returns the best
    round's placements per second and the squares decoded in one round: the C-level
    figure, without the GIL and with no Python object made per placement."""
    cdef Py_ssize_t count = len(placements), i, squares_total = 0
    cdef int16_t squares[MAX_SQUARES]
    cdef int32_t lengths[MAX_RANKS]
    cdef uint8_t separators[MAX_RANKS]
    cdef Placement p
    cdef double best = 0.0, seconds
    cdef clock_t start
    cdef int rc = 0
    keep = [bytes(t) for t in placements]
    cdef array starts = array("q", [<Py_ssize_t><const unsigned char*>t for t in keep])
    cdef array sizes = array("q", [len(t) for t in keep])
    cdef const unsigned char** texts = <const unsigned char**>starts.data.as_voidptr
    cdef Py_ssize_t* text_lengths = <Py_ssize_t*>sizes.data.as_voidptr
    p.squares, p.square_room = squares, MAX_SQUARES
    p.rank_lengths, p.separators, p.rank_room = lengths, separators, MAX_RANKS
    for _ in range(rounds):
        with nogil:
            squares_total = 0
            start = clock()
            for i in range(count):
                rc = scan_placement(texts[i], text_lengths[i], True, &p)
                if rc < 0:
                    break
                squares_total += p.square_count
            seconds = <double>(clock() - start) / CLOCKS_PER_SEC
        if rc < 0:
            raise ValueError(f"placement {i} is not one")
        if seconds > 0 and count / seconds > best:
            best = count / seconds
    return best, squares_total
