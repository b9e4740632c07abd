# cython: language_level=3
# distutils: extra_compile_args = -O2
"""scan_placement and format_placement against hand_placement.h, the parser and
formatter an engine would write itself, compiled at -O2 into this one module and run
on the same placements, interleaved: benchmarks/test_bench_placement.py."""

from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.time cimport clock, clock_t, CLOCKS_PER_SEC
from sashite_epin cimport Placement, format_placement, scan_placement

cdef extern from "hand_placement.h" nogil:
    void hand_init()
    int hand_scan(const unsigned char* p, Py_ssize_t n, int16_t* squares, Py_ssize_t room,
                  int32_t* lengths, uint8_t* separators, Py_ssize_t rank_room,
                  Py_ssize_t* square_count, Py_ssize_t* rank_count)
    Py_ssize_t hand_format(const int16_t* squares, Py_ssize_t square_count,
                           const int32_t* lengths, const uint8_t* separators,
                           Py_ssize_t rank_count, char* out, Py_ssize_t room)

hand_init()

cdef enum:
    SQUARES = 4096
    RANKS = 512
    OUT = 65536


cdef struct Corpus:
    const unsigned char** texts
    Py_ssize_t* lengths
    Py_ssize_t count


cdef double scan_ours(Corpus* c, int16_t* squares, int32_t* lengths, uint8_t* seps,
                      Py_ssize_t* total) noexcept nogil:
    cdef Placement p
    cdef Py_ssize_t i, sum = 0
    cdef clock_t start = clock()
    p.squares, p.square_room = squares, SQUARES
    p.rank_lengths, p.separators, p.rank_room = lengths, seps, RANKS
    for i in range(c.count):
        if scan_placement(c.texts[i], c.lengths[i], True, &p) != 0:
            total[0] = -1 - i
            return 0
        sum += p.square_count + squares[p.square_count - 1]
    total[0] = sum
    return <double>(clock() - start) / CLOCKS_PER_SEC


cdef double scan_hand(Corpus* c, int16_t* squares, int32_t* lengths, uint8_t* seps,
                      Py_ssize_t* total) noexcept nogil:
    cdef Py_ssize_t i, sum = 0, count = 0, ranks = 0
    cdef clock_t start = clock()
    for i in range(c.count):
        if hand_scan(c.texts[i], c.lengths[i], squares, SQUARES, lengths, seps, RANKS,
                     &count, &ranks) != 0:
            total[0] = -1 - i
            return 0
        sum += count + squares[count - 1]
    total[0] = sum
    return <double>(clock() - start) / CLOCKS_PER_SEC


cdef double format_ours(Placement* boards, Py_ssize_t count, char* out,
                        Py_ssize_t* total) noexcept nogil:
    cdef Py_ssize_t i, k, sum = 0
    cdef clock_t start = clock()
    for i in range(count):
        k = format_placement(&boards[i], True, out, OUT)
        if k < 0:
            total[0] = -1 - i
            return 0
        sum += k + out[0]
    total[0] = sum
    return <double>(clock() - start) / CLOCKS_PER_SEC


cdef double format_hand(Placement* boards, Py_ssize_t count, char* out,
                        Py_ssize_t* total) noexcept nogil:
    cdef Py_ssize_t i, k, sum = 0
    cdef clock_t start = clock()
    for i in range(count):
        k = hand_format(boards[i].squares, boards[i].square_count, boards[i].rank_lengths,
                        boards[i].separators, boards[i].rank_count, out, OUT)
        if k < 0:
            total[0] = -1 - i
            return 0
        sum += k + out[0]
    total[0] = sum
    return <double>(clock() - start) / CLOCKS_PER_SEC


def same_results(list texts):
    """Both scanners give the same squares, ranks and separators, and both formatters
    the text back, for every text (bytes) of the list."""
    cdef int16_t a[SQUARES]
    cdef int16_t b[SQUARES]
    cdef int32_t la[RANKS]
    cdef int32_t lb[RANKS]
    cdef uint8_t sa[RANKS]
    cdef uint8_t sb[RANKS]
    cdef char out[OUT]
    cdef Placement p
    cdef Py_ssize_t count = 0, ranks = 0, k
    cdef bytes text
    for text in texts:
        p.squares, p.square_room = a, SQUARES
        p.rank_lengths, p.separators, p.rank_room = la, sa, RANKS
        if scan_placement(text, len(text), True, &p) != 0:
            return False
        if hand_scan(text, len(text), b, SQUARES, lb, sb, RANKS, &count, &ranks) != 0:
            return False
        if (count, ranks) != (p.square_count, p.rank_count):
            return False
        if [a[i] for i in range(count)] != [b[i] for i in range(count)]:
            return False
        if ([la[i] for i in range(ranks)] != [lb[i] for i in range(ranks)]
                or [sa[i] for i in range(ranks)] != [sb[i] for i in range(ranks)]):
            return False
        k = format_placement(&p, True, out, OUT)
        if k < 0 or out[:k] != text:
            return False
        k = hand_format(b, count, lb, sb, ranks, out, OUT)
        if k < 0 or out[:k] != text:
            return False
    return True


