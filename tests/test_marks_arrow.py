"""Arrow columns under errors="mark": the marked texts stay in the input's buffers.

The compiled core copies no marked text while it reads an Arrow column: the result
keeps the array's capsule, or the stream's chunks that hold a marked text (a chunk
whose marks are all nulls is released as before), and reads the texts from them when
an error, an index or an export first asks.  The marking lanes read a block of entries
at a time before the exact code reads its marks, a typo's code comes from a small table
by its bytes, and AVX-512 writes the marked positions eight at a time.  Every output
must be the twin's: the records, the marked indices, each error's token, reason and
index, the reason codes, the export; with marks around every size the readers have
(groups of 8, the batches of 512, the marking block of 4096, pieces, chunks), nulls
with and without a validity buffer, slices, and offsets near 2**31."""

from __future__ import annotations

import functools
import gc
import itertools
import pickle
import random
from collections.abc import Iterator
from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest
from conftest import CORES

from sashite_epin import _core_py

COMPILED = [core for core in CORES if core.IMPLEMENTATION == "cython"]
KERNELS = [(core, kernel) for core in COMPILED for kernel in core.KERNELS]

VALID = ["K", "+k^'", "-p", "S^", "r'", "+B", "k^"]
# Typos that repeat (the code table's hits), one of each length 0-4, and longer or
# non-ASCII texts the table leaves to the exact code
TYPOS = ["K^^", "+", "KQ", "", "k'^", "--p", "Q''", "x", "KQ^^", "é", "+K^'X", "K" * 13]


def ids(value: object) -> str:
    return str(getattr(value, "IMPLEMENTATION", value))


def outcome(core: ModuleType, data: object, epin: bool = True) -> object:
    result = core.parse_many(data, epin, "mark")
    errors = [(e.token, e.reason, e.index) for e in result.errors()]
    return (
        np.asarray(result).tobytes(),
        list(result.invalid),
        errors,
        result.reason_codes().tobytes(),
        result.to_arrow(),
    )


def column(length: int, marked: set[int], seed: int = 3) -> list[str | None]:
    """Valid entries but at marked, each a null (one in three) or a typo."""
    rng = random.Random(seed)
    return [
        (None if i % 3 == 0 else rng.choice(TYPOS)) if i in marked else VALID[i % 7]
        for i in range(length)
    ]


def edges() -> Iterator[list[str | None]]:
    """Marks on each side of every size the readers have."""
    for group in (8, 16, 32, 64):
        for at in range(group - 2, group + 2):
            yield column(group + 9, {at, at + 1})
    for edge in (512, 4096, 8192):
        for around in (-9, -8, -1, 0, 1, 7, 8):
            yield column(edge + 24, {edge + around, edge + around + 2})
    yield column(4096 * 3 + 5, set(range(0, 4096 * 3 + 5, 2)))
    yield column(9000, set(range(9000)))


def kinds(entries: list[str | None]) -> Iterator[tuple[str, object]]:
    utf8 = pa.array(entries, pa.string())
    yield "utf8", utf8
    yield "large_utf8", utf8.cast(pa.large_string())
    yield "string_view", pa.array(entries, pa.string_view())  # built, never cast
    yield "dictionary", utf8.dictionary_encode()
    cuts = sorted({0, len(entries), *(c for c in (5, 8, 64, 513, 4100) if c < len(entries))})
    yield "chunked", pa.chunked_array([utf8.slice(a, b - a) for a, b in itertools.pairwise(cuts)])


def around_every_size() -> Iterator[tuple[str, int, object, bool]]:
    """Each case of the test below: the kind's name, the entries' count, the column and
    the grammar."""
    for entries in edges():
        for name, data in kinds(entries):
            for epin in (True, False):
                yield name, len(entries), data, epin


