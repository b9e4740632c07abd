"""Epin.boards / Pin.boards: a column of FEEN placements as board arrays.  Every core's
scan_boards row by row against the reference built on FEEN's grammar over tokenize
(test_placement_capi.reference), on real, random and broken placements; every input
tokenize_many reads; rows past every internal size; marks, nulls, and the texts back;
columns that lie, refused by Boards and by each core's format_boards; pickles."""

from __future__ import annotations

import itertools
import random
from types import ModuleType
from typing import Any

import numpy
import pytest
from test_placement_capi import random_placement, reference

from sashite_epin import CODE_NONE, Boards, Epin, ParseError, Pin, Reason
from sashite_epin._corpora import EPIN_TOKENS, PLACEMENTS, placements

ROOM = 1 << 16  # the squares of one board


def rows_of(scanned: tuple[Any, ...], rows: int) -> list[tuple[object, ...]]:
    """scan_boards' flat columns, cut into what reference says of each row."""
    squares, lengths, separators, square_rows, rank_rows, refused = scanned
    squares = numpy.frombuffer(squares, dtype=numpy.int16).tolist()
    lengths = numpy.frombuffer(lengths, dtype=numpy.int32).tolist()
    separators = numpy.frombuffer(separators, dtype=numpy.uint8).tolist()
    square_rows = numpy.frombuffer(square_rows, dtype=numpy.int64).tolist()
    rank_rows = numpy.frombuffer(rank_rows, dtype=numpy.int64).tolist()
    assert len(square_rows) == len(rank_rows) == rows + 1
    faults = {row: (reason, at) for row, reason, at, _ in refused}
    out: list[tuple[object, ...]] = []
    for r in range(rows):
        s0, s1, r0, r1 = square_rows[r], square_rows[r + 1], rank_rows[r], rank_rows[r + 1]
        if r in faults:
            assert s0 == s1 and r0 == r1  # a refused row holds nothing
            out.append(faults[r])
        else:
            out.append((0, squares[s0:s1], lengths[r0:r1], separators[r0:r1]))
    return out


def broken(rng: random.Random) -> str:
    noise = ["^", "'", "+", "-", "^^", "*", " ", "\n", "/", "//", "///", "0", "01", "É", "9" * 6]
    text = random_placement(rng, EPIN_TOKENS)
    for _ in range(rng.randint(1, 2)):
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(noise) + text[at:]
    return text


def test_every_core_agrees_with_the_reference(core: ModuleType) -> None:
    rng = random.Random(61)
    texts = [*PLACEMENTS, *placements(200, seed=7), "K", "8", "19", "", "K'", "k^+p4+PK"]
    texts += [random_placement(rng, EPIN_TOKENS) for _ in range(500)]
    texts += [broken(rng) for _ in range(1500)]
    for epin in (True, False):
        got = rows_of(core.scan_boards(texts, epin, "mark"), len(texts))
        for text, row in zip(texts, got, strict=True):
            assert row == reference(text, epin, ROOM, ROOM), (text, epin)


def test_every_short_text_at_the_block_edges(core: ModuleType) -> None:
    """Every text of up to 3 characters of an alphabet of what a placement holds and what
    it must not, alone and where its neighbours straddle the compiled check's 64-byte
    blocks (after 61 and 63 letters, with a letter after it), and every text of 4: the
    fast road accepts exactly what the reference accepts, and gives its squares."""
    alphabet = ["K", "p", "+", "-", "^", "'", "/", "0", "1", "9", " ", "\x01", "é"]
    words = ["".join(t) for k in (1, 2, 3) for t in itertools.product(alphabet, repeat=k)]
    edges = [(pre, post) for pre in ("", "K" * 61, "K" * 63) for post in ("", "K")]
    texts = [pre + w + post for w in words for pre, post in edges]
    texts += ["".join(t) for t in itertools.product(alphabet, repeat=4)]
    for epin in (True, False):
        got = rows_of(core.scan_boards(texts, epin, "mark"), len(texts))
        for text, row in zip(texts, got, strict=True):
            assert row == reference(text, epin, ROOM, ROOM), (text, epin)


