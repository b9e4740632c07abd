# cython: language_level=3
"""A FEEN placement decoded into a board, in nogil Cython over sashite_epin's C API.

The placement field of a FEEN position writes a board rank by rank, "/" between ranks;
on a rank, each piece is an EPIN token and a number is a run of empty squares
("lnsgk^gsnl/1r5b1/ppppppppp/9/..."). decode_placement turns one into a flat array of
codes by square in the order written (-1 for an empty square) and the length of each
rank, with no Python object and without the GIL: scan_many finds every token of the
text in one pass, and what lies between two tokens must be digits and "/" only.

(Only the placement field: FEEN as a whole, with its hands and side to move, stays with
FEEN's own libraries.)  docs/capi.md shows this file; tests/test_capi.py compiles it
against the installed package and checks it against Epin.tokenize, and
benchmarks/test_bench_scan.py times it.
"""

from cpython.array cimport array, clone
from libc.string cimport memcpy
from libc.time cimport clock, clock_t, CLOCKS_PER_SEC
from sashite_epin cimport (code_derived, code_state, code_terminal, reason_text, scan_many,
                           stop_reason, STATE_NORMAL)

cdef enum:
    BATCH = 256  # tokens found per scan_many call

# What decode_placement says besides a board: 0, or where and why it stopped.
cdef enum:
    PLACED = 0
    NOT_A_TOKEN = 1       # scan_many found no token where one starts: stop_reason says why
    OTHER_BYTE = 2        # a byte between tokens that is no digit and no "/"
    NO_ROOM = 3           # more squares or ranks than the caller made room for


cdef inline Py_ssize_t token_length(int code) noexcept nogil:
    """A token's bytes, from its code: the letter and each marker it carries."""
    return (1 + (code_state(code) != STATE_NORMAL) + code_terminal(code)
            + code_derived(code))


cdef int gap(const unsigned char* p, Py_ssize_t start, Py_ssize_t end, short* squares,
             Py_ssize_t room, Py_ssize_t* square, Py_ssize_t* ranks, Py_ssize_t rank_room,
             Py_ssize_t* rank, Py_ssize_t* rank_start, Py_ssize_t* at) noexcept nogil:
    """The bytes between two tokens: digits (a run of empty squares, as one number) and
    "/" (the rank ends).  Returns PLACED, or OTHER_BYTE / NO_ROOM with at[0] the byte."""
    cdef Py_ssize_t i = start, run
    while i < end:
        if p[i] == c'/':
            if rank[0] == rank_room:
                at[0] = i
                return NO_ROOM
            ranks[rank[0]] = square[0] - rank_start[0]
            rank[0] += 1
            rank_start[0] = square[0]
            i += 1
        elif c'0' <= p[i] <= c'9':
            run = 0
            while i < end and c'0' <= p[i] <= c'9':
                if run > room:  # no board is that wide: stop before the number overflows
                    at[0] = i
                    return NO_ROOM
                run = run * 10 + (p[i] - c'0')
                i += 1
            if run > room - square[0]:
                at[0] = i - 1
                return NO_ROOM
            while run:
                squares[square[0]] = -1
                square[0] += 1
                run -= 1
        else:
            at[0] = i
            return OTHER_BYTE
    return PLACED


cdef int decode_placement(const unsigned char* p, Py_ssize_t n, bint epin, short* squares,
                          Py_ssize_t room, Py_ssize_t* square_count, Py_ssize_t* ranks,
                          Py_ssize_t rank_room, Py_ssize_t* rank_count,
                          Py_ssize_t* at, int* reason) noexcept nogil:
    """Decodes the placement p[0..n-1] into squares[0..] (a token's code, -1 when empty)
    and ranks[0..] (each rank's squares).  Returns PLACED, or where it stopped (at[0]) and
    why: NOT_A_TOKEN with reason[0] the R_* that Epin.tokenize gives there, OTHER_BYTE,
    NO_ROOM."""
    cdef unsigned short codes[BATCH]
    cdef Py_ssize_t starts[BATCH]
    cdef Py_ssize_t pos = 0, base = 0, previous = -1, stop, found, k
    cdef Py_ssize_t square = 0, rank = 0, rank_start = 0
    cdef int status
    reason[0] = 0
    while True:
        # every token of p[base..n-1], BATCH at a time; starts are offsets from p + base
        found = scan_many(p + base, n - base, epin, codes, starts, BATCH, &stop, reason)
        for k in range(found):
            status = gap(p, pos, base + starts[k], squares, room, &square, ranks, rank_room,
                         &rank, &rank_start, at)
            if status != PLACED:
                return status
            if square == room:
                at[0] = base + starts[k]
                return NO_ROOM
            squares[square] = codes[k]
            square += 1
            previous = base + starts[k]
            pos = previous + token_length(codes[k])
        if reason[0] != 0:  # no token starts at base + stop: why, as tokenize says it
            status = gap(p, pos, base + stop, squares, room, &square, ranks, rank_room,
                         &rank, &rank_start, at)
            if status != PLACED:  # a fault before it comes first
                return status
            reason[0] = stop_reason(p, n, base + stop, previous, epin)
            at[0] = base + stop
            return NOT_A_TOKEN
        if base + stop == n:
            break
        base += stop  # room was reached: on from there
    status = gap(p, pos, n, squares, room, &square, ranks, rank_room, &rank, &rank_start, at)
    if status != PLACED:
        return status
    if rank == rank_room:
        at[0] = n
        return NO_ROOM
    ranks[rank] = square - rank_start
    square_count[0], rank_count[0] = square, rank + 1
    return PLACED


