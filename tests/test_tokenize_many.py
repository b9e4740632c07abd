"""tokenize_many, the bulk form of tokenize: every row's tokens and offsets are exactly
tokenize's on that row (real FEEN placements and random texts, both grammars, both
cores), a refused row is named by its row and offset, a missing row holds nothing, and
every input kind parse_many takes is read."""

from __future__ import annotations

import gc
import math
import os
import pickle
import random
import subprocess
import sys
from types import ModuleType

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import CORES, Unavailable, optional

from sashite_epin import Epin, ParseError, Pin, Reason
from sashite_epin._corpora import EPIN_TOKENS, PLACEMENTS

polars = optional("polars")
duckdb = optional("duckdb")


def records(result: object) -> bytes:
    return np.asarray(result).tobytes()


def tokenize_row(core: ModuleType, text: str, epin: bool) -> object:
    """tokenize's answer for one text: (tokens, offsets) or (reason, token, position)."""
    try:
        items = core.tokenize_epin(text) if epin else core.tokenize_pin(text)
    except ParseError as error:
        return ("error", error.reason, error.token, error.position)
    tokens, offsets, at = [], [], 0
    for item in items:
        if not isinstance(item, str):
            tokens.append(str(item))
            offsets.append(at)
        at += len(str(item))
    return (tokens, offsets)


def by_row(result: object, rows: int) -> list[object]:
    """tokenize_many's answer per row, in tokenize_row's shape (marked rows as errors)."""
    errors = {e.row: e for e in result.errors()}  # type: ignore[attr-defined]
    ranges = list(result.row_offsets)  # type: ignore[attr-defined]
    offsets = list(result.offsets)  # type: ignore[attr-defined]
    answers: list[object] = []
    for i in range(rows):
        start, stop = ranges[i], ranges[i + 1]
        if i in errors:
            e = errors[i]
            assert (stop - start, e.index) == (1, i)  # one marked entry, named by its row
            answers.append(("error", e.reason, e.token, e.position))
        else:
            answers.append(([str(result[j]) for j in range(start, stop)], offsets[start:stop]))  # type: ignore[index]
    return answers


def random_texts(rng: random.Random, count: int) -> list[str]:
    noise = "+-^'/12345678 xé\u212a"
    texts = []
    for _ in range(count):
        text = list("".join(rng.choices(EPIN_TOKENS, k=rng.randint(0, 40))))
        for _ in range(rng.choice([0, 0, 1, 2, 4])):
            if text:
                text.insert(rng.randrange(len(text) + 1), rng.choice(noise))
        texts.append("".join(text))
    return texts


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_every_row_is_what_tokenize_gives_it(core: ModuleType, epin: bool) -> None:
    rng = random.Random(41)
    texts = list(PLACEMENTS) + random_texts(rng, 600) + ["", "8/8", "K" * 300]
    want = [tokenize_row(core, t, epin) for t in texts]
    result = core.tokenize_many(texts, epin, "mark")
    assert by_row(result, len(texts)) == want
    assert len(result.rows) == len(result) == len(result.offsets)
    ranges = result.row_offsets
    assert list(result.rows) == [
        i for i in range(len(texts)) for _ in range(ranges[i + 1] - ranges[i])]  # fmt: skip
    clean = [t for t, w in zip(texts, want, strict=True) if w[0] != "error"]
    whole = core.tokenize_many(clean, epin, "raise")
    assert by_row(whole, len(clean)) == [w for w in want if w[0] != "error"]
    assert len(whole.invalid) == 0


@pytest.mark.parametrize("piece", [1, 17, 64, 100, 4096])
def test_rows_longer_than_a_piece_are_read_in_windows(core: ModuleType, piece: int) -> None:
    """A row longer than a piece is scanned alone, a window at a time, each cut where no
    token crosses: the tokens, offsets and failures of tokenize on the whole row, whatever
    falls at a window's edge (a modifier, a letter after one, markers, a failure)."""
    rng = random.Random(piece)
    texts = random_texts(rng, 200)
    edges = ["+", "-", "^", "'", "K", "+K", "K^", "K'", "K^'", "^^", "''", "++", "é", "/"]
    for at in range(56, 72):  # every alignment around a 64-byte window's edge
        for edge in edges:
            texts.append("K" * at + edge + "q^" * 40)
            texts.append("8" * at + edge + "/" * 80)
    texts += ["K^" * 100_000, "é" + "+q'" * 50_000, "K^^" + "8" * 10_000]
    before = core.use_piece_size(piece)
    try:
        for epin in (True, False):
            got = core.tokenize_many(texts, epin, "mark")
            assert by_row(got, len(texts)) == [tokenize_row(core, t, epin) for t in texts]
    finally:
        core.use_piece_size(before)


def test_a_refused_row_is_named_by_its_row_and_offset(core: ModuleType) -> None:
    texts = ["K^/8", "8/8", "rnb/K^^", "q"]
    with pytest.raises(ParseError) as info:
        core.tokenize_many(texts, True, "raise")
    assert (info.value.index, info.value.position, info.value.token) == (2, 6, "^")
    assert info.value.reason == "multiple terminal markers (only one marker is allowed)"
    marked = core.tokenize_many(texts, True, "mark")
    assert list(marked.row_offsets) == [0, 1, 1, 2, 3]
    assert [str(t) if t else None for t in marked] == ["K^", None, "q"]
    (error,) = marked.errors()  # its row, as raised; the marked entry is invalid's
    assert (error.index, error.row, error.position, error.token) == (2, 2, 6, "^")
    assert (list(marked.invalid), info.value.row) == ([1], 2)


