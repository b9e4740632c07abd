"""Hostile and odd inputs: odd, empty, unaligned and non-contiguous buffers,
code units numpy does not check, multi-megabyte tokens, lying str subclasses, high-bit
bytes, inputs another thread changes while they are parsed, and a 100-million-token
buffer within its memory bound.  Each gives the right answer or a clear error."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading
from types import ModuleType

import numpy as np
import pytest
from conftest import CORES, LyingStr
from oracle import is_token

from sashite_epin import Epin, ParseError, Reason, _core_py
from sashite_epin._corpora import uniform, with_invalid

TWIN = CORES[-1]


def records(core: ModuleType, data: object, epin: bool = True) -> tuple[bytes, list[int]]:
    result = core.parse_many(data, epin, "mark")
    return np.asarray(result).tobytes(), list(result.invalid)


def expected_records(data: bytes, epin: bool = True) -> tuple[bytes, list[int]]:
    """What any core must give: the twin's records, checked against the oracle."""
    got = records(TWIN, data, epin)
    texts = [t.decode("latin-1") for t in data.split()]
    assert got[1] == [i for i, t in enumerate(texts) if not is_token(t, epin)]
    return got


# -- buffers: lengths, alignment, contiguity -------------------------------------------

STREAM = "\n".join(with_invalid(400)).encode("utf-8", "surrogatepass")


def test_every_slice_of_a_buffer_at_every_alignment(core: ModuleType) -> None:
    # Every start 0-15 (unaligned views) and every end around block edges and the buffer's
    # end: buffers that are empty, of odd lengths, and that end inside a token.
    backing = bytearray(STREAM)
    ends = sorted({*range(0, 140), *range(len(STREAM) - 70, len(STREAM) + 1)})
    for start in range(16):
        for end in ends:
            if end < start:
                continue
            view = memoryview(backing)[start:end]
            assert records(core, view) == expected_records(STREAM[start:end]), (start, end)


def test_a_token_at_the_very_end_of_mapped_memory(core: ModuleType) -> None:
    # A buffer ending exactly at a page boundary, the next page unmapped: any read past
    # the end faults.  mmap gives such a buffer.
    import mmap

    page = mmap.PAGESIZE
    for tail in (b"K", b"+K^'", b"K" * 9, b"-q^"):
        with mmap.mmap(-1, page) as m:
            m[:] = b" " * (page - len(tail)) + tail
            assert records(core, m) == expected_records(m[:])


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a[::2],
        lambda a: a[::-1],
        lambda a: a[1::3],
        lambda a: np.stack([a, a], axis=1)[:, 1],
        lambda a: np.frombuffer(b"\x00" + a.tobytes(), dtype=a.dtype, offset=1),  # unaligned
    ],
    ids=["step2", "reversed", "step3", "column", "unaligned"],
)
@pytest.mark.parametrize("dtype", ["S6", "U6"])
def test_non_contiguous_and_unaligned_numpy_arrays_are_read_by_their_strides(
    core: ModuleType, make: object, dtype: str
) -> None:
    tokens = [t for t in with_invalid(500) if not t.endswith("\x00")]
    if dtype == "S6":
        base = np.array([t.encode("utf-8", "surrogatepass") for t in tokens], dtype=dtype)
    else:
        base = np.array(tokens, dtype=dtype)
    array = make(base)  # type: ignore[operator]
    as_text = [e.decode("latin-1") if isinstance(e, bytes) else str(e) for e in array.tolist()]
    result = core.parse_many(array, True, "mark")
    assert list(result.invalid) == [i for i, t in enumerate(as_text) if not is_token(t, True)]
    assert [None if e is None else str(e) for e in result] == [
        t if is_token(t, True) else None for t in as_text
    ]