def test_the_cores_agree_on_errors_and_texts(core: ModuleType) -> None:
    rng = random.Random(67)
    texts = [broken(rng) if rng.random() < 0.3 else random_placement(rng, EPIN_TOKENS)]
    texts += [
        broken(rng) if rng.random() < 0.3 else random_placement(rng, EPIN_TOKENS)
        for _ in range(800)
    ]
    marked = core.scan_boards(texts, True, "mark")
    valid = {row for row, *_ in marked[5]} ^ set(range(len(texts)))
    assert valid and marked[5]
    board = Boards(marked, True)
    back = core.format_boards(
        board._flat,
        board._lengths,
        board._separators,
        board._square_rows,
        board._rank_rows,
        True,
    )
    assert [text for i, text in enumerate(texts) if i in valid] == [
        t for t in back if t is not None
    ]
    first = marked[5][0]
    with pytest.raises(ParseError) as caught:
        core.scan_boards(texts, True, "raise")
    assert (caught.value.index, caught.value.reason.value, caught.value.position) == first[:3]
    assert caught.value.token == texts[first[0]]


def test_squares_ranks_and_the_texts_back() -> None:
    texts = [PLACEMENTS[0], "K", "rnbk^/5//5/KBNR", None, "8//8"]
    board = Epin.boards(texts, errors="mark")
    squares = board.squares()
    assert squares.dtype == numpy.int16 and squares.shape == (5, 64)
    assert squares[1, 0] == Epin.parse("K").code and (squares[1, 1:] == CODE_NONE).all()
    assert (squares[3] == CODE_NONE).all()
    assert squares[2, :5].tolist() == [
        *(Epin.parse(t).code for t in "rnb"),
        Epin.parse("k^").code,
        -1,
    ]
    assert board.square_counts().tolist() == [64, 1, 18, 0, 16]
    offsets = board.rank_offsets()
    assert offsets.tolist() == [0, 8, 9, 13, 13, 15]
    assert board.rank_lengths()[9:13].tolist() == [4, 5, 5, 4]
    assert board.separators()[9:13].tolist() == [1, 2, 1, 0]
    assert board.separators()[13:15].tolist() == [2, 0]
    assert board.valid_mask().tolist() == [True, True, True, False, True]
    assert board.placements() == [PLACEMENTS[0], "K", "rnbk^/5//5/KBNR", None, "8//8"]
    [missing] = board.errors()
    assert (missing.index, missing.reason, missing.position, missing.token) == (
        3,
        Reason.MISSING,
        None,
        None,
    )
    with pytest.raises(ParseError) as caught:
        Epin.boards(texts)
    assert (caught.value.index, caught.value.reason) == (3, Reason.MISSING)


def test_the_squares_laid_out_by_each_core(core: ModuleType) -> None:
    scanned = core.scan_boards(["K2", None, "k^", "3/K"], True, "mark")
    out = numpy.zeros((4, 4), dtype=numpy.int16)
    core.lay_out_boards(scanned[0], scanned[3], out)
    k, king = Epin.parse("K").code, Epin.parse("k^").code
    assert out.tolist() == [[k, -1, -1, -1], [-1] * 4, [king, -1, -1, -1], [-1, -1, -1, k]]
    with pytest.raises(ValueError, match="row 0"):  # the first row holds 3 squares
        core.lay_out_boards(scanned[0], scanned[3], numpy.zeros((4, 2), dtype=numpy.int16))
    with pytest.raises(TypeError):
        core.lay_out_boards(scanned[0], scanned[3], numpy.zeros((4, 4), dtype=numpy.int32))
    # row starts that lie: before the squares, past them, far past them; never read
    flat = numpy.arange(100, dtype=numpy.int16)
    wide = numpy.zeros((1, 50), dtype=numpy.int16)
    for starts in ([-40, -10], [90, 110], [2**62, 2**62 + 10], [-(2**40), -(2**40) + 10]):
        with pytest.raises(ValueError, match="row 0"):
            core.lay_out_boards(flat, numpy.array(starts, numpy.int64), wide)
    # a first row start past 0 is where the rows begin, in both cores
    core.lay_out_boards(flat, numpy.array([5, 10], numpy.int64), wide)
    assert wide[0, :6].tolist() == [5, 6, 7, 8, 9, -1]