def test_missing_rows_hold_no_token(core: ModuleType) -> None:
    texts = ["K", None, math.nan, pd.NA, "", "q/P"]
    result = core.tokenize_many(texts, True, "raise")
    assert list(result.row_offsets) == [0, 1, 1, 1, 1, 1, 3]
    assert list(result.missing_rows) == [1, 2, 3]  # the empty text is a text
    with pytest.raises(TypeError, match="item 1 is bytes"):
        core.tokenize_many(["K", b"K"], True, "raise")
    with pytest.raises(ParseError):  # the rows are judged in order
        core.tokenize_many(["K^^", b"K"], True, "raise")
    with pytest.raises(TypeError, match="item 1 is bytes"):
        core.tokenize_many(["K^^", b"K"], True, "mark")
    with pytest.raises(TypeError):
        core.tokenize_many("K/q", True, "raise")
    with pytest.raises(ValueError, match="errors must be"):
        core.tokenize_many(["K"], True, "ignore")


def test_the_cores_agree(core: ModuleType) -> None:
    from sashite_epin import _core_py

    rng = random.Random(43)
    texts: list[object] = [*random_texts(rng, 300), None, *PLACEMENTS]
    for epin in (True, False):
        ours = core.tokenize_many(texts, epin, "mark")
        twin = _core_py.tokenize_many(texts, epin, "mark")
        assert records(ours) == records(twin)
        assert (ours.offsets, ours.row_offsets, ours.missing_rows) == (
            twin.offsets, twin.row_offsets, twin.missing_rows)  # fmt: skip
        assert [(e.index, e.token, e.reason, e.position) for e in ours.errors()] == [
            (e.index, e.token, e.reason, e.position) for e in twin.errors()]  # fmt: skip


def short_texts(rng: random.Random, count: int) -> list[object]:
    """Short texts of 0 to 9 characters, most of them refused, many repeated (a column
    of typos), some valid, empty or missing: past the compiled core's table of refused
    short texts (4,096 slots) in number of distinct ones, so slots are taken over."""
    alphabet = "Kk+-^'pQ/1 \r\x00é"
    common = ["K^^", "+", "k''", "^K", "--p", "Q^'^", "K^", "p", ""]
    texts: list[object] = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.5:
            texts.append(rng.choice(common))
        elif roll < 0.55:
            texts.append(None)
        else:
            texts.append("".join(rng.choices(alphabet, k=rng.randint(0, 9))))
    return texts


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_short_refused_rows_fail_as_tokenize_says_each_time(core: ModuleType, epin: bool) -> None:
    from sashite_epin import _core_py

    rng = random.Random(47)
    texts = short_texts(rng, 30_000)
    result = core.tokenize_many(texts, epin, "mark")
    want = [([], []) if t is None else tokenize_row(core, t, epin) for t in texts]
    assert by_row(result, len(texts)) == want
    twin = _core_py.tokenize_many(texts, epin, "mark")
    assert records(result) == records(twin)
    assert (result.offsets, result.row_offsets, result.missing_rows) == (
        twin.offsets, twin.row_offsets, twin.missing_rows)  # fmt: skip
    assert list(result.reason_codes()) == list(twin.reason_codes())
    # The same column again, and as an Arrow column: nothing carried over between calls
    again = core.tokenize_many(pa.array(texts, pa.string()), epin, "mark")
    assert records(again) == records(result)
    assert [(e.index, e.token, e.reason, e.position) for e in again.errors()] == [
        (e.index, e.token, e.reason, e.position) for e in result.errors()]  # fmt: skip


@pytest.mark.skipif(len(CORES) < 2, reason="the compiled core is not loaded in this run")
def test_offsets_built_aside_are_the_ones_written_in_place() -> None:
    """Where _pyarray.h does not read array.array right, the offsets and the rows are
    built in memory of their own and copied in: the same result."""
    compiled = CORES[0]
    texts: list[object] = [*random_texts(random.Random(53), 300), None, "K''", *PLACEMENTS]
    in_place = compiled.tokenize_many(texts, True, "mark")
    was = compiled.use_arrays_in_place(False)
    try:
        aside = compiled.tokenize_many(texts, True, "mark")
        rows_aside = aside.rows
    finally:
        compiled.use_arrays_in_place(was)
    assert was  # this CPython's array.array is laid out as _pyarray.h reads it
    assert aside == in_place
    assert (aside.offsets, aside.row_offsets) == (in_place.offsets, in_place.row_offsets)
    assert rows_aside == in_place.rows
    assert len(in_place.offsets) == len(in_place.rows) == len(in_place)
    in_place.offsets.append(7)  # an array like any other: it grows, and is freed
    assert in_place.offsets[-1] == 7
    rows = in_place.rows
    rows.append(3)
    assert rows[-1] == 3 and len(rows) == len(in_place) + 1
    assert len(compiled.tokenize_many([], True).rows) == 0


def test_a_pickle_keeps_where_each_token_came_from(core: ModuleType) -> None:
    result = core.tokenize_many(["K^/8", None, "x/q^'"], True, "mark")
    again = pickle.loads(pickle.dumps(result))
    assert again == result
    assert (again.offsets, again.row_offsets, again.missing_rows) == (
        result.offsets, result.row_offsets, result.missing_rows)  # fmt: skip
    with pytest.raises(ValueError, match="layout"):
        core.rebuild_token_array(True, records(result), [], None, ([0], [0, 5], []))
    assert core.parse_many(["K"], True).offsets is None  # other results have none


