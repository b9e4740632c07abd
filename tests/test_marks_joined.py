"""Marks of results made of parts: an iterable read a chunk at a time (16,384 items a
chunk) and ``a + b``.  Their marked entries stay columns where the parts' are, and
every error is what the twin says of the whole input read at once: token, reason,
index, offset, line."""

from __future__ import annotations

import pickle
import random
from array import array
from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest
from conftest import CORES

from sashite_epin import _core_py
from sashite_epin._frames import _Capsules

CHUNK = 16_384
VALID = ["K", "+k^'", "-p", "S^", "r'", "+B", "k^"]
INVALID = ["K^^", "+", "KQ", "", "k'^", "--p", "Q''", "x1", "\u212a", "K" * 20]


class Token(str):
    """A str subclass: read by its characters."""


def _polars_or_none() -> ModuleType | None:
    try:
        import polars
    except ImportError:
        return None
    return polars


def entries(length: int, marked: set[int], seed: int = 5) -> list[object]:
    rng = random.Random(seed)
    out: list[object] = []
    for i in range(length):
        if i in marked:
            out.append(rng.choice([None, float("nan"), *INVALID]))
        else:
            out.append(Token(VALID[i % 7]) if i % 11 == 0 else VALID[i % 7])
    return out


def outcome(result: object) -> object:
    errors = [(e.token if e.token == e.token else "nan", e.reason, e.index, e.position, e.line)
              for e in result.errors()]  # type: ignore[attr-defined]  # fmt: skip
    return (np.asarray(result).tobytes(), list(result.invalid),  # type: ignore[attr-defined]
            errors, bytes(result.reason_codes()))  # type: ignore[attr-defined]  # fmt: skip


COLUMNS = [
    entries(3 * CHUNK + 5, {0, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 4}),
    entries(2 * CHUNK + 7, set(range(0, 2 * CHUNK + 7, 2))),
    entries(CHUNK + 1, {CHUNK}),
    entries(CHUNK, set()),
    entries(CHUNK + 3, set(range(CHUNK + 3))),
]
_WANT: dict[tuple[int, bool], object] = {}