def test_missing_rows_take_no_room() -> None:
    """A missing row holds no text: the column's rooms are made from the rows' texts, and
    a missing row once counted the length the reader last gave (or none it ever gave)."""
    long = "8/" * 3000 + "8"  # 24,008 squares
    for _ in range(20):
        Epin.boards(["K" * 30, "x0"], errors="mark")
        board = Epin.boards([None, "K"], errors="mark")
        assert board.square_counts().tolist() == [0, 1]
    board = Epin.boards([long, *[None] * 200_000], errors="mark")
    assert len(board.errors()) == 200_000 and board.square_counts()[0] == 24_008


def test_pin_reads_no_derivation() -> None:
    board = Pin.boards(["K'3/8", "K3/8"], errors="mark")
    [error] = board.errors()
    assert (error.index, error.position, error.reason) == (0, 1, Reason.DERIVATION_IN_PIN)
    assert board.placements() == [None, "K3/8"] and board.notation == "PIN"
    with pytest.raises(ParseError, match="derivation"):
        Pin.boards(["K'3/8"])


def test_every_input_kind() -> None:
    pyarrow = pytest.importorskip("pyarrow")
    pandas = pytest.importorskip("pandas")
    texts = [*placements(50, seed=9), None, "K/", "8"]
    want = Epin.boards(texts, errors="mark")
    kinds: list[object] = [
        tuple(texts),
        iter(texts),
        numpy.array(texts, dtype=object),
        pyarrow.array(texts),
        pyarrow.array(texts, pyarrow.large_string()),
        pyarrow.chunked_array([texts[:20], texts[20:]]),
        pyarrow.array(texts).dictionary_encode(),
        pandas.Series(texts),
        pandas.Series(texts, dtype="string"),
        pandas.Series(texts, dtype="category"),
    ]
    for column in kinds:
        got = Epin.boards(column, errors="mark")
        assert (got.squares() == want.squares()).all(), type(column)
        assert got.placements() == want.placements(), type(column)
        assert [(e.index, e.position, e.reason) for e in got.errors()] == [
            (e.index, e.position, e.reason) for e in want.errors()
        ]
    valid = [t for t in texts if t not in (None, "K/")]
    assert (Epin.boards(numpy.array(valid)).squares() == Epin.boards(valid).squares()).all()
    series = pandas.Series(["8", "K/"], index=["a", "b"])
    with pytest.raises(ParseError) as caught:
        Epin.boards(series)
    assert (caught.value.index, caught.value.label) == (1, "b")
    with pytest.raises(TypeError):
        Epin.boards([b"8", b"K"])
    with pytest.raises(TypeError):
        Epin.boards("8/8")
    with pytest.raises(TypeError):
        Epin.boards(["8", 3])
    with pytest.raises(ParseError):  # the refused row before the one that cannot be read
        Epin.boards(["8", "K/", 3])
    with pytest.raises(ValueError, match="errors"):
        Epin.boards(["8"], errors="ignore")


def test_rows_past_every_size() -> None:
    wide = "K" * 5000 + "/" + "60000"
    tall = "/".join(["k2"] * 700)
    layers = "//".join(["1"] * 600)
    texts = [wide, tall, layers, str(ROOM), str(ROOM + 1), f"{ROOM}K", "K" * (ROOM + 1), "8"]
    board = Epin.boards(texts, errors="mark")
    assert board.square_counts().tolist() == [65000, 2100, 600, ROOM, 0, 0, 0, 8]
    assert board.squares().shape == (8, ROOM)
    assert numpy.diff(board.rank_offsets()).tolist() == [2, 700, 600, 1, 0, 0, 0, 1]
    faults = [(e.index, e.reason, e.position) for e in board.errors()]
    assert faults == [
        (4, Reason.RUN_TOO_LONG, 0),
        (5, Reason.NO_ROOM, len(str(ROOM))),
        (6, Reason.NO_ROOM, ROOM),
    ]
    assert board.placements() == [*texts[:4], None, None, None, "8"]
    many = placements(300, seed=11) * 40  # 12000 rows, past every batch
    many[7777] = "8/8 "
    board = Epin.boards(many, errors="mark")
    assert len(board) == 12000 and board.squares().shape[0] == 12000
    assert [(e.index, e.position) for e in board.errors()] == [(7777, 3)]
    assert board.placements()[:7777] == many[:7777]
    empty = Epin.boards([])
    assert empty.squares().shape == (0, 0) and empty.placements() == []
    assert empty.rank_offsets().tolist() == [0] and len(empty.rank_lengths()) == 0