def test_every_input_kind_is_read() -> None:
    texts = [PLACEMENTS[0], None, "K^/q"]
    want = Epin.tokenize_many(texts)
    strs = [t for t in texts if t is not None]
    kinds: list[object] = [
        tuple(texts),
        iter(texts),
        np.array(texts, dtype=object),
        np.array(strs, dtype="U80"),
        np.array(texts, dtype=np.dtypes.StringDType(na_object=None)),
        pa.array(texts),
        pa.chunked_array([pa.array(texts[:1]), pa.array(texts[1:])]),
        pa.array(texts, pa.large_string()),
        pd.Series(texts, dtype="str"),
        pd.Series(texts, dtype=pd.StringDtype("python")),
        pd.Series(texts, dtype="category"),
        pd.Index(texts, dtype=object),
    ]
    for kind in kinds:
        got = Epin.tokenize_many(kind)
        expected = (
            Epin.tokenize_many(strs)
            if isinstance(kind, np.ndarray) and kind.dtype.kind == "U"
            else want
        )
        assert records(got) == records(expected), type(kind)
        assert got.row_offsets == expected.row_offsets, type(kind)
    assert Epin.tokenize_many(polars.Series(texts)) == want
    relation = duckdb.sql("select * from (values ('K^/q'), (null)) as t(placement)")
    assert records(Epin.tokenize_many(relation.arrow())) == records(
        Epin.tokenize_many(["K^/q", None])
    )
    assert Pin.tokenize_many(["K'"]).offsets == Pin.tokenize_many(["K"]).offsets


def arrow_columns(texts: list[object]) -> list[object]:
    """The texts as each Arrow column kind tokenize_many reads in place."""
    half = len(texts) // 2
    kinds = [
        pa.array(texts),
        pa.array(texts, pa.large_string()),
        pa.array(texts, pa.string_view()),
        pa.array(texts).slice(1),  # an offset into its buffers
        pa.chunked_array([pa.array(texts[:half]), pa.array([], pa.string()),
                          pa.array(texts[half:])]),
        pa.array(texts).dictionary_encode(),
        pa.table({"placement": texts}),  # a one-column table: its batches are structs
        pa.record_batch([pa.array(texts)], names=["placement"]),
    ]  # fmt: skip
    if polars is not None:
        kinds.append(polars.Series(texts))
    return kinds


def test_an_arrow_column_is_read_in_place(core: ModuleType) -> None:
    """An Arrow column's texts are read from its buffers (no str per row): what the same
    texts give as a list, whatever the layout, for clean and refused rows, nulls and
    texts that are not ASCII; both notations, both errors modes."""
    rng = random.Random(59)
    texts: list[object] = [*PLACEMENTS, None, "", "é+K/8", "K^^", *random_texts(rng, 150), None]
    for column in arrow_columns(texts):
        rows = texts[1:] if isinstance(column, pa.Array) and column.offset else texts
        for epin in (True, False):
            got = core.tokenize_many(column, epin, "mark")
            want = core.tokenize_many(rows, epin, "mark")
            assert records(got) == records(want), type(column)
            assert (got.offsets, got.row_offsets, got.missing_rows) == (
                want.offsets, want.row_offsets, want.missing_rows)  # fmt: skip
            assert [(e.index, e.token, e.position) for e in got.errors()] == [
                (e.index, e.token, e.position) for e in want.errors()]  # fmt: skip
            with pytest.raises(ParseError) as info:
                core.tokenize_many(column, epin, "raise")
            with pytest.raises(ParseError) as expected:
                core.tokenize_many(rows, epin, "raise")
            assert (info.value.index, info.value.position) == (
                expected.value.index, expected.value.position)  # fmt: skip
    clean = [t for t in PLACEMENTS for _ in range(40)]  # many pieces' worth of rows
    assert records(core.tokenize_many(pa.array(clean), True)) == records(
        core.tokenize_many(clean, True))  # fmt: skip
    with pytest.raises(TypeError, match="binary"):
        core.tokenize_many(pa.array([b"K"]), True)
    with pytest.raises(TypeError, match="one column"):
        core.tokenize_many(pa.table({"a": ["K"], "b": ["q"]}), True)


def test_a_row_that_is_not_utf8_fails_where_its_text_does(core: ModuleType) -> None:
    """An Arrow row whose bytes are not UTF-8 is judged up to its first undecodable byte
    and fails there as parse_many fails such an entry (U+FFFD: not a letter), unless a
    token before it failed first: a ParseError naming the row, or under mark the row's
    marked entry; the rows around it are read as ever."""
    rows = [b"K^/8", b"+K\xff/q", b"K^^\xff", b"\xe9\xff", b"\xc3", b"\xc3\xa9K", b"q"]
    offsets = np.cumsum([0, *map(len, rows)]).astype("int32")
    column = pa.Array.from_buffers(
        pa.string(), len(rows), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(rows))]
    )
    for epin in (True, False):
        got = core.tokenize_many(column, epin, "mark")
        assert [(e.index, e.token, e.position, e.reason) for e in got.errors()] == [
            (1, "\ufffd", 2, Reason.NOT_A_LETTER),
            (2, "^", 2, Reason.MULTIPLE_TERMINAL_MARKERS),
            (3, "\ufffd", 0, Reason.NOT_A_LETTER),
            (4, "\ufffd", 0, Reason.NOT_A_LETTER),
        ]  # fmt: skip
        assert [str(got[i]) for i in (0, 5, 6)] == ["K^", "K", "q"]
        assert list(got.offsets) == [0, 2, 2, 0, 0, 1, 0]
        with pytest.raises(ParseError) as info:
            core.tokenize_many(column, epin, "raise")
        assert (info.value.index, info.value.position, info.value.token) == (1, 2, "\ufffd")
        assert info.value.reason == Reason.NOT_A_LETTER