@functools.cache
def twin_around_every_size() -> list[object]:
    """The twin's outcome of each case, in order: computed once per run, for every
    kernel's test."""
    return [outcome(_core_py, data, epin) for _, _, data, epin in around_every_size()]


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_marks_around_every_size_as_the_twin(core: ModuleType, kernel: str) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        wrong = [
            (kernel, name, length, epin)
            for (name, length, data, epin), twin in zip(
                around_every_size(), twin_around_every_size(), strict=True
            )
            if outcome(core, data, epin) != twin
        ]
        assert not wrong, wrong[:10]
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_marks_across_pieces_and_many_chunks(core: ModuleType, kernel: str) -> None:
    """Twelve chunks: some with typos (kept by the result), some with nulls alone (not
    kept), some clean; pieces of a few entries inside each."""
    parts = []
    for k in range(12):
        marked = {i for i in range(70) if (i + k) % [2, 3, 5, 70][k % 4] == 0}
        entries = column(70, marked, seed=k)
        if k % 3 == 1:  # nulls alone
            entries = [None if i in marked else e for i, e in enumerate(entries)]
        parts.append(pa.array(entries, pa.string()))
    data = pa.chunked_array(parts)
    twin_data, twin_part = outcome(_core_py, data), outcome(_core_py, parts[4])
    before = core.use_bytes_kernel(kernel)
    try:
        for size in (1, 9, 64, 1 << 22):  # the compiled core's piece size
            was = core.use_piece_size(size)
            try:
                assert outcome(core, data) == twin_data, size
                assert outcome(core, parts[4]) == twin_part, size
            finally:
                core.use_piece_size(was)
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize("core", COMPILED, ids=ids)
def test_nulls_with_and_without_a_validity_buffer(core: ModuleType) -> None:
    entries = column(100, set(range(0, 100, 3)))
    texts = ["K" if e is None else e for e in entries]
    without = pa.array(texts, pa.string())
    assert without.buffers()[0] is None
    assert outcome(core, without) == outcome(_core_py, without)
    with_bits = pa.array(entries, pa.string())
    assert with_bits.null_count
    assert outcome(core, with_bits) == outcome(_core_py, with_bits)
    # a validity buffer that says no entry is null (null_count 0)
    every = pa.Array.from_buffers(
        pa.string(), 100, [pa.py_buffer(b"\xff" * 13), *without.buffers()[1:]], null_count=0
    )
    assert outcome(core, every) == outcome(_core_py, every)
    # only nulls: no chunk kept, the tokens None
    nulls = pa.array([None] * 50, pa.string())
    assert outcome(core, nulls) == outcome(_core_py, nulls)
    assert core.parse_many(nulls, True, "mark").errors()[49].token is None


@pytest.mark.parametrize("core", COMPILED, ids=ids)
def test_slices(core: ModuleType) -> None:
    entries = column(5000, {i for i in range(5000) if i % 7 in (0, 3)})
    for name, data in kinds(entries):
        for start, length in ((1, 4999), (7, 4100), (4095, 900), (13, 0)):
            piece = data.slice(start, length)
            assert outcome(core, piece) == outcome(_core_py, piece), (name, start)


@pytest.mark.parametrize("kind", ["utf8", "large_utf8"])
@pytest.mark.parametrize("core", COMPILED, ids=ids)
def test_offsets_near_two_to_the_31(core: ModuleType, kind: str) -> None:
    """Texts at the end of a 2 GiB data buffer (zeros never touched but there): offsets
    up to 2**31 - 1 for utf8, past 2**31 for large_utf8; the same outputs as the twin
    gives for the same texts in a small column (the twin copies the data buffer whole)."""
    texts = [VALID[i % 7] if i % 2 else TYPOS[i % len(TYPOS)] for i in range(80)]
    texts[10] = texts[11] = ""
    blob = "".join(texts).encode()
    size = 2**31 - 1 if kind == "utf8" else 2**31 + 100
    data = np.zeros(size, np.uint8)  # calloc: pages never touched stay unmapped
    start = size - len(blob)
    data[start:] = np.frombuffer(blob, np.uint8)
    ends = np.cumsum([0, *(len(t.encode()) for t in texts)]) + start
    offsets = ends.astype(np.int32 if kind == "utf8" else np.int64)
    array = pa.Array.from_buffers(
        pa.string() if kind == "utf8" else pa.large_string(),
        len(texts),
        [None, pa.py_buffer(offsets), pa.py_buffer(data)],
    )
    small = pa.array(texts, array.type)
    assert outcome(core, array) == outcome(_core_py, small)
    assert outcome(core, array.slice(3, 70)) == outcome(_core_py, small.slice(3, 70))
    del array, data
    gc.collect()