def test_a_non_ascii_row_counts_characters() -> None:
    board = Epin.boards(["8/8", "KÉ/8", "K/8 É"], errors="mark")
    got = [(e.index, e.position, e.reason) for e in board.errors()]
    assert got == [(1, 1, Reason.NOT_A_LETTER), (2, 3, Reason.WHITESPACE)]


def test_a_refused_row_is_named_alike_raised_or_marked(core: ModuleType) -> None:
    """index is the row, under raise and under mark, in boards and in tokenize_many, and
    the error's row says so; pickled and copied, the row stays."""
    import copy
    import pickle

    texts = ["8/K/Q", "K^^/8", "K", None, "Q/K/"]
    marked = Epin.boards(texts, errors="mark")
    assert [(e.index, e.row) for e in marked.errors()] == [(1, 1), (3, 3), (4, 4)]
    with pytest.raises(ParseError) as caught:
        Epin.boards(texts)
    assert (caught.value.index, caught.value.row) == (1, 1)
    for epin in (True, False):
        with pytest.raises(ParseError) as caught:
            core.scan_boards(texts, epin, "raise")
        assert (caught.value.index, caught.value.row) == (1, 1)
    tokens = Epin.tokenize_many(texts, errors="mark")  # entries: K, Q, the mark, K, Q, K
    assert list(tokens.invalid) == [2]
    [error] = tokens.errors()
    assert (error.index, error.row, error.position) == (1, 1, 2)
    with pytest.raises(ParseError) as caught:
        Epin.tokenize_many(texts)
    assert (caught.value.index, caught.value.row, caught.value.position) == (1, 1, 2)
    for made in (pickle.loads(pickle.dumps(error)), copy.copy(error), type(error)(*error.args)):
        assert (made.index, made.row, str(made)) == (1, 1, str(error))
    assert len(ParseError("K^^", Reason.EMPTY, "EPIN", 3).args) == 7  # no row: as before
    assert ParseError("K^^", Reason.EMPTY, "EPIN", 3).row is None
    again = pickle.loads(pickle.dumps(tokens))
    assert [(e.index, e.row) for e in again.errors()] == [(1, 1)]
    assert [e.row for e in Epin.parse_many(["K", "K^^"], errors="mark").errors()] == [None]


def test_labelled_errors_keep_their_row() -> None:
    pandas = pytest.importorskip("pandas")
    series = pandas.Series(["8/K/Q", "K^^/8", None], index=["a", "b", "c"])
    marked = Epin.boards(series, errors="mark")
    assert [(e.index, e.row, e.label) for e in marked.errors()] == [(1, 1, "b"), (2, 2, "c")]
    [error] = Epin.tokenize_many(series, errors="mark").errors()
    assert (error.index, error.row, error.label) == (1, 1, "b")
    with pytest.raises(ParseError) as caught:
        Epin.boards(series)
    assert (caught.value.index, caught.value.row, caught.value.label) == (1, 1, "b")


# Runs of digits of every length to 12, around 4300 (int()'s limit on a str's digits,
# which the twin once met) and to 10,000; their values around a board's room.
RUN_LENGTHS = [*range(1, 13), 4299, 4300, 4301, 4302, 9999, 10000]


def test_a_run_of_any_length_is_judged_alike() -> None:
    from conftest import CORES

    texts = []
    for k in RUN_LENGTHS:
        texts += ["1" * k, "9" * k, f"K/{'1' * k}", f"K{'7' * k}K", "1" + "0" * (k - 1)]
    texts += [str(ROOM), str(ROOM + 1), f"K{ROOM - 1}", f"K{ROOM}", "65535K", "65536K"]
    answers = []
    for core in CORES:
        scanned = core.scan_boards(texts, True, "mark")
        answers.append(rows_of(scanned, len(texts)))
        with pytest.raises(ParseError) as caught:
            core.scan_boards(["8", "1" * 4301], True, "raise")
        assert (caught.value.reason, caught.value.position) == (Reason.RUN_TOO_LONG, 0)
    assert all(answer == answers[0] for answer in answers)
    for text, row in zip(texts, answers[0], strict=True):
        digits = text.strip("K/")
        before = text[: text.index(digits)].count("K")  # squares before the run
        too_long = len(digits) > 5 or int(digits) + before > ROOM
        assert (row[0] == Reason.RUN_TOO_LONG.value) == too_long, text
        if too_long:
            assert row[1] == text.index(digits), text
    board = Epin.boards(["1" * 4301, "1" * 10_000, "8"], errors="mark")
    assert [(e.row, e.reason, e.position) for e in board.errors()] == [
        (0, Reason.RUN_TOO_LONG, 0),
        (1, Reason.RUN_TOO_LONG, 0),
    ]