def test_a_malformed_arrow_row_stops_the_reading_where_it_stands(core: ModuleType) -> None:
    """Rows are read in order: a refused row before a malformed one is the ParseError
    (errors="raise"); under mark, the malformed row is the ValueError."""
    offsets = np.array([0, 3, 7, 2, 9], "int32")  # the third row's offsets go backwards
    data = pa.py_buffer(b"K^/K^^/q+Kq")
    column = pa.Array.from_buffers(pa.string(), 4, [None, pa.py_buffer(offsets), data])
    with pytest.raises(ParseError) as info:
        core.tokenize_many(column, True, "raise")
    assert (info.value.index, info.value.position) == (1, 2)
    with pytest.raises(ValueError, match="offsets"):
        core.tokenize_many(column, True, "mark")


def test_a_dictionary_is_read_whole_before_its_rows(core: ModuleType) -> None:
    """A dictionary column's dictionary is checked whole before its first row, as
    parse_many reads it: an entry whose offsets go backwards is a ValueError even
    where no row points at it.  A malformed row of a later chunk is one after the
    chunks before it are read."""
    words = pa.Array.from_buffers(pa.string(), 3, [
        None, pa.py_buffer(np.array([0, 2, 1, 3], "int32")), pa.py_buffer(b"K^q")])  # fmt: skip
    column = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), words)
    for errors in ("raise", "mark"):
        with pytest.raises(ValueError, match="offsets"):
            core.tokenize_many(column, True, errors)
    lying = pa.Array.from_buffers(pa.string(), 2, [
        None, pa.py_buffer(np.array([0, 2, 1], "int32")), pa.py_buffer(b"KK")])  # fmt: skip
    chunked = pa.chunked_array([pa.array(["K^^", "q"]), lying])
    with pytest.raises(ParseError) as info:
        core.tokenize_many(chunked, True, "raise")  # the first chunk's refused row first
    assert info.value.index == 0
    with pytest.raises(ValueError, match="offsets"):
        core.tokenize_many(chunked, True, "mark")


def test_a_pandas_index_labels_each_token_with_its_row() -> None:
    series = pd.Series(["K^/q", "8", "+P/x"], index=["a", "b", "c"])
    result = Epin.tokenize_many(series)
    assert list(result.labels) == ["a", "a", "c", "c"]  # "8" holds none; x is a token
    with pytest.raises(ParseError) as info:
        Epin.tokenize_many(pd.Series(["K", "K''"], index=[10, 20]))
    assert (info.value.index, info.value.label) == (1, 20)
    # The default index's labels are the rows themselves; any other is taken by them.
    for index in (pd.RangeIndex(3, name="game"), pd.RangeIndex(5, 11, 2), pd.Index([7, 3, 5])):
        labels = Epin.tokenize_many(pd.Series(["K^/q", "8", "+P/x"], index=index)).labels
        want = index.take([0, 0, 2, 2])
        assert labels.equals(want) and labels.name == want.name and labels.dtype == want.dtype


def test_a_frame_is_read_by_its_one_column() -> None:
    frame = pd.DataFrame({"placement": ["K^/q", "8"], "game": [1, 2]})
    assert list(Epin.tokenize_many(frame[["placement"]]).labels) == [0, 0]
    with pytest.raises(TypeError, match="reads one column"):
        Epin.tokenize_many(frame)


# -- Into tables: a row per token (row, offset) or a list of tokens per input row ----------

TOKEN_FIELDS = ["token", "abbr", "side", "state", "terminal", "derived", "valid", "reason"]


def tokens_and_rows(core: ModuleType, epin: bool) -> tuple[list[object], object]:
    rng = random.Random(47)
    texts: list[object] = [*PLACEMENTS, None, "", "K''", "++K/8", *random_texts(rng, 200), None]
    return texts, core.tokenize_many(texts, epin, "mark")


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_the_flat_export_is_the_tokens_with_row_and_offset(core: ModuleType, epin: bool) -> None:
    _, result = tokens_and_rows(core, epin)
    table = pa.table(result)
    fields = [f for f in TOKEN_FIELDS if epin or f != "derived"]
    assert table.column_names == [*fields, "row", "offset"]
    assert table.schema.field("row").type == table.schema.field("offset").type == pa.int64()
    assert table.column("row").to_pylist() == list(result.rows)
    assert table.column("offset").to_pylist() == list(result.offsets)
    # The token's fields are what the same entries export without their places, and a
    # selection of every entry exports the same table.
    without = core.parse_many([None if e is None else str(e) for e in result], epin, "mark")
    assert table.select(fields).select(["abbr", "side", "state", "terminal"]).equals(
        pa.table(without).select(["abbr", "side", "state", "terminal"]))  # fmt: skip
    assert pa.table(result[:]).equals(table)
    assert len(result.invalid) and not all(table.column("valid").to_pylist())


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_the_nested_export_holds_each_rows_tokens(core: ModuleType, epin: bool) -> None:
    texts, result = tokens_and_rows(core, epin)
    flat = pa.table(result).to_pylist()
    rows = pa.table(result.by_row())
    assert rows.column_names == ["tokens"]
    assert pa.types.is_large_list(rows.schema.field("tokens").type)
    assert len(result.by_row()) == rows.num_rows == len(texts)
    for r, (text, tokens) in enumerate(zip(texts, rows.column("tokens").to_pylist(), strict=True)):
        if text is None:
            assert tokens is None  # a missing row is a missing row
            continue
        want = [{k: v for k, v in t.items() if k != "row"} for t in flat if t["row"] == r]
        assert tokens == want, text
    assert rows.column("tokens").null_count == texts.count(None)