@pytest.mark.parametrize("core", COMPILED, ids=ids)
def test_the_texts_outlive_the_input(core: ModuleType) -> None:
    """The result keeps what it reads its texts from: the input gone, a stream's chunks
    released by their producer's own, the errors still name each text."""
    entries = column(3000, set(range(1, 3000, 2)))
    twin = _core_py.parse_many(entries, True, "mark")
    want = [(e.token, e.reason, e.index) for e in twin.errors()]
    for _name, data in kinds(entries):
        result = core.parse_many(data, True, "mark")
        del data
        gc.collect()
        assert [(e.token, e.reason, e.index) for e in result.errors()] == want
        again = pickle.loads(pickle.dumps(result))
        assert [(e.token, e.reason, e.index) for e in again.errors()] == want
    stream = pa.RecordBatchReader.from_batches(
        pa.schema([("t", pa.string())]),
        [pa.record_batch([pa.array(entries[k : k + 700], pa.string())], names=["t"])
         for k in range(0, 3000, 700)],
    )  # fmt: skip
    result = core.parse_many(stream, True, "mark")
    del stream
    gc.collect()
    assert [(e.token, e.reason, e.index) for e in result.errors()] == want


@pytest.mark.parametrize("core", COMPILED, ids=ids)
@pytest.mark.parametrize("share", [1, 2, 15, 16, 17, 63, 64, 65, 1000])
def test_the_export_places_marked_texts_of_every_length(core: ModuleType, share: int) -> None:
    """The token field with marked texts of 0 to 40 bytes (past the 16 the dense road
    copies at once), ASCII, not ASCII and not UTF-8, one entry in ``share`` marked
    (the export rebuilds the field in one pass where more than one in 16 is, and moves
    the runs between marks where fewer are), the first and last entries among them:
    the twin's export, from an Arrow column, a list and joined bytes alike."""
    rng = random.Random(share)
    count = 5000
    marked = {0, count - 1} | {i for i in range(count) if rng.randrange(share) == 0}
    texts: list[bytes | None] = []
    for i in range(count):
        if i not in marked:
            texts.append(VALID[i % 7].encode())
            continue
        size = rng.randrange(41)
        kind = rng.randrange(10)
        if kind == 0:
            texts.append(None)
        elif kind == 1:
            texts.append(("é" * size)[: max(size // 2, 1)].encode())
        elif kind == 2:
            texts.append(b"K\xff" + b"^" * size)  # not UTF-8
        else:
            texts.append(b"K" * size + b"^^")
    binary = pa.array(texts, pa.binary())
    utf8 = pa.Array.from_buffers(pa.string(), len(binary), binary.buffers())
    plain = [None if t is None else t.decode("utf-8", "replace") for t in texts]
    joined = b"\n".join(t for t in texts if t is not None and b"\n" not in t and t)
    for data in (utf8, plain, joined):
        for epin in (True, False):
            ours = core.parse_many(data, epin, "mark")
            twin = _core_py.parse_many(data, epin, "mark")
            assert pa.array(ours) == pa.array(twin), (type(data).__name__, epin)
            # and again, once the marks' texts are kept
            assert [e.token for e in ours.errors()] == [e.token for e in twin.errors()]
            assert pa.array(ours).equals(pa.array(twin))