def scanned_lie(**lies: object) -> list[object]:
    """A scan of ["K", None] (squares, lengths, separators, square rows, rank rows,
    refused), one part or more replaced by a lie."""
    from array import array

    parts: dict[str, object] = {
        "squares": array("h", [Epin.parse("K").code]),
        "lengths": array("i", [1]),
        "separators": array("B", [0]),
        "square_rows": array("q", [0, 1, 1]),
        "rank_rows": array("q", [0, 1, 1]),
        "refused": [(1, Reason.MISSING.value, None, None)],
    }
    parts.update(lies)
    return list(parts.values())


# Columns that do not agree (ValueError) or are not columns (TypeError).
LIES: list[tuple[dict[str, object], type[Exception]]] = [
    ({"rank_rows": numpy.array([1 << 40, (1 << 40) + 1, (1 << 40) + 1])}, ValueError),
    ({"square_rows": numpy.array([-40, -39, -39])}, ValueError),
    ({"square_rows": numpy.array([0, 2, 1])}, ValueError),  # going back
    ({"rank_rows": numpy.array([0, 5, 5])}, ValueError),  # past the ranks' end
    ({"square_rows": numpy.array([0, 1, 1, 1])}, ValueError),  # more rows than ranks
    ({"square_rows": numpy.array([], numpy.int64)}, ValueError),
    ({"separators": numpy.array([0, 0], numpy.uint8)}, ValueError),  # lengths' count
    ({"squares": numpy.array([Epin.parse("K").code, 3], numpy.int16)}, ValueError),
    ({"squares": numpy.array([1], numpy.int32)}, TypeError),  # not int16
    ({"square_rows": numpy.array([0.0, 1.0, 1.0])}, TypeError),
    ({"squares": b"\x00"}, ValueError),  # half a square
    ({"squares": "K"}, TypeError),
    ({"refused": []}, ValueError),  # a row of no rank that is not refused
    ({"refused": [(0, 15, None, None), (1, 15, None, None)]}, ValueError),  # read
    ({"refused": [(2, 15, None, None)]}, ValueError),  # no row 2
    ({"refused": [(1, 0, None, None)]}, ValueError),  # no reason 0
    ({"refused": [(1, 22, None, None)]}, ValueError),  # past the last reason
    ({"refused": [(1, 15, -1, None)]}, ValueError),
    ({"refused": [(1, "missing", None, None)]}, TypeError),
    ({"refused": [(True, 15, None, None)]}, TypeError),
    ({"refused": [[1, 15, None, None]]}, TypeError),
    ({"refused": [(1, 15, None)]}, TypeError),
    ({"refused": None}, TypeError),
    # boards no scan gives: each refused where made, not only by placements()
    ({"lengths": numpy.array([2**31 - 1], numpy.int32)}, ValueError),  # squares it lacks
    ({"lengths": numpy.array([0], numpy.int32)}, ValueError),  # a rank of no square
    ({"separators": numpy.array([1], numpy.uint8)}, ValueError),  # "/" after the last
    ({"separators": numpy.array([3], numpy.uint8)}, ValueError),
    ({"squares": numpy.array([9999], numpy.int16)}, ValueError),  # no token's code
    ({"squares": numpy.array([-2], numpy.int16)}, ValueError),
]


@pytest.mark.parametrize(("lies", "error"), LIES, ids=[str(i) for i in range(len(LIES))])
def test_a_lying_boards_is_refused_where_it_is_made(
    lies: dict[str, object], error: type[Exception]
) -> None:
    import copyreg
    import pickle

    assert Boards(scanned_lie(), True).placements() == ["K", None]  # the truth is taken
    with pytest.raises(error):
        Boards(scanned_lie(**lies), True)

    class Forged:  # a pickle of a Boards written by hand, in the default slots state
        def __reduce__(self) -> tuple[object, ...]:
            names = ("_flat", "_lengths", "_separators", "_square_rows", "_rank_rows")
            state = dict(zip((*names, "_refused"), scanned_lie(**lies), strict=True))
            made = (Boards, object, None)  # object.__new__(Boards), then the state
            return (copyreg._reconstructor, made, (None, {**state, "_epin": True}))

    with pytest.raises(error):
        pickle.loads(pickle.dumps(Forged()))