@pytest.mark.skipif(len(CORES) < 2, reason="the compiled core is not loaded in this run")
def test_an_export_takes_the_memory_the_last_one_gave_back() -> None:
    """The flat export's int64 fields (8 bytes a token each) come from _memory.h's kept
    blocks and go back to them when the export is released: a loop of exports writes
    into the memory the last one gave back instead of faulting in fresh pages each
    time, and what is kept stays within its cap; the values are the result's.  Told by
    the page faults and the bytes kept, not by addresses: a free-threaded interpreter
    may release an export some time after its last reference goes, and the next one
    then has memory of its own."""
    resource = pytest.importorskip("resource")
    core = CORES[0]
    result = core.tokenize_many(list(PLACEMENTS) * 5000, True)  # 680,000 tokens: 2 x 5.4 MB
    pages = 16 * len(result) // 4096  # the two fields', faulted in afresh without reuse

    def minor_faults() -> int:
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)

    assert pa.table(result).num_rows == len(result)  # pyarrow's first import made
    gc.collect()
    rounds, before = 8, minor_faults()
    for _ in range(rounds):
        table = pa.table(result)
        del table
        gc.collect()
    faults = minor_faults() - before
    print(f"{faults} page faults in {rounds} exports of {pages} pages of int64 fields each")
    assert faults < rounds * pages // 4, (faults, pages)
    assert core.memory_held() <= 128 * 2**20

    again = pa.table(result)
    assert again.column("row").to_pylist() == list(result.rows)
    assert again.column("offset").to_pylist() == list(result.offsets)
    other = pa.table(result)  # while the first is held: memory of its own, the same values

    def int64_buffers(table: pa.Table) -> set[int]:
        return {table.column(name).chunks[0].buffers()[1].address for name in ("row", "offset")}

    assert not int64_buffers(other) & int64_buffers(again)
    assert other.equals(again)


@pytest.mark.skipif(len(CORES) < 2, reason="the compiled core is not loaded in this run")
def test_both_cores_export_the_same_tables() -> None:
    for epin in (True, False):
        ours = tokens_and_rows(CORES[0], epin)[1]
        twin = tokens_and_rows(CORES[-1], epin)[1]
        assert pa.table(ours).equals(pa.table(twin))
        assert pa.table(ours.by_row()).equals(pa.table(twin.by_row()))
        assert pa.schema(ours.by_row()) == pa.schema(twin.by_row())


def test_the_schemas_are_the_same_whatever_the_data(core: ModuleType) -> None:
    _, full = tokens_and_rows(core, True)
    for texts in ([], [None], [""], ["K''"]):
        some = core.tokenize_many(texts, True, "mark")
        assert pa.schema(some) == pa.schema(full) == pa.table(some).schema
        assert (
            pa.schema(some.by_row()) == pa.schema(full.by_row()) == pa.table(some.by_row()).schema
        )


def test_only_tokenize_many_has_rows(core: ModuleType) -> None:
    with pytest.raises(ValueError, match="only tokenize_many's results have rows"):
        core.parse_many(["K"], True).by_row()
    assert "row" not in pa.table(core.parse_many(["K"], True)).column_names