def want(k: int, epin: bool) -> object:
    """The twin's answer on column k read as a list (once: the twin is slow)."""
    if (k, epin) not in _WANT:
        _WANT[(k, epin)] = outcome(_core_py.parse_many(COLUMNS[k], epin, "mark"))
    return _WANT[(k, epin)]


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("shape", ["iterator", "generator", "map"])
def test_an_iterable_gives_what_its_list_gives(core: ModuleType, shape: str) -> None:
    for k, column in enumerate(COLUMNS):
        make = {
            "iterator": lambda c=column: iter(c),
            "generator": lambda c=column: (e for e in c),
            "map": lambda c=column: map(lambda e: e, c),
        }[shape]
        for epin in (True, False):
            assert outcome(core.parse_many(make(), epin, "mark")) == want(k, epin)


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_an_iterables_marks_survive_a_pickle_and_a_selection(core: ModuleType) -> None:
    column = COLUMNS[1]
    got = core.parse_many(iter(column), True, "mark")
    assert outcome(pickle.loads(pickle.dumps(got))) == want(1, True)
    assert outcome(got[::3]) == outcome(_core_py.parse_many(column[::3], True, "mark"))


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_sum_of_results_keeps_every_mark(core: ModuleType) -> None:
    column = entries(5000, {i for i in range(5000) if i % 3 == 0})
    texts = [e if isinstance(e, str) else None for e in column]
    parts = [
        core.parse_many(column[:1000], True, "mark"),  # objects
        core.parse_many(pa.array(texts[1000:3000], pa.string()), True, "mark"),  # texts
        core.parse_many(column[3000:], True, "mark"),
        core.parse_many([], True, "mark"),
    ]
    whole = parts[0] + parts[1] + parts[2] + parts[3]
    want = _core_py.parse_many(column[:1000] + texts[1000:3000] + column[3000:], True, "mark")
    assert outcome(whole) == outcome(want)
    objects = parts[0] + parts[2]
    assert outcome(objects) == outcome(
        _core_py.parse_many(column[:1000] + column[3000:], True, "mark"))  # fmt: skip


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"])
def test_an_index_array_keeps_the_marks_it_picks(core: ModuleType, dtype: str) -> None:
    """A gather by an integer array (a categorical's codes): the marked entries it picks,
    repeated and from the end, keep their errors, as the twin's do."""
    column = entries(100, {i for i in range(100) if i % 3 == 0})
    texts = [e if isinstance(e, str) else None for e in column]
    rng = random.Random(dtype)
    signed = not dtype.startswith("u")
    picks = [rng.randrange(-100 if signed and dtype != "int8" else 0, 100) for _ in range(5000)]
    if dtype == "int8":
        picks = [p % 100 - (100 if p % 2 else 0) for p in picks]
    positions = np.array(picks, dtype=dtype)
    for data in (column, pa.array(texts, pa.string())):
        got = core.parse_many(data, True, "mark")[positions]
        want = _core_py.parse_many(data, True, "mark")[positions]
        assert outcome(got) == outcome(want)
    with pytest.raises(IndexError):
        core.parse_many(column, True, "mark")[np.array([0, 100], dtype=dtype)]
    if signed:  # past the start, counted from the end: out of range too
        lowest = np.iinfo(dtype).min
        for past in ([0, -101], [lowest], [5, lowest, 0]):
            if min(past) >= lowest:
                with pytest.raises(IndexError):
                    core.parse_many(column, True, "mark")[np.array(past, dtype=dtype)]


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_gather_reads_marks_by_row_through_pieces_of_every_density(core: ModuleType) -> None:
    """Gathers past the core's 1,024-entry pieces, whose marked share swings from none
    to all and back (a piece read with a test per entry after one read by counting, and
    the reverse), from sources of every kind of marks (a list's, bytes' read later, a
    selection's), with more source entries than picks (the marks searched by row)
    and fewer (read from a table by row), strided: the twin's marks each time."""
    column = entries(300, set(range(0, 300, 2)) | set(range(150, 180)))
    rng = random.Random(7)
    clean = [i for i in range(300) if i % 2 and not 150 <= i < 180]
    marked = [i for i in range(300) if i % 2 == 0]
    picks: list[int] = []
    for piece in range(9):  # 9 x 1,100 picks: every piece boundary lands mid-way
        share = (0.0, 1.0, 0.02, 0.5, 0.0, 0.9, 0.1, 1.0, 0.0)[piece]
        picks += [rng.choice(marked) if rng.random() < share else rng.choice(clean)
                  for _ in range(1100)]  # fmt: skip
    joined = "\n".join(e if isinstance(e, str) and "\n" not in e and e else "K^^"
                       for e in column).encode()  # fmt: skip
    for data in (column, joined):
        ours, twin = core.parse_many(data, True, "mark"), _core_py.parse_many(data, True, "mark")
        for positions in (
            np.array(picks, np.int64),
            np.array(picks, np.int16)[::3],  # strided
            np.array(picks[:200], np.int32),  # fewer picks than entries: searched
        ):
            got, expect = ours[positions], twin[positions]
            assert outcome(got) == outcome(expect)
            again = np.array(picks[::-1], np.uint16)  # a selection's selection
            assert outcome(got[again % len(got)]) == outcome(expect[again % len(expect)])
    big = np.array([*picks, 300], np.int64)  # out of range in the tenth piece
    with pytest.raises(IndexError, match="300"):
        core.parse_many(column, True, "mark")[big]


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_selections_export_copies_its_sources_texts(core: ModuleType) -> None:
    """The export of a selection of marked entries (a gather, a mask, a category
    column's rows) copies each picked entry's text from its source's export columns:
    texts of every length, not UTF-8 (bytes), lone surrogates and missing values, picked
    in any order and repeated, few or most of the source's; the twin's export."""
    texts = [b"K", b"x\xff", b"", b"+K^'X" * 5, b"\xc3\xa9", b"q", b"KK", b"-p^'"]
    joined = b" ".join(texts * 40)
    listed = ["K", "\ud800x", None, "é" * 9, "+K^'X" * 5, "q", "", "KK"] * 40
    rng = random.Random(11)
    arrow = pa.array([t if t != "\ud800x" else "x" for t in listed], pa.string())
    for data in (joined, listed, arrow):
        ours = core.parse_many(data, True, "mark")
        twin = _core_py.parse_many(data, True, "mark")
        count = len(ours)
        for picks in (
            np.array([rng.randrange(count) for _ in range(5 * count)], np.int64),
            np.array([rng.randrange(count) for _ in range(3)], np.int64),
            np.arange(count)[::-1].copy(),
            np.arange(count) % 3 != 1,
        ):
            got, want = ours[picks], twin[picks]
            assert pa.array(got).equals(pa.array(want))
            assert [e.token for e in got.errors()] == [e.token for e in want.errors()]
            assert pa.array(got).equals(pa.array(want))  # once its marks are made


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_selections_export_at_each_side_of_copying_its_sources_texts(core: ModuleType) -> None:
    """A selection's marks are copied from its source's export columns where it picks
    at least a sixteenth as many as the source has (the compiled export's
    SOURCE_PER_PICK), else made entry by entry: picks of a sixteenth less one, a
    sixteenth and a sixteenth plus one of the source's marks, and as many as it has, and
    a selection of that selection (whose source is still the first), export as the
    parse of the picked inputs themselves does, by pa.array and by the token column's
    own export (utf8_view, what to_polars takes; to_polars itself where polars is
    installed), on either core."""
    polars = _polars_or_none()
    rng = random.Random(17)
    listed: list[object] = [
        rng.choice(["K", "\ud800x", None, "é" * 9, "+K^'X" * 5, "q", "", Token("KK")])
        for _ in range(4_001)
    ]
    arrow = pa.array([t if t != "\ud800x" else "x" for t in listed], pa.string())
    for data in (listed, arrow):
        result = core.parse_many(data, True, "mark")
        inputs = data.to_pylist() if isinstance(data, pa.Array) else data
        marked = [e.index for e in result.errors()]
        clean = sorted(set(range(len(result))) - set(marked))[:2]
        least = -(-len(marked) // 16)  # the fewest picks copied from the source's columns
        for picks in (least - 1, least, least + 1, len(marked)):
            rows = np.array(rng.choices(marked, k=picks) + clean, np.int64)
            rows = rows[np.argsort([rng.random() for _ in rows])]
            chosen = result[rows]
            again = rows[np.arange(len(rows) - 1, -1, -2)]
            for got, at in ((chosen, rows), (chosen[np.arange(len(rows) - 1, -1, -2)], again)):
                want = _core_py.parse_many([inputs[int(i)] for i in at], True, "mark")
                assert pa.array(got).equals(pa.array(want))
                views = getattr(got, "_token_view_arrow", None)
                if views is not None:
                    assert (
                        pa.array(_Capsules(views())).to_pylist()
                        == pa.array(want).field("token").to_pylist()
                    )
                if polars is not None:
                    assert got.to_polars().equals(want.to_polars())
                assert [(e.token, e.index) for e in got.errors()] == [
                    (e.token, e.index) for e in want.errors()
                ]


class Lying(str):
    """A str subclass whose own encode and __str__ lie: the export reads its characters."""

    def encode(self, *args: object) -> bytes:  # type: ignore[override]
        return b"LIE"

    def __str__(self) -> str:
        return "LIE"


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("length", [1, 7, 8, 9, 1_000])
def test_a_lists_marked_items_export_as_the_twins(core: ModuleType, length: int) -> None:
    """A list's marked items go into the export read where the result keeps them: exact
    str by their UTF-8, a subclass by its characters (not its own encode), lone
    surrogates escaped, missing values (None, NaN) null, texts long enough that the
    export's buffer grows past its first room (8 bytes a mark) more than once; each
    export the same, every field as the twin's."""
    rng = random.Random(length)
    kinds: list[object] = [
        "x1", Lying("zz"), None, float("nan"), "\ud800", "é" * 50, "\U0001f600", "",
        " K", "K" * 300, "+K^'" * 40, "Q''", Token("KQ"),
    ]  # fmt: skip
    items = [rng.choice([*kinds, "K", "+p^'"]) for _ in range(length)]
    ours = core.parse_many(items, True, "mark")
    twin = _core_py.parse_many(items, True, "mark")
    want = pa.array(twin)
    for _ in range(2):  # made again at each export
        assert pa.array(ours).equals(want)
    assert pa.table(ours).equals(pa.table(twin))
    assert ours.to_pandas().equals(twin.to_pandas())


def _u_array(texts: list[list[int]], width: int) -> np.ndarray:
    """A numpy U array of these code units (any 32-bit values, NUL-padded to width)."""
    units = [t + [0] * (width - len(t)) for t in texts]
    return np.frombuffer(np.array(units, dtype=np.uint32).tobytes(), dtype=f"U{width}")


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_marked_texts_that_are_not_all_utf8_export_as_the_twins(core: ModuleType) -> None:
    """Marks kept as texts that are not all UTF-8 (a numpy U array's code units; bytes
    with bytes that are no UTF-8) are written entry by entry: a U element's code points
    as UTF-8 (ASCII, 2-, 3- and 4-byte ones, NULs inside), a unit that is no Unicode
    scalar value (a lone surrogate, past U+10FFFF) as export_text says, each bytes text
    as it is where it is UTF-8 and escaped where not; every field as the twin's, at each
    export."""
    rng = random.Random(3)
    kinds = [
        [ord("K")], [ord("x"), ord("1")], [0xE9, 0x20AC, 0x1F600], [0xD800], [0xDFFF, 75],
        [0x110000], [0xFFFFFFFF], [ord("K"), 0, ord("q")], [0x10FFFF, 0x7F, 0x80, 0x7FF, 0x800],
        [ord("+"), ord("K"), ord("^"), ord("'")], [0xFFFF, 0xE000],
    ]  # fmt: skip
    chosen = [rng.choice(kinds) for _ in range(3_000)]
    joined = b" ".join(
        rng.choice([b"K", b"x\xff", b"\xc3\xa9t", b"\xed\xa0\x80", b"+q^'", b"\xf4\x90\x80\x80"])
        for _ in range(3_000)
    )
    inputs: list[object] = [_u_array(chosen, 5), _u_array(chosen[:1], 5), joined]
    if hasattr(np.dtypes, "StringDType"):
        strings = ["K", "é" * 3, None, "x1", "\U0001f600", "+K^'"] * 50
        inputs.append(np.array(strings, dtype=np.dtypes.StringDType(na_object=None)))
    for data in inputs:
        ours = core.parse_many(data, True, "mark")
        twin = _core_py.parse_many(data, True, "mark")
        want = pa.array(twin)
        for _ in range(2):
            assert pa.array(ours).equals(want)
        picks = np.arange(len(ours))[::-3].copy()
        assert pa.array(ours[picks]).equals(pa.array(twin[picks]))


COMPILED = [core for core in CORES if core.IMPLEMENTATION != "python"]


@pytest.mark.parametrize("core", COMPILED, ids=lambda core: core.IMPLEMENTATION)
def test_a_lists_marks_replaced_while_exported_change_nothing_it_reads(core: ModuleType) -> None:
    """The export reads a list's marked items from the tuple the result keeps (no code
    can resize it); Python code run during the export (a profile hook here; a signal
    handler, a finalizer or another thread as well) that replaces the marks' columns
    changes nothing the export reads: it gives what the twin gives."""
    import sys

    items = [Token("KQ"), *["x1"] * 5000]
    result = core.parse_many(items, True, "mark")
    marks = result.__reduce__()[1][2]  # the result's own marks
    assert type(marks._objects) is tuple

    def hook(frame: object, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name == "export_text":  # type: ignore[attr-defined]
            sys.setprofile(None)
            marks._objects, marks._reasons = (), b""

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        got = pa.array(result)
    finally:
        sys.setprofile(previous)
    assert got.equals(pa.array(_core_py.parse_many(items, True, "mark")))
    with pytest.raises(ValueError, match="count"):  # the columns now say no mark
        pa.array(result)


@pytest.mark.parametrize("core", COMPILED, ids=lambda core: core.IMPLEMENTATION)
@pytest.mark.parametrize(
    ("mark", "error"),
    [
        (["x1", 1, None, None], TypeError),  # a list where a tuple was
        (None, TypeError),
        (("x1",), TypeError),
        (("x1", 0, None, None), ValueError),
        (("x1", 22, None, None), ValueError),  # past the last Reason
        (("x1", 101, None, None), ValueError),
        (("x1", 255, None, None), ValueError),
        (("x1", 300, None, None), ValueError),
        (("x1", -1, None, None), ValueError),
        (("x1", "1", None, None), TypeError),
    ],
)
def test_an_unpickled_results_tampered_marks_raise_at_export(
    core: ModuleType, mark: object, error: type[Exception]
) -> None:
    """An unpickled result keeps its marks as a list of tuples: a mark changed there
    after the unpickling's checks is refused by the export with an exception, never
    read as a tuple's memory nor written as a dictionary index outside the reason
    field's words."""
    result = pickle.loads(pickle.dumps(core.parse_many(["x1", "K"], True, "mark")))
    result.__reduce__()[1][2][0] = mark
    with pytest.raises(error):
        pa.array(result)
    result.__reduce__()[1][2][0] = ("x1", 7, None, None)
    assert pa.array(result).equals(pa.array(_core_py.parse_many(["x1", "K"], True, "mark")))


def test_an_unpickled_results_tuple_subclass_marks_export_as_the_twins(core: ModuleType) -> None:
    """Marks that are a tuple subclass (a named tuple), as the unpickling takes them,
    export as plain tuples do."""
    import collections

    mark = collections.namedtuple("mark", "token reason offset line")
    epin, records = core.parse_many(["x1", "K"], True, "mark").__reduce__()[1][:2]
    result = core.rebuild_token_array(epin, records, [mark("x1", 7, None, None)])
    assert pa.array(result).equals(pa.array(_core_py.parse_many(["x1", "K"], True, "mark")))


def test_marks_read_later_give_a_column_another_thread_read_meanwhile() -> None:
    """Marks whose columns are read when first asked for (a numpy U4 array's, kept as
    keys): a thread that found a column's slot empty reaches __getattr__ after another
    thread has read them all; it gets the column, not AttributeError (an export or
    errors() of one result from threads raised AttributeError('_texts') now and then)."""
    from sashite_epin import _marks

    reads: list[int] = []

    def read() -> tuple[object, ...]:
        reads.append(1)
        return b"xy", array("q", [1, 2]), b"\x06\x06", None

    marks = _marks.MarkedTexts.read_later(2, read)
    assert marks._texts == b"xy"  # this thread reads them all
    # what the other thread's lookup, having found the slots empty, calls next
    for name in ("_texts", "_ends", "_reasons", "_lines"):
        assert _marks.MarkedTexts.__getattr__(marks, name) is getattr(marks, name)
    assert reads == [1]
    with pytest.raises(AttributeError):
        _marks.MarkedTexts.__getattr__(marks, "_other")
    assert [m[0] for m in marks] == [b"x", b"y"]


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_one_results_marks_exported_from_threads_at_once(core: ModuleType) -> None:
    """Threads exporting one result at once, its marks read at the first export (a U4
    array's keys): each thread's export is the twin's."""
    import sys
    import threading

    data = np.array(["K", "zz", "\u00e9", "K^^"] * 100, "U4")
    want = pa.array(_core_py.parse_many(data, True, "mark"))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(50):
            ours = core.parse_many(data, True, "mark")
            got: list[object] = []

            def export(result: object = ours, into: list[object] = got) -> None:
                try:
                    into.append(pa.array(result))
                except Exception as error:  # the assertion shows it
                    into.append(error)

            threads = [threading.Thread(target=export) for _ in range(6)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert all(isinstance(g, pa.Array) and g.equals(want) for g in got), got
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_marked_texts_utf8_only_back_to_back_export_as_the_twins(core: ModuleType) -> None:
    """Marked texts each no UTF-8 that are UTF-8 back to back (b"\\xc3" then b"\\xa9":
    "é" cut in two; "\\u20ac" and "\\U0001f600" too): each escaped as the twin's, the
    token field valid UTF-8 (it held the raw halves, which Arrow's validate refused)."""
    inputs: list[object] = [
        b"\xc3 \xa9",
        b"\xf0\x9f \x98\x80 K x1",
        np.array([b"\xc3", b"\xa9", b"K"], "S1"),
        pa.array([b"\xe2\x82", b"\xac", b"K", None], pa.binary()),
        pa.array([b"\xe2", b"\x82\xac", b"K"], pa.large_binary()),
    ]
    for data in inputs:
        ours = core.parse_many(data, True, "mark")
        twin = _core_py.parse_many(data, True, "mark")
        got = pa.array(ours)
        got.validate(full=True)
        assert got.equals(pa.array(twin))
        assert ours.to_pandas().equals(twin.to_pandas())
        picks = np.array([1, 0, 1], np.int64)
        assert pa.array(ours[picks]).equals(pa.array(twin[picks]))


# -- labels of `a + b`: kept in order, or refused where they cannot line up -------------


def labelled(core: ModuleType, tokens: list[object], labels: object) -> object:
    result = core.parse_many(tokens, True, "mark")
    return core.set_labels(result, labels)


def test_labels_are_joined_as_pandas_appends_them(core: ModuleType) -> None:
    import pandas as pd

    a = labelled(core, ["K", "x1"], pd.Index([40, 10], name="game"))
    b = labelled(core, ["q"], pd.Index([30], name="game"))
    assert list((a + b).labels) == [40, 10, 30]
    assert (a + b).labels.name == "game"
    assert [e.label for e in (b + a).errors()] == [10]
    parts = [labelled(core, ["K"], pd.Index([i])) for i in range(4)]
    assert list(sum(parts[1:], parts[0]).labels) == [0, 1, 2, 3]  # a sum keeps them
    deep = [
        labelled(core, ["K", "q"], pd.MultiIndex.from_tuples([("a", 1), ("b", 2)])),
        labelled(core, ["p"], pd.MultiIndex.from_tuples([("c", 3)])),
    ]
    joined = (deep[0] + deep[1]).labels
    assert isinstance(joined, pd.MultiIndex)
    assert joined.tolist() == [("a", 1), ("b", 2), ("c", 3)]
    assert (a + a[:0]).labels.tolist() == [40, 10]  # an empty selection's labels: none
    unlabelled = [core.parse_many(["K"], True), core.parse_many(["q"], True)]
    assert (unlabelled[0] + unlabelled[1]).labels is None


def test_labels_on_one_side_only_are_refused(core: ModuleType) -> None:
    """Labels cannot be made up for the unlabelled entries (a RangeIndex would repeat
    labels the other side may hold): ``a + b`` refuses, in either order, however
    many parts, rather than drop the labels it has."""
    import pandas as pd

    a = labelled(core, ["K", "q"], pd.Index(["g1", "g2"]))
    for plain in (core.parse_many(["p"], True), core.parse_many([], True)):
        for left, right in ((a, plain), (plain, a)):
            with pytest.raises(ValueError, match=r"with labels .* and one without"):
                left + right
    with pytest.raises(ValueError, match=r"with labels .* and one without"):
        sum([a, core.parse_many(["p"], True)], a)


def test_labels_of_different_depths_are_refused(core: ModuleType) -> None:
    """A MultiIndex and a plain Index (or MultiIndexes of different depths): pandas'
    append would mix tuples and scalars in one object Index, so ``a + b`` refuses,
    the same way in either order."""
    import pandas as pd

    deep = labelled(core, ["K", "q"], pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]))
    deeper = labelled(core, ["K"], pd.MultiIndex.from_tuples([("a", 1, "x")]))
    flat = labelled(core, ["p"], pd.Index([7]))
    for left, right in ((deep, flat), (flat, deep), (deep, deeper), (deeper, deep)):
        with pytest.raises(ValueError, match="levels do not concatenate"):
            left + right
    with pytest.raises(ValueError, match="levels do not concatenate"):
        deep + deep + flat


def test_a_labelled_tokenize_result_joins_its_row_labels(core: ModuleType) -> None:
    """Whole labelled tokenize_many results join their tokens' labels and their rows'
    (the by-row view's) in turn; a labelled one and an unlabelled one are refused."""
    import pandas as pd

    from sashite_epin._tables import token_labels

    def labelled_rows(texts: list[object], labels: pd.Index) -> object:
        result = core.tokenize_many(texts, True, "mark")
        rows = np.asarray(result.rows, dtype=np.intp)
        return core.set_labels(result, token_labels(labels, rows, pd), labels)

    a = labelled_rows(["K/q", None], pd.Index(["g1", "g2"]))
    b = labelled_rows(["x^^", "p"], pd.Index(["g3", "g4"]))
    joined = a + b
    assert list(joined.labels) == ["g1", "g1", "g3", "g4"]
    assert list(joined.by_row().labels) == ["g1", "g2", "g3", "g4"]
    assert list(joined.by_row().to_pandas().index) == ["g1", "g2", "g3", "g4"]
    assert list(joined.rows) == [0, 0, 2, 3]
    with pytest.raises(ValueError, match=r"with labels .* and one without"):
        a + core.tokenize_many(["K"], True)