def test_the_documented_lie_is_refused_at_both_depths(core: ModuleType) -> None:
    """A Boards whose rank rows lie, made, unpickled, changed after it was made, or
    handed to the core's format_boards: ValueError, never a read out of bounds."""
    import pickle
    from array import array

    lie = (array("h", [328]), array("i", [1]), array("B", [0]), array("q", [0, 1]))
    far = array("q", [1 << 40, (1 << 40) + 1])
    with pytest.raises(ValueError, match="rank rows"):
        Boards((*lie, far, []), True)
    board = Epin.boards(["K"])
    board._rank_rows = numpy.frombuffer(far, numpy.int64)
    with pytest.raises(ValueError, match="rank rows"):
        pickle.loads(pickle.dumps(board))
    with pytest.raises(ValueError, match="row 0"):
        board.placements()
    with pytest.raises(ValueError, match="row 0"):
        core.format_boards(*lie, far, True)
    # a Boards over the caller's own columns, changed after it was made
    rank_rows = array("q", [0, 1])
    board = Boards((*lie, rank_rows, []), True)
    assert board.placements() == ["K"]
    rank_rows[1] = 1 << 40
    with pytest.raises(ValueError, match="row 0"):
        board.placements()
    assert board.valid_mask().tolist() == [True] and board.errors() == []


LYING_STARTS = [
    ([0, 1], [1 << 40, (1 << 40) + 1]),
    ([-5, 1], [0, 1]),
    ([0, 1], [-1, 1]),
    ([0, 1 << 40], [0, 1]),
    ([1, 0], [0, 1]),  # going back
    ([0, 1], [1, 0]),
    ([0, 2], [0, 1]),  # past the squares
    ([0, 1], [0, 2]),  # past the ranks
]


@pytest.mark.parametrize(("square_rows", "rank_rows"), LYING_STARTS)
def test_format_boards_judges_the_row_starts_before_reading(
    core: ModuleType, square_rows: list[int], rank_rows: list[int]
) -> None:
    columns = (numpy.array([328], numpy.int16), numpy.array([1], numpy.int32))
    columns += (numpy.array([0], numpy.uint8),)
    starts = numpy.array(square_rows, numpy.int64), numpy.array(rank_rows, numpy.int64)
    with pytest.raises(ValueError, match="row 0"):
        core.format_boards(*columns, *starts, True)
    board = Boards._scanned((*columns, *starts, []), True, None)  # as a Boards changed
    with pytest.raises(ValueError, match="row 0"):
        board.placements()
    if square_rows != [0, 1]:
        with pytest.raises(ValueError, match="row 0"):
            board.squares()
    assert len(board.valid_mask()) == 1 and board.errors() == []
    with pytest.raises(ValueError, match="rows"):  # as many rows, in both
        core.format_boards(*columns, starts[0], numpy.array([0, 1, 1], numpy.int64), True)


LYING_BOARDS = [  # (squares, rank lengths, separators): one row, each a lie
    ([328], [0], [0]),  # a rank of no square
    ([328], [2], [0]),  # more squares in the ranks than there are
    ([328, 328], [1], [0]),  # fewer
    ([328, 328], [1, 1], [3, 0]),  # a separator neither "/" nor "//"
    ([1000], [1], [0]),  # no token's code
    ([-7], [1], [0]),
]


@pytest.mark.parametrize(("squares", "lengths", "separators"), LYING_BOARDS)
def test_both_cores_refuse_a_lying_board_alike(
    squares: list[int], lengths: list[int], separators: list[int]
) -> None:
    from conftest import CORES

    columns = (
        numpy.array(squares, numpy.int16),
        numpy.array(lengths, numpy.int32),
        numpy.array(separators, numpy.uint8),
        numpy.array([0, len(squares)], numpy.int64),
        numpy.array([0, len(lengths)], numpy.int64),
    )
    said = set()
    for core in CORES:
        with pytest.raises(ValueError, match="row 0 is no board") as caught:
            core.format_boards(*columns, True)
        said.add(str(caught.value))
    assert len(said) == 1, said
    one = [numpy.array([1], numpy.int32), numpy.array([0], numpy.uint8)]
    one += [numpy.array([0, 1], numpy.int64)] * 2
    pin = (numpy.array([Epin.parse("K'").code], numpy.int16), *one)
    for core in CORES:  # a derived token's code, in PIN
        assert core.format_boards(*pin, True) == ["K'"]
        with pytest.raises(ValueError, match="row 0 is no board: derivation"):
            core.format_boards(*pin, False)


