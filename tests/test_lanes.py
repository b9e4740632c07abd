"""The twin's fast road (``_lanes_py``) against the regex oracle.

It may refuse anything (the twin then reads entry by entry), but whatever it accepts
must be exactly tokens, read into exactly the records the scanner gives.  Its rules
look only at a byte's class and its neighbours, and every letter is alike to them, so
every short text over the classes (two letters for the sides, the markers, the
separators, and a stray byte) covers every case; longer random texts check the counts.
"""

from __future__ import annotations

import functools
import itertools
import random
import struct

import pytest
from conftest import TESTED_CORES
from oracle import is_token

from sashite_epin import _core_py
from sashite_epin import _lanes_py as lanes
from sashite_epin._layout import record_of_code
from sashite_epin._scan_py import scan

CHARS = ("K", "k", "+", "-", "^", "'", "1")

# The twin's own module: it runs where the twin's core-level tests run (the compiled
# run leaves them to the twin's run).
pytestmark = pytest.mark.skipif(
    _core_py not in TESTED_CORES, reason="the twin's own module: tested in the twin's run"
)


@pytest.fixture(params=[lanes.WINDOW, 2], ids=["window", "tiny-windows"])
def window(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """The window the texts are read by: the real one, and one of 2 bytes, so that
    short texts are cut into windows everywhere they can be (a window ends at a
    separator, or a stream's at an entry's end)."""
    monkeypatch.setattr(lanes, "WINDOW", request.param)
    return int(request.param)


def records_of(tokens: list[str], epin: bool) -> bytes:
    return b"".join(record_of_code(scan(t, epin)) for t in tokens)


@pytest.mark.parametrize("epin", [True, False])
def test_lines_are_read_exactly_when_each_line_is_a_token(epin: bool, window: int) -> None:
    for n in range(6):
        for chars in itertools.product((*CHARS, "\n", " "), repeat=n):
            text = "".join(chars)
            lines = text.split("\n")
            expected = records_of(lines, epin) if all(is_token(s, epin) for s in lines) else None
            assert lanes.read_lines(lines, epin) == expected, lines
            assert lanes.read_lines([s.encode() for s in lines], epin, binary=True) == expected


@pytest.mark.parametrize("epin", [True, False])
def test_an_item_holding_a_line_break_or_not_a_str_is_refused(epin: bool) -> None:
    assert lanes.read_lines(["K\n", "k"], epin) is None  # three lines for two items
    assert lanes.read_lines(["K", "\nk"], epin) is None
    assert lanes.read_lines(["K", None], epin) is None
    assert lanes.read_lines(["K", b"k"], epin) is None
    assert lanes.read_lines([b"K", "k"], epin, binary=True) is None
    assert lanes.read_lines(["K", "\u212a"], epin) is None  # the Kelvin sign
    assert lanes.read_lines([], epin) is None  # nothing to read: the caller's case


@pytest.mark.parametrize("epin", [True, False])
def test_words_are_read_exactly_when_each_word_is_a_token(epin: bool, window: int) -> None:
    for n in range(6):
        for chars in itertools.product((*CHARS, "\n", " ", "\t", "\r"), repeat=n):
            data = "".join(chars).encode()
            words = data.decode().split()
            ok = all(is_token(w, epin) for w in words)
            assert lanes.read_words(data, epin) == (records_of(words, epin) if ok else None)


def offsets_of(entries: list[str], width: int, first: int = 0) -> bytes:
    ends = list(itertools.accumulate(map(len, entries), initial=first))
    return struct.pack(f"<{len(ends)}{'i' if width == 4 else 'q'}", *ends)


@functools.cache
def stream_cases(epin: bool, width: int) -> list[tuple[bytes, bytes, bytes | None, list[str]]]:
    """Every text of 1-5 characters over CHARS cut into entries every way it can be:
    its bytes, the entries' offsets, the oracle's records (None where an entry is not a
    token) and the entries; computed once per run, for every window's test."""
    cases = []
    for n in range(1, 6):
        for chars in itertools.product(CHARS, repeat=n):
            text = "".join(chars)
            for cuts in itertools.product((False, True), repeat=n - 1):
                entries, start = [], 0
                for i, cut in enumerate(cuts, 1):
                    if cut:
                        entries.append(text[start:i])
                        start = i
                entries.append(text[start:])
                ok = all(is_token(e, epin) for e in entries)
                expected = records_of(entries, epin) if ok else None
                cases.append((text.encode(), offsets_of(entries, width), expected, entries))
    return cases


@pytest.mark.parametrize("width", [4, 8])
@pytest.mark.parametrize("epin", [True, False])
def test_a_stream_is_read_exactly_when_each_entry_is_a_token(
    epin: bool, width: int, window: int
) -> None:
    read = lanes.read_stream
    wrong = [
        entries
        for data, offsets, expected, entries in stream_cases(epin, width)
        if read(data, offsets, width, epin) != expected
    ]
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("epin", [True, False])
def test_a_stream_whose_offsets_lie_is_refused(epin: bool, window: int) -> None:
    data = b"K+k^Q"
    good = offsets_of(["K", "+k^", "Q"], 4)
    assert lanes.read_stream(data, good, 4, epin) == records_of(["K", "+k^", "Q"], epin)
    for ends in (
        [0, 3, 1, 5],  # back and forth: the sizes' sum is still right
        [0, -1, 4, 5],
        [0, 1, 4, 2**31 - 1],
        [0, 1, 1, 4, 5],  # an empty entry
        [0, 1, 5],  # "+k^Q": two letters in one entry
        [0, 1, 4],  # short of the data
    ):
        lying = struct.pack(f"<{len(ends)}i", *ends)
        assert lanes.read_stream(data, lying, 4, epin) is None, ends
    assert lanes.read_stream(b"", struct.pack("<i", 0), 4, epin) == b""


@pytest.mark.parametrize("epin", [True, False])
def test_long_random_texts_agree_with_the_oracle(epin: bool, window: int) -> None:
    rng = random.Random(7)
    tokens = [t for t in ("K", "+k", "-Q^", "z'", "+a^'", "B^'") if is_token(t, epin)]
    for _ in range(300):
        entries = [rng.choice(tokens) for _ in range(rng.randrange(1, 60))]
        if rng.random() < 0.5:  # one damage somewhere
            i = rng.randrange(len(entries))
            entries[i] = rng.choice(["", "KK", "+", "^K", "K''", "--K", "k^^", "1", "K'^"])
        ok = all(is_token(e, epin) for e in entries)
        expected = records_of(entries, epin) if ok else None
        assert lanes.read_lines(entries, epin) == expected
        assert lanes.read_stream("".join(entries).encode(), offsets_of(entries, 4), 4, epin) == (
            expected
        )
        if "" not in entries:
            spaced = " \r\n".join(entries).encode()
            assert lanes.read_words(spaced, epin) == expected


def view(entry: bytes, padding: bytes = b"") -> bytes:
    """An Arrow string view: the length, then the string inline, then padding (zeros
    unless told), or for a long string its prefix, buffer index and offset."""
    if len(entry) > 12:
        return struct.pack("<i4sii", len(entry), entry[:4], 0, 0)
    inline = (entry + padding)[:12]
    return struct.pack("<i12s", len(entry), inline)


@pytest.mark.parametrize("epin", [True, False])
def test_views_are_read_exactly_when_each_entry_is_a_token_inline(epin: bool) -> None:
    for n in range(6):
        for chars in itertools.product((*CHARS, "\0"), repeat=n):
            entry = "".join(chars)
            for padding in (b"", b"^", b"K", b"\0K"):  # garbage after the string
                views = view(b"k") + view(entry.encode(), padding)
                expected = records_of(["k", entry], epin) if is_token(entry, epin) else None
                got = lanes.read_views(views, epin)
                if padding:  # not what the format says: refusing is right too
                    assert got in (expected, None), (entry, padding)
                else:
                    assert got == expected, entry
    assert lanes.read_views(view(b"K" * 13), epin) is None  # out of line
    lying = struct.pack("<i12s", -1, b"K")  # a negative length
    assert lanes.read_views(lying, epin) is None
    assert lanes.read_views(struct.pack("<i12s", 257, b"K"), epin) is None
    assert lanes.read_views(b"", epin) == b""