@pytest.mark.parametrize(
    ("data", "error", "match"),
    [
        (np.frombuffer(b"K q K q ", dtype=np.uint8)[::2], ValueError, "contiguous"),
        (memoryview(bytearray(b"K q K q"))[::-1], ValueError, "contiguous"),
        (np.array(b"K"), ValueError, "1-dimensional"),  # 0-d S array
        (np.zeros((2, 2), dtype="S2"), ValueError, "1-dimensional"),
        (np.zeros(3, dtype=np.float64), TypeError, "numpy array has dtype float64"),
        (np.zeros(3, dtype=[("a", "u1"), ("b", "u1")]), TypeError, "array has dtype \\["),
        (memoryview(b"KqKq").cast("H"), TypeError, "format"),
    ],
    ids=["u8-strided", "view-reversed", "0-d", "2-d", "float", "struct", "u16"],
)
def test_buffers_parse_many_cannot_read_are_a_clear_error(
    core: ModuleType, data: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        core.parse_many(data, True, "mark")


def test_a_2d_contiguous_byte_array_is_its_bytes(core: ModuleType) -> None:
    data = np.frombuffer(b"K q\n+r^' x!!", dtype=np.uint8).reshape(3, 4)
    assert records(core, data) == expected_records(data.tobytes())


def test_u_units_that_are_no_code_point_are_named_by_their_bytes(core: ModuleType) -> None:
    # numpy takes any 32-bit units from a buffer: 0xFFFFFFFF, lone surrogates, > 0x10FFFF.
    units = [ord("K"), 0xFFFFFFFF, 0xD800, 0x110000, ord("q")]
    array = np.frombuffer(np.array(units, dtype=np.uint32).tobytes(), dtype="U1")
    result = core.parse_many(array, True, "mark")
    assert [None if e is None else str(e) for e in result] == ["K", None, None, None, "q"]
    assert list(result.invalid) == [1, 2, 3]
    with pytest.raises(ParseError) as caught:
        core.parse_many(array, True)
    assert caught.value.index == 1 and caught.value.token == b"\xff\xff\xff\xff"
    with pytest.raises(ParseError) as caught:
        core.parse_many(array[2:], True)
    assert caught.value.index == 0 and caught.value.token == "\ud800"  # a str can hold it


# -- big tokens, odd str subclasses, high-bit bytes ------------------------------------

BIG = 4 * 1024 * 1024


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_a_multi_megabyte_token_is_too_long_and_the_message_stays_short(
    core: ModuleType, epin: bool
) -> None:
    huge = "K" * BIG
    with pytest.raises(ParseError) as caught:
        (core.parse_epin if epin else core.parse_pin)(huge)
    assert caught.value.token is huge and caught.value.reason is Reason.TOO_LONG
    assert len(str(caught.value)) < 200
    assert not (core.is_valid_epin if epin else core.is_valid_pin)(huge + "\u00e9")
    for data in (huge.encode(), b"K " + huge.encode() + b" q", bytearray(huge.encode())):
        with pytest.raises(ParseError) as caught:
            core.parse_many(data, epin)
        assert len(caught.value.token) == BIG and len(str(caught.value)) < 200
        assert list(core.parse_many(data, epin, "mark").invalid) == [
            data.split().index(huge.encode())
        ]
    for array in (np.array([b"q", huge.encode()]), np.array(["q", huge])):
        assert list(core.parse_many(array, epin, "mark").invalid) == [1]
    with pytest.raises(ParseError) as caught:
        core.parse_many(["q", huge], epin)
    assert caught.value.index == 1 and caught.value.token is huge


def test_a_multi_megabyte_text_is_scanned_or_refused_at_its_first_fault(core: ModuleType) -> None:
    other = "/" * BIG
    assert core.tokenize_epin(other + "K") == [other, Epin.parse("K")]
    with pytest.raises(ParseError) as caught:
        core.tokenize_epin(other + "+" * BIG)
    # What stands there is shown up to 8 characters; no letter in them.
    assert caught.value.position == BIG and caught.value.token == "+" * 8
    assert caught.value.reason is Reason.NOT_A_LETTER
    text = "x" * BIG + "K^'"
    assert core.scan_epin(text, BIG) == (Epin.parse("K^'"), BIG + 3)


@pytest.mark.parametrize("text", ["+r^'", "q", "K''", "", "k\n", "\u212a", "++"])
def test_str_subclasses_are_read_by_their_characters_only(core: ModuleType, text: str) -> None:
    odd = LyingStr(text)
    valid = is_token(text, True)
    assert core.is_valid_epin(odd) is valid
    assert core.is_valid_pin(odd) is is_token(text, False)
    if valid:
        assert core.parse_epin(odd) is core.parse_epin(text)
        assert core.safe_parse_epin(odd) is core.parse_epin(text)
    else:
        with pytest.raises(ParseError) as caught:
            core.parse_epin(odd)
        assert caught.value.token is odd
        with pytest.raises(ParseError) as plain:
            core.parse_epin(text)
        assert caught.value.reason == plain.value.reason
        assert str(caught.value) == str(plain.value)  # shown by str's own repr
    bulk = core.parse_many([odd, "K", LyingStr("x!")], True, "mark")
    assert list(bulk.invalid) == ([] if valid else [0]) + [2]


def test_every_high_bit_byte_is_refused_everywhere_in_a_token(core: ModuleType) -> None:
    for b in range(256):
        x = bytes([b])
        for data in (x, b"K" + x, x + b"K", b"+" + x, b"K^" + x, b"+K^" + x, b"K" + x + b"'"):
            assert records(core, data) == expected_records(data), data
            text = data.decode("latin-1")
            assert core.is_valid_epin(text) is is_token(text, True)
            assert (core.safe_parse_epin(text) is not None) is is_token(text, True)
    for data in ("Ｋ".encode(), "K\u0301".encode(), "\u212a".encode(), b"\xc3\x89"):
        result = core.parse_many(data, True, "mark")
        assert list(result.invalid) == [0], data


# -- inputs changed by another thread while they are parsed ----------------------------


def run_against(mutate: object, parse: object, rounds: int = 200) -> list[object]:
    """parse() rounds times while another thread runs mutate() in a loop."""
    stop = threading.Event()

    def mutator() -> None:
        while not stop.is_set():
            mutate()  # type: ignore[operator]

    thread = threading.Thread(target=mutator)
    thread.start()
    try:
        return [parse() for _ in range(rounds)]  # type: ignore[operator]
    finally:
        stop.set()
        thread.join()


def test_a_list_changed_by_another_thread_gives_a_whole_answer(core: ModuleType) -> None:
    tokens: list[object] = list(uniform(2000))
    rng = random.Random(5)
    choices: list[object] = ["K", "x!", 7, "+q^'", "Ｋ"]

    def mutate() -> None:
        tokens[rng.randrange(len(tokens))] = rng.choice(choices)
        tokens.append("q")
        tokens.pop()
        tokens.insert(rng.randrange(len(tokens)), "r")
        del tokens[rng.randrange(len(tokens))]

    def parse() -> object:
        snapshot_len = len(tokens)
        try:
            result = core.parse_many(tokens, True, "mark")
        except TypeError as e:
            assert "is int, not str" in str(e)
            return "type"
        # The compiled core reads the list with the GIL held and runs no Python code:
        # nothing changes under it.  Every entry is a token or marked.
        assert abs(len(result) - snapshot_len) <= 2
        assert all(e is None or isinstance(e, Epin) for e in result)
        return "ok"

    outcomes = run_against(mutate, parse)
    assert set(outcomes) <= {"ok", "type"}


def test_a_bytearray_changed_by_another_thread_gives_a_whole_answer_or_an_error(
    core: ModuleType,
) -> None:
    # The compiled core counts the tokens, then scans them without the GIL while another
    # thread writes into the buffer: the two passes may disagree.  It must never write
    # past its result or hand back a result that is not whole.
    data = bytearray(" ".join(uniform(200_000)).encode())
    rng = random.Random(9)
    size = len(data)

    def mutate() -> None:
        for _ in range(64):
            data[rng.randrange(size)] = rng.choice(b" KK")

    def parse() -> object:
        try:
            result = core.parse_many(data, True, "mark")
        except RuntimeError as e:
            assert str(e) == "the buffer changed while parse_many read it"
            return "changed"
        # Whole: every record is a token's or a marked zero record, nothing uninitialised.
        letters = np.asarray(result)["letter"]
        assert list(np.flatnonzero(letters == 0)) == list(result.invalid)
        assert np.all((letters == 0) | ((letters >= 65) & (letters <= 90)))
        return "ok"

    outcomes = run_against(mutate, parse, rounds=20 if core is TWIN else 200)
    assert set(outcomes) <= {"ok", "changed"}


def test_a_numpy_array_changed_by_another_thread_gives_a_whole_answer(core: ModuleType) -> None:
    array = np.array(uniform(100_000), dtype="U4")
    rng = random.Random(3)

    def mutate() -> None:
        array[rng.randrange(array.size)] = rng.choice(["K", "x!", "+r^'"])

    def parse() -> object:
        result = core.parse_many(array, True, "mark")
        assert len(result) == array.size
        return "ok"

    assert set(run_against(mutate, parse, rounds=10 if core is TWIN else 100)) == {"ok"}


# -- 100 million tokens within input + result + O(1) -----------------------------------

HUGE_PROGRAM = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from sashite_epin import _core_c as core
    from sashite_epin._corpora import uniform

    def peak():  # ru_maxrss: KiB on Linux, bytes on macOS
        unit = 1 if sys.platform == "darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit

    count = 100_000_000
    pattern = uniform(1000)
    line = " ".join(pattern).encode() + b" "
    data = line * (count // 1000)
    before = peak()
    result = core.parse_many(data, True)
    after = peak()
    assert len(result) == count and len(result.invalid) == 0
    assert [str(result[k]) for k in (0, 999, 1000, count - 1)] == [
        pattern[0], pattern[999], pattern[0], pattern[999]]
    records = np.asarray(result)
    assert records["letter"][12_345_000] == ord(pattern[0].lstrip("+-")[0].upper())
    print(len(data), 5 * count, before, after)
    """
)


def test_a_hundred_million_token_buffer_parses_within_input_plus_result() -> None:
    if CORES[0] is TWIN:
        pytest.skip("the memory bound is the compiled core's (the twin splits into a list)")
    if sys.platform == "win32":
        pytest.skip("peak memory is read with the resource module (POSIX)")
    run = subprocess.run(
        [sys.executable, "-c", HUGE_PROGRAM], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    size, result_size, before, after = map(int, run.stdout.split())
    # Peak growth while parsing: the 500 MB of records plus O(1) (a few MiB of slack for
    # the allocator); the input existed before.  Nothing proportional to the input.
    assert after - before <= result_size + 16 * 2**20, (size, result_size, before, after)


@pytest.mark.parametrize("width", [2, 3, 5])
def test_a_unit_past_u10ffff_anywhere_in_an_element_is_named_by_its_bytes(
    core: ModuleType, width: int
) -> None:
    """numpy's tolist() of such an element raises SystemError when the unit comes first
    and otherwise makes a str that fails when its character is read: each core names
    the element by its bytes, wherever the unit stands, past every size it reads at a
    time (70,000 elements: past 65,536 and the 4,096-element windows), as the twin."""
    count = 70_000
    rows = np.zeros((count, width), np.uint32)
    rows[:, 0] = ord("K")
    rows[::3, 1] = ord("^")
    bad = {5: 0, 4_099: 1, 65_537: width - 1, 69_999: width - 1}  # element: its unit
    for k, unit in bad.items():
        rows[k, unit] = 0x110000 if k % 2 else 0xFFFFFFFF
    array = np.frombuffer(rows.tobytes(), dtype=f"U{width}")
    result = core.parse_many(array, True, "mark")
    assert list(result.invalid) == sorted(bad)
    assert [e.token for e in result.errors()] == [_raw(rows[k]) for k in sorted(bad)]
    twin = _core_py.parse_many(array, True, "mark")
    assert np.asarray(result).tobytes() == np.asarray(twin).tobytes()
    assert [(e.token, e.reason) for e in result.errors()] == [
        (e.token, e.reason) for e in twin.errors()]  # fmt: skip
    with pytest.raises(ParseError) as caught:
        core.parse_many(array[6:], True)
    assert caught.value.index == 4_099 - 6 and caught.value.token == _raw(rows[4_099])
    strided = core.parse_many(array[1::2], True, "mark")  # every bad element is odd
    assert list(strided.invalid) == [(k - 1) // 2 for k in sorted(bad)]


def _raw(row: np.ndarray) -> bytes:
    """An element's bytes up to its last unit that is not NUL (its padding dropped)."""
    units = row.tolist()
    while units and units[-1] == 0:
        units.pop()
    return np.array(units, np.uint32).tobytes()