cdef int boards_of(Corpus* c, Placement* boards, int16_t* squares, int32_t* lengths,
                   uint8_t* seps) noexcept nogil:
    """Every placement decoded into its own slice of one arena (squares, lengths and
    separators as a board array keeps them), for the formatters to read."""
    cdef Py_ssize_t i
    for i in range(c.count):
        boards[i].squares, boards[i].square_room = squares, SQUARES
        boards[i].rank_lengths, boards[i].separators = lengths, seps
        boards[i].rank_room = RANKS
        if scan_placement(c.texts[i], c.lengths[i], True, &boards[i]) != 0:
            return -1
        squares += boards[i].square_count
        lengths += boards[i].rank_count
        seps += boards[i].rank_count
    return 0


def ratios(list texts, int rounds=30):
    """(scan ratio, format ratio, best seconds of each loop): the C API's time over the
    hand code's, each the best of rounds, the four loops interleaved in every round."""
    cdef Corpus c
    cdef Py_ssize_t n = len(texts), i, total = 0, check = 0
    cdef int16_t squares[SQUARES]
    cdef int32_t lengths[RANKS]
    cdef uint8_t seps[RANKS]
    cdef double best[4]
    cdef double t
    cdef int which
    keep = [bytes(x) for x in texts]
    cdef Py_ssize_t size = sum(len(x) for x in keep) + SQUARES  # squares <= bytes * 9..
    c.texts = <const unsigned char**>malloc(n * sizeof(void*))
    c.lengths = <Py_ssize_t*>malloc(n * sizeof(Py_ssize_t))
    c.count = n
    cdef Placement* boards = <Placement*>malloc(n * sizeof(Placement))
    cdef char* out = <char*>malloc(OUT)
    cdef int16_t* all_squares = <int16_t*>malloc(10 * size * sizeof(int16_t))
    cdef int32_t* all_lengths = <int32_t*>malloc(size * sizeof(int32_t))
    cdef uint8_t* all_seps = <uint8_t*>malloc(size)
    try:
        for i in range(n):
            c.texts[i] = <const unsigned char*>(<bytes>keep[i])
            c.lengths[i] = len(keep[i])
        if boards_of(&c, boards, all_squares, all_lengths, all_seps) != 0:
            raise ValueError("a text is no placement")
        for which in range(4):
            best[which] = 1e300
        for _ in range(rounds):
            for which in range(4):  # interleaved: each loop once a round
                with nogil:
                    if which == 0:
                        t = scan_ours(&c, squares, lengths, seps, &total)
                    elif which == 1:
                        t = scan_hand(&c, squares, lengths, seps, &check)
                    elif which == 2:
                        t = format_ours(boards, n, out, &total)
                    else:
                        t = format_hand(boards, n, out, &check)
                if which % 2 and total != check:
                    raise AssertionError("the two loops disagree")
                if t < best[which]:
                    best[which] = t
        return best[0] / best[1], best[2] / best[3], [best[w] for w in range(4)]
    finally:
        free(c.texts)
        free(c.lengths)
        free(boards)
        free(out)
        free(all_squares)
        free(all_lengths)
        free(all_seps)


def callgrind(list texts, bint ours, bint formatting, int rounds=1):
    """One loop alone, for valgrind --tool=callgrind to count its instructions."""
    cdef int16_t squares[SQUARES]
    cdef int32_t lengths[RANKS]
    cdef uint8_t seps[RANKS]
    cdef char out[OUT]
    cdef Placement p
    cdef Py_ssize_t count = 0, ranks = 0, k = 0
    cdef bytes text
    for _ in range(rounds):
        for text in texts:
            if ours:
                p.squares, p.square_room = squares, SQUARES
                p.rank_lengths, p.separators, p.rank_room = lengths, seps, RANKS
                scan_placement(text, len(text), True, &p)
                if formatting:
                    k += format_placement(&p, True, out, OUT)
            else:
                hand_scan(text, len(text), squares, SQUARES, lengths, seps, RANKS, &count,
                          &ranks)
                if formatting:
                    k += hand_format(squares, count, lengths, seps, ranks, out, OUT)
    return k
