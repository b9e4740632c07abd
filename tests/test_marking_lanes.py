"""Columns under errors="mark" whose marked entries stand at every lane position.

The compiled core's lane readers (lists of str, Arrow columns, numpy S / U arrays) do
not stop at a missing or invalid entry under errors="mark": they write its zero record,
keep its position and read on, and the exact code reads only those positions after.
Each kernel this CPU runs must then give what the twin gives: the records, the marked
indices and every error's token, reason, index, offset and line; on columns holding one
marked entry at each position of the first groups of eight, two next to each other, a
marked entry on each side of every block edge (a group of 8, a batch of 512, the str
table's chunk of 4096, a piece), half the entries marked, and every entry marked."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest
from conftest import CORES

from sashite_epin import _core_py

COMPILED = [core for core in CORES if core.IMPLEMENTATION == "cython"]
KERNELS = [(core, kernel) for core in COMPILED for kernel in core.KERNELS]

VALID = ["K", "+k^'", "-p", "S^", "r'", "+B", "k^"]
# Entries the lanes refuse: near misses of every kind, and the exact code's own cases
# (a non-ASCII str, a str subclass that is a token, which the exact code takes after all)
INVALID = ["K^^", "+", "KQ", "", "k'^", "--p", "Q''", "x1", "+K^'X", "\u212a", "K" * 20]


class Token(str):
    """A str subclass: the lanes leave it to the exact code, which reads it as a str."""


def columns(missing: bool) -> Iterator[list[object]]:
    """Columns with marked entries around every edge the readers have."""
    rng = random.Random(7)

    def column(length: int, marked: set[int]) -> list[object]:
        out: list[object] = []
        for i in range(length):
            if i in marked:
                out.append(None if missing and i % 3 == 0 else rng.choice(INVALID))
            else:
                out.append(VALID[i % len(VALID)])
        return out

    for length in (1, 7, 8, 9, 16, 17, 24):
        for at in range(length):
            yield column(length, {at})
        yield column(length, set(range(length)))
    for at in range(23):
        yield column(24, {at, at + 1})
    for edge in (512, 4096):
        for around in (-9, -8, -1, 0, 1, 8):
            yield column(edge + 20, {edge + around, edge + around + 3})
    yield column(9000, set(range(0, 9000, 2)))
    yield column(9000, {i for i in range(9000) if rng.random() < 0.01})


def outcome(core: ModuleType, data: object, epin: bool) -> object:
    result = core.parse_many(data, epin, "mark")
    errors = [(e.token, e.reason, e.index, e.position, e.line) for e in result.errors()]
    return np.asarray(result).tobytes(), list(result.invalid), errors


def assert_as_twin(
    core: ModuleType, kernel: str, make: Callable[[list[object]], object], missing: bool
) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        for entries in columns(missing):
            data = make(entries)
            for epin in (True, False):
                assert outcome(core, data, epin) == outcome(_core_py, data, epin), (
                    kernel,
                    entries,
                )
    finally:
        core.use_bytes_kernel(before)


def ids(value: object) -> str:
    return str(getattr(value, "IMPLEMENTATION", value))


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
@pytest.mark.parametrize("container", ["list", "tuple", "object array"])
def test_objects_with_marks_at_every_lane(core: ModuleType, kernel: str, container: str) -> None:
    def make(entries: list[object]) -> object:
        # a subclass that is a token, and an item of another type that is missing
        items = [Token(e) if e == "S^" else e for e in entries]
        items = [float("nan") if e is None and i % 2 else e for i, e in enumerate(items)]
        if container == "tuple":
            return tuple(items)
        if container == "object array":
            return np.array(items, dtype=object)
        return items

    assert_as_twin(core, kernel, make, missing=True)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_a_wrong_type_past_a_marked_entry_is_still_a_type_error(
    core: ModuleType, kernel: str
) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        for at in range(20):
            items: list[object] = ["K"] * 20
            items[at // 2] = None
            items[at] = 3
            for c in (core, _core_py):
                with pytest.raises(TypeError, match=f"item {at} is int"):
                    c.parse_many(items, True, "mark")
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
@pytest.mark.parametrize("kind", ["utf8", "large_utf8", "string_view", "dictionary", "chunked"])
def test_arrow_columns_with_marks_and_nulls_at_every_lane(
    core: ModuleType, kernel: str, kind: str
) -> None:
    def make(entries: list[object]) -> object:
        texts = [e if e is None else str(e) for e in entries]
        if kind == "string_view":
            return pa.array(texts, pa.string_view())  # built, never cast
        column = pa.array(texts, pa.string())
        if kind == "large_utf8":
            return column.cast(pa.large_string())
        if kind == "dictionary":
            return column.dictionary_encode()
        if kind == "chunked":  # chunk edges inside and on the groups of eight
            cuts = sorted({0, len(texts), *(c for c in (3, 8, 13, 511, 4100) if c < len(texts))})
            return pa.chunked_array(
                [column.slice(a, b - a) for a, b in itertools.pairwise(cuts)],
                pa.string(),
            )
        return column

    assert_as_twin(core, kernel, make, missing=True)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_arrow_slices_start_the_validity_bitmap_at_every_bit(core: ModuleType, kernel: str) -> None:
    texts = [None if i % 5 == 0 else VALID[i % 7] if i % 3 else "K^^" for i in range(60)]
    column = pa.array(texts, pa.string())
    before = core.use_bytes_kernel(kernel)
    try:
        for start in range(9):
            piece = column.slice(start, 40)
            assert outcome(core, piece, True) == outcome(_core_py, piece, True), start
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
@pytest.mark.parametrize("dtype", ["S4", "U4", "S2", "U3"])
def test_numpy_strings_with_marks_at_every_lane(core: ModuleType, kernel: str, dtype: str) -> None:
    width = int(dtype[1:])

    def make(entries: list[object]) -> object:
        texts = ["K^^" if e is None else str(e)[:width] for e in entries]
        if dtype.startswith("S"):
            return np.array([t.encode("utf-8")[:width] for t in texts], dtype=dtype)
        return np.array(texts, dtype=dtype)

    assert_as_twin(core, kernel, make, missing=False)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_marks_across_pieces(core: ModuleType, kernel: str) -> None:
    """Pieces of a few entries: the positions the lanes keep start again each piece."""
    entries: list[object] = [None if i % 3 == 0 else VALID[i % 7] if i % 2 else "KQ"
                             for i in range(300)]  # fmt: skip
    inputs: list[object] = [
        entries,
        pa.array(entries, pa.string()),
        np.array(["KQ" if e is None else e for e in entries], dtype="U4"),
    ]
    before = core.use_bytes_kernel(kernel)
    try:
        for size in (1, 5, 37, 64):
            was = core.use_piece_size(size)
            try:
                for data in inputs:
                    assert outcome(core, data, True) == outcome(_core_py, data, True), size
            finally:
                core.use_piece_size(was)
    finally:
        core.use_bytes_kernel(before)


# Separators of every kind parse_many splits bytes on, and tokens the bytes kernel
# refuses for a byte anywhere in them (the last byte, a separator right after a
# modifier, a byte after the letter, non-ASCII, longer than a block)
SEPARATORS = [" ", "\n", "\t", "\r\n", "  ", "\n\n", "\x0b", "\x0c", "\r"]
REFUSED = ["K^^", "+", "KQ", "k'^", "--p", "Q''", "\u00e9", "++K", "Kx", "1", "+K^^'",
           "-", "^", "'", "+-", "a'b", "K'''", "K" * 70, "+" * 130]  # fmt: skip


def joined(tokens: list[str], seps: list[str]) -> bytes:
    return "".join(t + s for t, s in zip(tokens, seps, strict=True)).encode()


def byte_buffers() -> Iterator[bytes]:
    """Buffers whose refused tokens stand at every byte position of a 64-byte block and
    across its edges, next to each other, past 512 and 4,096 tokens, half and all of the
    tokens, and at the buffer's end (a modifier last: refused by what follows it)."""
    rng = random.Random(11)
    for shift in range(70):  # a refused token at every offset into the first blocks
        for bad in ("KQ", "+", "K^^", "K" * 70):
            yield ("x " * shift + bad + " K\n+k^'").encode()
            yield ("K" + " " * shift + bad).encode()
    for length in (64, 65, 600, 5000):
        tokens = [VALID[i % len(VALID)] for i in range(length)]
        seps = [rng.choice(SEPARATORS) for _ in tokens]
        for marked in (
            {length // 2},
            {i for i in range(length) if i % 2},
            set(range(length)),
            {i for i in range(length) if rng.random() < 0.01},
            {i for i in range(length) if rng.random() < 0.3},
        ):
            yield joined([rng.choice(REFUSED) if i in marked else t
                          for i, t in enumerate(tokens)], seps)  # fmt: skip
    for edge in (512, 4096):
        tokens = [VALID[i % len(VALID)] for i in range(edge + 20)]
        for around in (-2, -1, 0, 1):
            tokens[edge + around] = "KQ"
        yield joined(tokens, ["\n"] * len(tokens))
    yield b"K\n\nKQ\r\n\t+\n"


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_byte_buffers_with_refused_tokens_at_every_byte(core: ModuleType, kernel: str) -> None:
    """The bytes kernel marks a refused token and reads on in its block: the records,
    marks, reasons, offsets and lines are the twin's, in pieces of every size too."""
    before = core.use_bytes_kernel(kernel)
    try:
        buffers = list(byte_buffers())
        for data in buffers:
            for epin in (True, False):
                assert outcome(core, data, epin) == outcome(_core_py, data, epin), (kernel, data)
        for size in (1, 5, 63, 64, 65, 700):
            was = core.use_piece_size(size)
            try:
                for data in buffers[-8:]:
                    assert outcome(core, data, True) == outcome(_core_py, data, True), size
            finally:
                core.use_piece_size(was)
    finally:
        core.use_bytes_kernel(before)


# Marked entries kept as columns and made into texts, reasons and lines only when asked
# (a bytes input's from the bytes themselves, a numpy S / U array's from a copy of each
# marked element's units): whichever output is read first, all are the twin's, and a
# mutable input changed after the call changes none of them.
FIRST_READS = ["errors", "reason_codes", "to_arrow", "len"]


def every_output(result: object, first: str) -> object:
    """What a marked result says, its lazily kept columns first read by ``first``."""
    reads: dict[str, Callable[[], object]] = {
        "errors": lambda: [
            (e.token, e.reason, e.index, e.position, e.line)
            for e in result.errors()  # type: ignore[attr-defined]
        ],
        "reason_codes": lambda: result.reason_codes().tobytes(),  # type: ignore[attr-defined]
        "to_arrow": lambda: result.to_arrow(),  # type: ignore[attr-defined]
        "len": lambda: len(result.errors()),  # type: ignore[attr-defined]
    }
    said = {first: reads[first]()}
    for name, read in reads.items():
        said.setdefault(name, read())
    marked = list(result.invalid)  # type: ignore[attr-defined]
    return (
        np.asarray(result).tobytes(),
        marked,
        [str(e) for e in result.errors()[-3:]],  # type: ignore[attr-defined]
        said,
    )


def assert_every_output_as_twin(
    core: ModuleType, data: object, epin: bool = True, firsts: list[str] = FIRST_READS
) -> None:
    for first in firsts:
        ours = every_output(core.parse_many(data, epin, "mark"), first)
        assert ours == every_output(_core_py.parse_many(data, epin, "mark"), first), first


def long_buffer(count: int, seed: int) -> bytes:
    """count tokens, half refused (others here and there), separators of every kind."""
    rng = random.Random(seed)
    tokens = [rng.choice(REFUSED[:-2]) if i % 2 or rng.random() < 0.1 else VALID[i % 7]
              for i in range(count)]  # fmt: skip
    return joined(tokens, [rng.choice(SEPARATORS) for _ in tokens])


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
def test_byte_marks_read_when_asked_are_the_twins(core: ModuleType, kernel: str) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        buffers = list(byte_buffers())
        for data in [*buffers[:280:7], *buffers[-12:]]:
            assert_every_output_as_twin(core, data)
        assert_every_output_as_twin(core, long_buffer(600, 5), epin=False)
        for size in (1, 64, 65, 700):  # pieces: the marks of each kept in one column
            was = core.use_piece_size(size)
            try:
                assert_every_output_as_twin(core, long_buffer(600, size))
            finally:
                core.use_piece_size(was)
    finally:
        core.use_bytes_kernel(before)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
@pytest.mark.parametrize("container", ["bytearray", "memoryview", "numpy uint8"])
def test_marks_of_a_mutable_buffer_do_not_change_with_it(
    core: ModuleType, kernel: str, container: str
) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        for count in (9, 520):
            data = long_buffer(count, count)
            expected = outcome(_core_py, data, True)
            buffer = bytearray(data)
            given: object = buffer
            if container == "memoryview":
                given = memoryview(buffer)
            elif container == "numpy uint8":
                given = np.frombuffer(buffer, np.uint8)
            result = core.parse_many(given, True, "mark")
            buffer[:] = b"K" * len(buffer)  # every marked token a valid one now
            errors = [(e.token, e.reason, e.index, e.position, e.line) for e in result.errors()]
            assert (np.asarray(result).tobytes(), list(result.invalid), errors) == expected
    finally:
        core.use_bytes_kernel(before)


def numpy_strings(dtype: str, count: int, seed: int) -> object:
    """count elements of dtype, half refused (non-ASCII ones too, and S elements with a
    NUL inside or a byte past ASCII), valid ones between."""
    rng = random.Random(seed)
    width = int(dtype[1:])
    if dtype.startswith("S"):
        refused = [b"K^^", b"+", b"KQ", b"", b"--p", b"K\x00^", b"\xff", b"\x00K", b"x1"]
        valid = [v.encode() for v in VALID]
    else:
        refused = ["K^^", "+", "KQ", "", "--p", "\u00e9", "K\u212a", "\U0001f600^", "x1"]
        valid = VALID
    items = [rng.choice(refused)[:width] if i % 2 or rng.random() < 0.1
             else valid[i % 7][:width] for i in range(count)]  # fmt: skip
    return np.array(items, dtype=dtype)


@pytest.mark.parametrize(("core", "kernel"), KERNELS, ids=ids)
@pytest.mark.parametrize("dtype", ["S1", "S4", "U2", "U4", "U5"])
def test_numpy_marks_kept_as_units_are_the_twins(core: ModuleType, kernel: str, dtype: str) -> None:
    before = core.use_bytes_kernel(kernel)
    try:
        for count in (1, 9, 520):
            array = numpy_strings(dtype, count, count)
            assert_every_output_as_twin(core, array, firsts=FIRST_READS)
            expected = outcome(_core_py, array, True)
            result = core.parse_many(array, True, "mark")
            array[:] = array[:1].repeat(count) if count else array  # changed after the call
            errors = [(e.token, e.reason, e.index, e.position, e.line) for e in result.errors()]
            assert (np.asarray(result).tobytes(), list(result.invalid), errors) == expected
        # a marked element at every lane position, past the lanes' reach at the end
        for count in (9, 23):
            for at in range(count):
                array = numpy_strings(dtype, count, 0)
                array[:] = array[0:1].repeat(count)
                texts = ["K"] * count
                texts[at] = "K^^"
                if dtype.startswith("S"):
                    array = np.array([t.encode()[: int(dtype[1:])] for t in texts], dtype)
                else:
                    array = np.array([t[: int(dtype[1:])] for t in texts], dtype)
                assert_every_output_as_twin(core, array, firsts=["errors"])
    finally:
        core.use_bytes_kernel(before)