cdef array SHORTS = array("h")
cdef array SIZES = array("q")

cdef enum:
    MAX_SQUARES = 4096  # a board, on the stack: 8 KiB of codes and 32 KiB of rank sizes


def board(bytes placement, bint epin=True, Py_ssize_t room=MAX_SQUARES):
    """The squares (array('h') of codes, -1 empty) and the rank lengths (array('q')) of a
    FEEN placement of at most room squares (up to MAX_SQUARES); ValueError naming the
    offset and the reason where it is not one."""
    cdef short squares[MAX_SQUARES]
    cdef Py_ssize_t ranks[MAX_SQUARES + 1]
    cdef const unsigned char* p = placement
    cdef Py_ssize_t n = len(placement), square_count = 0, rank_count = 0, at = 0
    cdef int reason = 0, status
    cdef array board_squares, board_ranks
    room = min(room, MAX_SQUARES)
    with nogil:
        status = decode_placement(p, n, epin, squares, room, &square_count, ranks, room + 1,
                                  &rank_count, &at, &reason)
    if status == NOT_A_TOKEN:
        raise ValueError(f"offset {at}: {reason_text(reason, epin).decode('ascii')}")
    if status == OTHER_BYTE:
        raise ValueError(f"offset {at}: {placement[at:at + 1]!a} is no token, digit or '/'")
    if status == NO_ROOM:
        raise ValueError(f"offset {at}: more than {room} squares")
    board_squares = clone(SHORTS, square_count, False)
    board_ranks = clone(SIZES, rank_count, False)
    memcpy(board_squares.data.as_shorts, squares, square_count * sizeof(short))
    memcpy(board_ranks.data.as_voidptr, ranks, rank_count * sizeof(Py_ssize_t))
    return board_squares, board_ranks


def placements_per_second(list placements, int rounds=5):
    """Decodes every placement (bytes) of the list, rounds times, and returns the best
    round's placements per second and the squares decoded in one round: the C-level
    figure, with no Python object made per placement."""
    cdef Py_ssize_t count = len(placements), i, squares_total = 0, total = 0, ranks_made
    cdef Py_ssize_t at
    cdef int reason
    cdef short squares[MAX_SQUARES]
    cdef Py_ssize_t ranks[MAX_SQUARES + 1]
    cdef const unsigned char** texts
    cdef Py_ssize_t* lengths
    cdef double best = 0.0, seconds
    cdef clock_t start
    keep = [bytes(t) for t in placements]
    text_array = array("q", [0] * count)
    length_array = array("q", [len(t) for t in keep])
    for i in range(count):
        text_array[i] = <Py_ssize_t>(<const unsigned char*>keep[i])
    texts = <const unsigned char**>text_array.data.as_voidptr
    lengths = <Py_ssize_t*>length_array.data.as_voidptr
    for _ in range(rounds):
        squares_total = 0
        with nogil:
            start = clock()
            for i in range(count):
                if decode_placement(texts[i], lengths[i], True, squares, MAX_SQUARES, &total,
                                    ranks, MAX_SQUARES + 1, &ranks_made, &at,
                                    &reason) != PLACED:
                    total = -1
                    break
                squares_total += total
            seconds = <double>(clock() - start) / CLOCKS_PER_SEC
        if total < 0:
            raise ValueError(f"placement {i} is not one")
        if seconds > 0 and count / seconds > best:
            best = count / seconds
    return best, squares_total