def test_pieces_change_no_board() -> None:
    """The compiled core scans, lays out and writes back a piece of rows at a time:
    pieces of 1 byte on up give what the whole does."""
    from conftest import CORES

    compiled = [core for core in CORES if core.IMPLEMENTATION == "cython"]
    if not compiled:
        pytest.skip("no compiled core")
    core = compiled[0]
    texts = [*placements(60, seed=5), None, "K/", "", "8" * 3, *PLACEMENTS]

    def outcome(errors: str) -> object:
        try:
            scanned = core.scan_boards(texts, True, errors)
        except ParseError as error:
            return (error.index, error.position, error.reason)
        board = Boards(scanned, True)
        return (rows_of(scanned, len(texts)), board.squares().tolist(), board.placements())

    whole = [outcome(errors) for errors in ("mark", "raise")]
    for size in (1, 7, 64, 1000):
        was = core.use_piece_size(size)
        try:
            assert [outcome(errors) for errors in ("mark", "raise")] == whole, size
        finally:
            core.use_piece_size(was)


def test_a_boards_pickles_and_copies_whole() -> None:
    import copy
    import pickle

    texts = [PLACEMENTS[0], None, "K/", "rnbk^/5//5/KBNR"]
    board = Epin.boards(texts, errors="mark")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(board, protocol))
        assert (again.squares() == board.squares()).all() and again.notation == "EPIN"
        assert again.placements() == board.placements()
        assert [(e.row, e.reason, e.position) for e in again.errors()] == [
            (e.row, e.reason, e.position) for e in board.errors()
        ]
    assert copy.deepcopy(board).placements() == copy.copy(board).placements()
    pandas = pytest.importorskip("pandas")
    labelled = Pin.boards(pandas.Series(["8", None], index=["x", "y"]), errors="mark")
    again = pickle.loads(pickle.dumps(labelled))
    assert [(e.label, e.notation) for e in again.errors()] == [("y", "PIN")]


# A Boards made from columns of the right dtype but the other byte order is refused
# (TypeError), as one of another dtype is: their items would be read as the machine's,
# squares() giving codes no token has and rank lengths no board has.
@pytest.mark.parametrize("column", [0, 1, 3, 4])
def test_a_column_of_the_other_byte_order_is_a_type_error(column: int) -> None:
    board = Epin.boards(["K/q", None, "3//2"], errors="mark")
    parts = [numpy.asarray(c) for c in (board._flat, board._lengths, board._separators,
                                     board._square_rows, board._rank_rows)]  # fmt: skip
    parts[column] = parts[column].astype(parts[column].dtype.newbyteorder())
    with pytest.raises(TypeError, match="must hold"):
        Boards((*parts, board._refused), True)
    parts[column] = parts[column].astype(parts[column].dtype.newbyteorder())  # back
    assert Boards((*parts, board._refused), True).placements() == ["K/q", None, "3//2"]


def test_a_pin_boards_holds_no_derived_code_and_labels_are_an_index() -> None:
    """A PIN Boards whose square holds a derived (EPIN-only) code is refused where made;
    labels that are a string or a number are no index of the rows (TypeError), and
    numpy's bool for epin is named for what it is."""
    derived = Epin.parse("K'").code
    with pytest.raises(ValueError, match="no PIN token's code"):
        Boards(scanned_lie(squares=numpy.array([derived], numpy.int16)), False)
    assert Boards(scanned_lie(), False).placements() == ["K", None]
    for labels in ("ab", 5):
        with pytest.raises(TypeError, match="labels must be an index"):
            Boards(scanned_lie(), True, labels)
    with pytest.raises(TypeError, match="numpy"):
        Boards(scanned_lie(), numpy.bool_(True))  # type: ignore[arg-type]