def test_pandas_frames_align_with_the_input() -> None:
    frame = pd.DataFrame(
        {"placement": ["K^/q", None, "8", "+P/x", "K''"], "game": [1, 2, 3, 4, 5]},
        index=[50, 40, 30, 20, 10],
    )
    shuffled = frame.sample(frac=1.0, random_state=3)
    result = Epin.tokenize_many(shuffled["placement"], errors="mark")
    tokens = result.to_pandas()
    assert list(tokens.index) == list(shuffled.index.take(np.asarray(result.rows)))
    assert tokens.join(frame["game"])["game"].tolist() == (tokens.index // 10 * -1 + 6).tolist()
    by_row = result.by_row().to_pandas()
    assert list(by_row.index) == list(shuffled.index)
    joined = frame.join(by_row)  # aligned on the labels, whatever the order
    assert joined.loc[40, "tokens"] is pd.NA  # the missing text
    assert [t["token"] for t in joined.loc[20, "tokens"]] == ["+P", "x"]
    assert [t["offset"] for t in joined.loc[20, "tokens"]] == [0, 3]
    assert list(joined.loc[30, "tokens"]) == []
    assert isinstance(by_row["tokens"].dtype, pd.ArrowDtype)
    assert list(result.by_row().to_pandas(index=False).index) == [0, 1, 2, 3, 4]
    assert list(result.by_row().to_pandas(index=list("abcde")).index) == list("abcde")
    again = pickle.loads(pickle.dumps(result))
    assert list(again.by_row().labels) == list(shuffled.index)
    multi = frame.set_index(pd.MultiIndex.from_arrays([frame.index, frame["game"]]))
    nested = Epin.tokenize_many(multi["placement"], errors="mark").by_row().to_pandas()
    assert nested.index.equals(multi.index)


# -- Rows and offsets follow the entries: selections, valid(), sorted(), +, pickle ---------

PLACED_TEXTS: list[object] = ["K^/8/+p", None, "x^^", "", "q'/K", "K^^", "8/r", None]


def places(result: object) -> tuple[list[int], list[int]]:
    return list(result.rows), list(result.offsets)  # type: ignore[attr-defined]


def exported_places(result: object) -> list[list[int]]:
    """Each export's row and offset columns: to_arrow, to_pandas, to_polars, the array
    capsule and the stream capsule, each [rows, offsets]."""
    arrow = result.to_arrow()  # type: ignore[attr-defined]
    frame = result.to_pandas()  # type: ignore[attr-defined]
    struct = pa.array(result)  # __arrow_c_array__
    stream = pa.RecordBatchReader.from_stream(result).read_all()  # __arrow_c_stream__
    got = [
        [arrow.column("row").to_pylist(), arrow.column("offset").to_pylist()],
        [frame["row"].tolist(), frame["offset"].tolist()],
        [struct.field("row").to_pylist(), struct.field("offset").to_pylist()],
        [stream.column("row").to_pylist(), stream.column("offset").to_pylist()],
    ]
    if not isinstance(polars, Unavailable):
        table = result.to_polars()  # type: ignore[attr-defined]
        got.append([table["row"].to_list(), table["offset"].to_list()])
    return got


def assert_places(result: object, rows: list[int], offsets: list[int]) -> None:
    """The result's rows and offsets are these, and every export says the same, under
    the schema of a whole tokenize_many result."""
    assert places(result) == (rows, offsets)
    for exported in exported_places(result):
        assert exported == [rows, offsets]
    assert pa.schema(result) == pa.schema(EMPTY_PLACED[result.notation])  # type: ignore[attr-defined]


EMPTY_PLACED = {"EPIN": Epin.tokenize_many([]), "PIN": Pin.tokenize_many([])}

SELECTIONS: list[object] = [
    slice(None, None, -1),
    slice(1, None, 3),
    slice(-2, 0, -2),
    slice(5, 5),
    [4, 0, -1, 4],
    [],
    range(2, 6),
    np.array([6, 0, 3, -2, 3], dtype=np.int64),
    np.array([1, 2], dtype=np.int32),
    np.array([6, 6, 0], dtype=np.uint16),
    np.array([0, -1], dtype=np.int8),
]


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_a_selection_keeps_each_entrys_row_and_offset(core: ModuleType, epin: bool) -> None:
    whole = core.tokenize_many(PLACED_TEXTS, epin, "mark")
    rows, offsets = places(whole)
    count = len(whole)
    assert count == 7 and len(whole.invalid) == 2
    masks = [
        np.arange(count) % 3 == 1,
        [i % 2 == 0 for i in range(count)],
        np.ones(count, bool),
        np.zeros(count, bool),
    ]
    for key in [*SELECTIONS, *masks]:
        picked = np.arange(count)[key if not isinstance(key, range) else list(key)].tolist()
        part = whole[key]
        assert records(part) == b"".join(records(whole[i : i + 1]) for i in picked)
        assert_places(part, [rows[i] for i in picked], [offsets[i] for i in picked])
        # A selection of a selection: the first one's places, picked again.
        again = part[::-1]
        assert_places(again, [rows[i] for i in picked][::-1], [offsets[i] for i in picked][::-1])
        # What only the whole result has: its rows' grouping.
        for name in ("row_offsets", "missing_rows"):
            with pytest.raises(ValueError, match="no row grouping"):
                getattr(part, name)
        with pytest.raises(ValueError, match="no row grouping"):
            part.by_row()


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_valid_and_sorted_keep_each_entrys_row_and_offset(core: ModuleType, epin: bool) -> None:
    whole = core.tokenize_many(PLACED_TEXTS, epin, "mark")
    rows, offsets = places(whole)
    kept = [i for i in range(len(whole)) if i not in set(whole.invalid)]
    valid = whole.valid()
    assert_places(valid, [rows[i] for i in kept], [offsets[i] for i in kept])
    with pytest.raises(ValueError, match="no row grouping"):
        valid.by_row()
    clean = core.tokenize_many(["q'/K^", "8/+p/K", None, "r/P"], epin)
    assert clean.valid() is clean  # nothing marked: the whole result itself
    rows, offsets = places(clean)
    codes = list(clean.codes())
    order = sorted(range(len(clean)), key=lambda i: codes[i])  # stable, by code
    ordered = clean.sorted()
    assert list(ordered.codes()) == sorted(codes)
    assert_places(ordered, [rows[i] for i in order], [offsets[i] for i in order])


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_a_concatenation_numbers_its_rows_as_one_read_of_all_texts(
    core: ModuleType, epin: bool
) -> None:
    """Whole results join into what one tokenize_many of their texts in turn gives:
    grouping, missing rows, by-row export and all; a selection among the parts makes a
    selection, its rows still numbered after the earlier parts' texts."""
    first, second, third = PLACED_TEXTS[:3], PLACED_TEXTS[3:], ["K", None]
    parts = [core.tokenize_many(texts, epin, "mark") for texts in (first, second, third)]
    want = core.tokenize_many(first + second + third, epin, "mark")
    joined = parts[0] + parts[1] + parts[2]
    assert records(joined) == records(want)
    assert list(joined.invalid) == list(want.invalid)
    assert (joined.row_offsets, joined.missing_rows) == (want.row_offsets, want.missing_rows)
    assert_places(joined, *places(want))
    assert pa.table(joined.by_row()).equals(pa.table(want.by_row()))
    assert pa.table(sum(parts[1:], parts[0])).equals(pa.table(want))
    # A selection on either side: each entry's row and offset, no grouping.
    rows, offsets = places(want)
    mixed = parts[0][::-1] + parts[1] + parts[2][:1]
    n0, n1 = len(parts[0]), len(parts[1])
    picked = [*range(n0)][::-1] + [n0 + i for i in range(n1)] + [n0 + n1]
    assert_places(mixed, [rows[i] for i in picked], [offsets[i] for i in picked])
    with pytest.raises(ValueError, match="no row grouping"):
        mixed.by_row()
    again = pickle.loads(pickle.dumps(mixed))
    assert_places(again, [rows[i] for i in picked], [offsets[i] for i in picked])
    # The rows of `+` count every text of a selection's source, picked or not.
    assert list((parts[0][:1] + parts[1][:1]).rows) == [0, len(first) + 1]  # after the empty text


@pytest.mark.parametrize("empty", [False, True])
def test_a_tokenize_result_and_a_parse_result_do_not_concatenate(
    core: ModuleType, empty: bool
) -> None:
    placed = core.tokenize_many(["K/q"], True)
    parsed = core.parse_many([] if empty else ["K"], True)
    for a, b in ((placed, parsed), (parsed, placed), (placed[::-1], parsed)):
        with pytest.raises(ValueError, match="tokenize_many result and a parse_many result"):
            a + b


def test_a_pickle_keeps_a_selections_places_and_checks_them(core: ModuleType) -> None:
    whole = core.tokenize_many(PLACED_TEXTS, True, "mark")
    for part in (whole[::-2], whole.valid(), whole[np.array([3, 3, 0])], whole + whole[:2]):
        again = pickle.loads(pickle.dumps(part))
        assert again == part
        assert places(again) == places(part)
        assert pa.table(again).equals(pa.table(part))
    part = whole[[0, 6]]
    data = records(part)  # rows 0 and 6 of 8 texts, offsets 0 and 2
    assert places(part) == ([0, 6], [0, 2])
    good = ([0, 2], None, None, None, [0, 6], 8)
    assert places(core.rebuild_token_array(True, data, [], None, good)) == ([0, 6], [0, 2])
    lies = [
        ([0], None, None, None, [0, 6], 8),  # an offset short
        ([0, 0], None, None, None, [0], 8),  # a row short
        ([0, 0, 0], None, None, None, [0, 6, 1], 8),  # one too many
        ([0, -1], None, None, None, [0, 6], 8),  # a negative offset
        ([0, 0], None, None, None, [0, -6], 8),  # a negative row
        ([0, 0], None, None, None, [0, 8], 8),  # a row past the texts
        ([0, 0], None, None, None, [0, 6], -1),  # fewer than no texts
        ([0, 0], None, None, None, [0, 6], 8.0),  # texts not an int
        ([0, 0], None, None, None, [0, 6], "8"),
        ([0, 0], [0, 2], None, None, [0, 6], 8),  # a grouping beside per-entry rows
        ([0, 0], None, [1], None, [0, 6], 8),
        ([0, 0], None, None, pd.Index([1] * 8), [0, 6], 8),
        ([0, 0], None, None, None, [0, 2**63], 8),
        ([0, 0], None, None, None, None, 8),
        ([0, 0], None, None, None, [0, 6]),  # five parts: no layout's form
        ([0, 0], [0, 1, 2], [], None, [0, 1]),
        7,
        "layout",
    ]
    for lie in lies:
        with pytest.raises(ValueError, match="layout"):
            core.rebuild_token_array(True, data, [], None, lie)


def test_an_export_refuses_rows_and_offsets_changed_since(core: ModuleType) -> None:
    """The arrays ``offsets`` and ``row_offsets`` give are the result's own: changed
    afterwards, the export says so (ValueError) rather than read past their ends."""
    for change in ("shorter offsets", "longer offsets", "ranges", "missing"):
        whole = core.tokenize_many(PLACED_TEXTS, True, "mark")
        if change == "shorter offsets":
            whole.offsets.pop()
        elif change == "longer offsets":
            whole.offsets.append(0)
        elif change == "ranges":
            whole.row_offsets[2] = 10**6
        else:
            whole.missing_rows.append(10**6)
        for export in (pa.table, pa.array, lambda r: pa.table(r.by_row())):
            with pytest.raises(ValueError, match="rows and offsets"):
                export(whole)
        if change == "ranges":
            with pytest.raises(ValueError, match="rows and offsets"):
                whole.rows  # noqa: B018 - the property is the call
    part = core.tokenize_many(PLACED_TEXTS, True, "mark")[::-1]
    part.offsets.pop()
    with pytest.raises(ValueError, match="rows and offsets"):
        pa.table(part)


def test_a_selections_errors_name_the_rows_their_entries_came_from(core: ModuleType) -> None:
    """errors() of a selection, valid() excepted, names each marked entry's row as the
    whole result's does (index and row), not its place in the selection."""
    texts = ["K/q", "x^^", "K1Z^^", "k"]
    whole = core.tokenize_many(texts, True, "mark")
    rows = {
        entry: (e.index, e.row, e.position)
        for entry, e in zip(whole.invalid, whole.errors(), strict=True)
    }
    assert sorted(r[1] for r in rows.values()) == [1, 2]
    backwards = [rows[e] for e in sorted(rows, reverse=True)]
    for picked in (whole[::-1], whole[np.arange(len(whole))[::-1]]):
        assert [(e.index, e.row, e.position) for e in picked.errors()] == backwards
    doubled = [(e.index, e.row) for e in (whole + whole).errors()]
    assert doubled == [(r[0], r[1]) for r in rows.values()] + [
        (r[0] + len(texts), r[1] + len(texts)) for r in rows.values()
    ]


@pytest.mark.skipif(len(CORES) < 2, reason="the compiled core is not loaded in this run")
def test_both_cores_place_every_operations_entries_alike() -> None:
    def made(core: ModuleType) -> list[object]:
        whole = core.tokenize_many(PLACED_TEXTS, True, "mark")
        other = core.tokenize_many(["+p/K^", None], True, "mark")
        return [
            whole[::-1], whole[np.array([5, 0, -1])], whole[whole.valid_mask()], whole.valid(),
            whole + other, whole[1:] + other, other.sorted(),
            pickle.loads(pickle.dumps(whole[::3])),
        ]  # fmt: skip

    for ours, twin in zip(made(CORES[0]), made(CORES[-1]), strict=True):
        assert pa.table(ours).equals(pa.table(twin))
        assert places(ours) == places(twin)


def test_a_labelled_selection_joins_back_to_its_texts() -> None:
    games = pd.DataFrame(
        {"placement": ["K^/8/+p", "x^^", None, "q'/K"]}, index=["g1", "g2", "g3", "g4"]
    )
    placed = Epin.tokenize_many(games["placement"], errors="mark")
    valid = placed.valid().to_pandas()
    assert list(valid.index) == ["g1", "g1", "g4", "g4"]
    assert valid["row"].tolist() == [0, 0, 3, 3]
    assert valid["offset"].tolist() == [0, 5, 0, 3]
    joined = valid.join(games)
    for label, token, offset in zip(joined.index, joined["token"], joined["offset"], strict=True):
        assert games.loc[label, "placement"][offset:].startswith(token)
    assert list(games.index.take(valid["row"])) == list(valid.index)
    reversed_ = placed[::-1].to_pandas()
    assert list(reversed_.index) == list(games.index.take(reversed_["row"]))


def test_polars_and_duckdb_read_both_exports() -> None:
    texts = ["K^/q", None, "8", "+P/x"]
    result = Epin.tokenize_many(texts)
    flat = polars.DataFrame(result)
    assert flat["row"].to_list() == [0, 0, 3, 3]
    assert flat["offset"].to_list() == [0, 3, 0, 3]
    nested = result.by_row().to_polars()
    assert nested.schema["tokens"] == polars.List(nested.schema["tokens"].inner)
    assert nested["tokens"].null_count() == 1
    assert nested.explode("tokens").unnest("tokens")["token"].drop_nulls().to_list() == [
        "K^", "q", "+P", "x"]  # fmt: skip
    by_row = result.by_row()  # noqa: F841 (read by name below)
    counts = duckdb.sql('select "row", count(*) from result group by "row" order by 1').fetchall()
    assert counts == [(0, 2), (3, 2)]
    lengths = duckdb.sql("select len(tokens) from by_row").fetchall()
    assert lengths == [(2,), (None,), (0,), (2,)]


LONG_TEXT_PROGRAM = """
import resource, sys
from sashite_epin import Epin
text = "8/" * 100_000_000  # 200 MB of text that holds no token
with open("/proc/self/status") as status:
    size = next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmSize:"))
# Room for a few hundred MiB more: the tokens' records reserved a character each took
# 13 bytes of address space a character (2.6 GB here), a MemoryError under such a limit
resource.setrlimit(resource.RLIMIT_AS, (size + 600 * 2**20, resource.RLIM_INFINITY))
print(len(Epin.tokenize_many([text, "K^"]).offsets))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc and limits the address space")
@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""), reason="ASan reserves its own")
def test_a_long_text_without_tokens_reserves_no_room_for_them() -> None:
    if CORES[0].IMPLEMENTATION != "cython":
        pytest.skip("the bound is the compiled core's (the twin reads 200 MB for a minute)")
    run = subprocess.run(
        [sys.executable, "-c", LONG_TEXT_PROGRAM], capture_output=True, text=True, check=False
    )
    assert (run.returncode, run.stdout.strip()) == (0, "1"), run.stderr


MARKS_OUT_OF_MEMORY_PROGRAM = """
import resource
from sashite_epin import Epin
texts = ["K^^"] * 1_000_000  # a million refused rows: their marks need room
with open("/proc/self/status") as status:
    size = next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size + 80 * 2**20, resource.RLIM_INFINITY))
try:
    Epin.tokenize_many(texts, errors="mark")
    print("whole")
except MemoryError:
    print("MemoryError")
resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
print(len(Epin.tokenize_many(texts[:1000], errors="mark").invalid))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc and limits the address space")
@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""), reason="ASan reserves its own")
def test_marks_out_of_memory_are_a_memory_error(core: ModuleType) -> None:
    """Marks that find no room end the call with MemoryError (or fit), never a loop that
    asks again for ever; the process goes on working."""
    env = {**os.environ, "SASHITE_EPIN_IMPLEMENTATION": core.IMPLEMENTATION}
    run = subprocess.run(
        [sys.executable, "-c", MARKS_OUT_OF_MEMORY_PROGRAM],
        capture_output=True, text=True, check=False, env=env, timeout=300,
    )  # fmt: skip
    lines = run.stdout.split()
    assert run.returncode == 0, run.stderr
    assert lines[0] in ("MemoryError", "whole") and lines[1] == "1000", run.stdout
