"""numpy S and U arrays of 1 to 4 characters, on both cores and under every bytes kernel.
The compiled core's SIMD kernels read such arrays, when contiguous, eight elements at
a time (_fixed.h): each lane takes 4 characters from its element's start, clears
those past the width, packs U code units to bytes only when all are ASCII, and counts
the length up to the last character that is not NUL.  A group is written only when all
eight are tokens; any other group goes to the exact loop.  These tests put every short
string at every position of a group, code units no str can hold, and the last elements
of arrays of every length, and compare with the list path, which reads the same
strings as str objects."""

from __future__ import annotations

import itertools
from types import ModuleType

import numpy as np
import pytest
from conftest import TRICKY

from sashite_epin import ParseError
from sashite_epin._corpora import EPIN_TOKENS

LANES = 8


def short_strings(width: int) -> list[str]:
    """Every string of up to min(width, 3) characters over the tricky alphabet, those of
    4 over the grammar's characters and a few others, and every token that fits."""
    out: list[str] = []
    for n in range(1, min(width, 3) + 1):
        out += ["".join(p) for p in itertools.product(TRICKY, repeat=n)]
    if width == 4:
        out += ["".join(p) for p in itertools.product("+-^'Kk1\x00\u00c9", repeat=4)]
    return out + [t for t in EPIN_TOKENS if len(t) <= width]


def among_tokens(strings: list[str], width: int, epin: bool) -> list[str]:
    """Each string at each position of a group of eight, among tokens that fit."""
    tokens = [t for t in EPIN_TOKENS if len(t) <= width and (epin or "'" not in t)]
    out: list[str] = []
    for i, s in enumerate(strings):
        group = [tokens[(7 * i + j) % len(tokens)] for j in range(LANES)]
        group[i % LANES] = s
        out += group
    return out


def outcome(result: object) -> tuple[list[object], list[int]]:
    return list(result), list(result.invalid)  # type: ignore[attr-defined, call-overload]


def as_array(strings: list[str], kind: str, width: int) -> np.ndarray:
    if kind == "S":
        return np.array([s.encode("latin-1") for s in strings], dtype=f"S{width}")
    return np.array(strings, dtype=f"U{width}")


def as_strs(array: np.ndarray) -> list[str]:
    """What the array holds (numpy strips trailing NULs), as str objects."""
    if array.dtype.kind == "S":
        return [b.decode("latin-1") for b in array.tolist()]
    return array.tolist()  # type: ignore[no-any-return]


@pytest.mark.parametrize("width", [1, 2, 3, 4])
@pytest.mark.parametrize("kind", ["S", "U"])
@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_every_short_string_in_each_lane_reads_as_the_list_does(
    bytes_core: ModuleType, kind: str, width: int, epin: bool
) -> None:
    strings = short_strings(width)
    if kind == "S":  # bytes: what latin-1 can hold
        strings = [s for s in strings if max(map(ord, s)) < 256]
    if bytes_core.IMPLEMENTATION != "cython":
        strings = strings[::11]  # the twin has no lanes: a sample shows it agrees
    array = as_array(among_tokens(strings, width, epin), kind, width)
    want = outcome(bytes_core.parse_many(as_strs(array), epin, errors="mark"))
    assert outcome(bytes_core.parse_many(array, epin, errors="mark")) == want
    # Unaligned: the same elements one byte into a buffer.
    raw = b"\x00" + array.tobytes()
    shifted = np.frombuffer(raw, dtype=array.dtype, offset=1)
    assert outcome(bytes_core.parse_many(shifted, epin, errors="mark")) == want


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_code_units_no_ascii_letter_hides_in(bytes_core: ModuleType, width: int) -> None:
    # "K" (0x4B) with bits set above its byte, and units past U+10FFFF: none is a
    # letter, whatever its low byte says; each at each position of a group.
    units = [0x14B, 0x4B4B, 0x1004B, 0x8000004B, 0xFFFFFF4B, 0x110000, 0x0000004B]
    tokens = [t for t in EPIN_TOKENS if len(t) <= width]
    rows: list[list[int]] = []
    for i in range(LANES * len(units)):
        for j in range(LANES):
            token = tokens[(5 * i + j) % len(tokens)]
            rows.append([ord(c) for c in token] + [0] * (width - len(token)))
        rows[-LANES + i % LANES][0] = units[i // LANES]
    # and after a token, in the padding: a unit that saturating packs would make NUL
    for i in range(LANES * 2):
        for j in range(LANES):
            token = tokens[(3 * i + j) % len(tokens)]
            rows.append([ord(c) for c in token] + [0] * (width - len(token)))
        if width > 1:
            rows[-LANES + i % LANES][-1] = 0x80000000
    array = np.frombuffer(np.array(rows, dtype="<u4").tobytes(), dtype=f"<U{width}")
    want = [
        bytes_core.safe_parse_epin("".join(map(chr, row)).rstrip("\x00"))
        if max(row) < 0x110000
        else None
        for row in rows
    ]
    result = bytes_core.parse_many(array, True, errors="mark")
    assert list(result) == want
    assert list(result.invalid) == [k for k, e in enumerate(want) if e is None]


@pytest.mark.parametrize("kind", ["S", "U"])
def test_the_last_elements_of_arrays_of_every_length(bytes_core: ModuleType, kind: str) -> None:
    # The lanes read 4 characters from each element's start and stop where that would
    # pass the array's end: an invalid token at each position of short arrays of each
    # width shows every element is read, and read once.
    for width in (1, 2, 3, 4):
        tokens = [t for t in EPIN_TOKENS if len(t) <= width]
        for count in range(3 * LANES + 2):
            items = [tokens[(3 * i) % len(tokens)] for i in range(count)]
            array = as_array(items, kind, width)
            assert outcome(bytes_core.parse_many(array, True)) == outcome(
                bytes_core.parse_many(items, True)
            )
            for where in range(count):
                broken = list(items)
                broken[where] = "1"
                with pytest.raises(ParseError) as info:
                    bytes_core.parse_many(as_array(broken, kind, width), True)
                assert info.value.index == where


def test_a_strided_width_4_array_is_read_by_its_strides(bytes_core: ModuleType) -> None:
    tokens = [t for t in EPIN_TOKENS if len(t) <= 4]
    doubled = np.array([t for i in range(100) for t in (tokens[i], "K^")], dtype="U4")
    assert bytes_core.parse_many(doubled[::2], True).tokens() == tokens[:100]
