"""parse_many over lists of str, on both cores and under every bytes kernel.  The
compiled core reads each str's bytes without a branch per shape (under the SIMD kernels
eight items at a time, the rule on eight lanes) and remembers, per call, the record of
each object it has read (by address), turning that table off while few items repeat
(_strs.h); these tests make every one of those steps meet strings it must refuse."""

from __future__ import annotations

import itertools
import random
from types import ModuleType

import numpy as np
import pytest
from conftest import TRICKY, LyingStr

from sashite_epin import ParseError
from sashite_epin._corpora import EPIN_TOKENS

CHUNK = 4096  # items between two looks at the table's hit rate (_strs.h)
REST = 15  # chunks read without the table after one that mostly missed
LANES = 8  # items per group under the SIMD kernels


@pytest.fixture
def core(bytes_core: ModuleType) -> ModuleType:
    """Every test here once per (core, bytes kernel) pair: the kernel chooses how the
    list is read too."""
    return bytes_core


def fresh(token: str) -> str:
    """An equal str that is a new object (1-character strs are shared singletons)."""
    return (token + "\x00")[:-1] if len(token) > 1 else token.encode().decode()


def expected(core: ModuleType, items: list[object], epin: bool) -> list[object]:
    safe = core.safe_parse_epin if epin else core.safe_parse_pin
    return [safe(t) if isinstance(t, str) else None for t in items]


def short_strings() -> list[str]:
    """Every string of up to 4 characters over the tricky alphabet (the longest token
    has 4), a few of 5, and every token."""
    out = [""]
    for n in range(1, 5):
        out += ["".join(p) for p in itertools.product(TRICKY, repeat=n)]
    return [*out, "+K^'x", "KKKKK", "+K^''", *EPIN_TOKENS]


@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_every_short_string_as_an_item_agrees_with_the_scanner(
    core: ModuleType, epin: bool
) -> None:
    # One item per call, each the first item the fast loop meets: what it accepts is
    # written by it, what it refuses is read by the exact scanner.
    strings = short_strings()
    want = expected(core, strings, epin)
    for s, e in zip(strings, want, strict=True):
        result = core.parse_many([s], epin, errors="mark")
        assert (result[0], list(result.invalid)) == (e, [] if e else [0]), repr(s)
    valid = {s for s, e in zip(strings, want, strict=True) if e is not None}
    assert valid == set(EPIN_TOKENS if epin else [t for t in EPIN_TOKENS if "'" not in t])
    # Every token again, in a list long enough for the table, each object twice over.
    tokens = [fresh(t) for t in EPIN_TOKENS if epin or "'" not in t] * 8
    items = [t for t in tokens for _ in (0, 1)]
    result = core.parse_many(items, epin)
    assert list(result) == expected(core, items, epin)


def in_a_group(item: object, at: int, epin: bool) -> list[object]:
    """Two groups of eight fresh tokens (fresh: objects of their own, as the lanes
    meet them when the address table is off), item at position at of the second."""
    tokens = [t for t in EPIN_TOKENS if epin or "'" not in t]
    items: list[object] = [fresh(tokens[(7 * at + j) % len(tokens)]) for j in range(2 * LANES)]
    items[LANES + at] = item
    return items


@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_every_short_string_in_each_lane_agrees_with_the_scanner(
    core: ModuleType, epin: bool
) -> None:
    # A group of eight is written only when all eight are tokens; anything else sends
    # the group to the scalar loop, which stops at the first item it refuses for the
    # exact scanner.  So a string shows what the lanes accept only among seven tokens,
    # one call a string.
    strings = short_strings()
    if core.IMPLEMENTATION != "cython":
        strings = strings[::7]  # the twin has no lanes: a sample shows it agrees
    for i, s in enumerate(strings):
        items = in_a_group(fresh(s), i % LANES, epin)
        want = expected(core, items, epin)
        result = core.parse_many(items, epin, errors="mark")
        assert (list(result), list(result.invalid)) == (
            want,
            [] if want[LANES + i % LANES] else [LANES + i % LANES],
        ), repr(s)


def test_items_that_are_not_exact_ascii_str_in_each_lane(core: ModuleType) -> None:
    odd: list[object] = [LyingStr("K"), "\u212a", "K\x00", None, "K\u0301", "k" * 5, ""]
    for item in odd:
        for at in range(LANES):
            items = in_a_group(item, at, True)
            result = core.parse_many(items, True, errors="mark")
            assert list(result) == expected(core, items, True), (item, at)
            with pytest.raises(TypeError, match=f"item {LANES + at} is bytes"):
                core.parse_many(in_a_group(b"K", at, True), True)
    # An invalid token at each position of the last groups and of the items after them.
    for extra in range(LANES + 1):
        tail = [fresh(EPIN_TOKENS[i]) for i in range(3 * LANES + extra)]
        assert core.parse_many(tail, True).tokens() == tail
        for where in range(len(tail)):
            broken: list[object] = list(tail)
            broken[where] = "K'^"
            with pytest.raises(ParseError) as info:
                core.parse_many(broken, True)
            assert info.value.index == where


def test_a_long_strided_object_array_of_fresh_tokens(core: ModuleType) -> None:
    # Fresh objects turn the address table off, so most of these are read by the lanes
    # (on the SIMD kernels), through a stride of two items with other tokens between.
    count = CHUNK * 6
    items = [fresh(EPIN_TOKENS[(3 * i) % 624]) for i in range(count)]
    doubled = np.empty(2 * count, dtype=object)
    doubled[::2] = items
    doubled[1::2] = [fresh(EPIN_TOKENS[(i + 5) % 312]) for i in range(count)]
    assert core.parse_many(doubled[::2], True).tokens() == items
    assert core.parse_many(items, True).tokens() == items


def test_the_fast_loop_takes_the_rest_back_after_each_refused_item(core: ModuleType) -> None:
    # Missing values, invalid tokens and strs the fast loop leaves to the exact scanner,
    # scattered, in runs and every other item, through repeated objects (the table on)
    # and fresh ones (the lanes): each is read exactly, and every item after it too.
    rng = random.Random(14)
    tokens = [EPIN_TOKENS[i % 624] for i in range(CHUNK * 3)]
    tokens += [fresh(EPIN_TOKENS[(5 * i) % 624]) for i in range(CHUNK * 3)]
    odd: list[object] = [None, "K'^", "\u212a", LyingStr("K"), "", "k" * 5, float("nan")]
    scattered: list[object] = list(tokens)
    for where in [*rng.sample(range(len(tokens)), 400), 0, len(tokens) - 1]:
        scattered[where] = rng.choice(odd)
    runs: list[object] = list(tokens)
    for start in range(0, len(tokens) - 20, 997):
        runs[start : start + 1 + start % 19] = [odd[start % len(odd)]] * (1 + start % 19)
    alternate = [rng.choice(odd) if i % 2 else t for i, t in enumerate(tokens[: 4 * LANES])]
    for items in (scattered, runs, alternate):
        want = expected(core, items, True)
        result = core.parse_many(items, True, errors="mark")
        assert list(result) == want
        assert list(result.invalid) == [i for i, e in enumerate(want) if e is None]


def test_the_table_switching_off_and_on_loses_nothing(core: ModuleType) -> None:
    # Phases that turn the table off (distinct objects) and on again (repeats), with
    # valid tokens only, then with an invalid one at each chunk edge of each phase.
    repeated = [EPIN_TOKENS[i % 624] for i in range(CHUNK * 3)]
    distinct = [fresh(EPIN_TOKENS[(7 * i) % 624]) for i in range(CHUNK * (REST + 3))]
    items = repeated + distinct + repeated + distinct[: CHUNK * 2] + repeated
    result = core.parse_many(items, True)
    assert result.tokens() == items
    edges = [0, len(repeated), len(repeated) + len(distinct)]
    edges += [CHUNK * (4 + REST), CHUNK * (5 + REST)]  # the table tried again, then on
    if core.IMPLEMENTATION != "cython":
        edges = edges[:2]  # the twin has no table: a few positions show it agrees
    for edge in edges:
        for where in (edge - 1, edge, edge + 1, edge + CHUNK - 1):
            if where < 0:
                continue
            broken = list(items)
            broken[where] = "K'^"
            with pytest.raises(ParseError) as info:
                core.parse_many(broken, True)
            assert info.value.index == where
            assert info.value.reason == "derivation marker must be last"
    marked = core.parse_many(broken, True, errors="mark")
    assert list(marked.invalid) == [where]
    assert [t for i, t in enumerate(items) if i != where] == [
        str(e) for i, e in enumerate(marked) if i != where
    ]


def test_a_repeated_invalid_object_is_refused_every_time(core: ModuleType) -> None:
    bad, good = "K^^", "k"
    items = [bad if i % 3 == 0 else good for i in range(3 * CHUNK)]
    result = core.parse_many(items, True, errors="mark")
    assert list(result.invalid) == list(range(0, 3 * CHUNK, 3))
    assert all(result[i] is not None for i in range(1, 3 * CHUNK, 3))


def test_items_that_are_not_exact_ascii_str_after_cached_ones(core: ModuleType) -> None:
    # A str subclass, a non-ASCII str, a NUL inside, None and more, each after the table
    # has seen thousands of items; and bytes, which is a TypeError naming its index.
    base = [EPIN_TOKENS[i % 624] for i in range(2 * CHUNK)]
    odd: list[object] = [LyingStr("K"), "\u212a", "K\x00", None, "K\u0301", "k" * 5]
    for item in odd:
        items = [*base, item, *base]
        result = core.parse_many(items, True, errors="mark")
        assert list(result.invalid) == ([] if type(item) is LyingStr else [len(base)])
        assert result[len(base) + 1] == result[0]
    with pytest.raises(TypeError, match=f"item {len(base)} is bytes"):
        core.parse_many([*base, b"K", *base], True, errors="mark")


def test_addresses_reused_between_calls_mean_nothing(core: ModuleType) -> None:
    # Fresh objects freed after one call are reused by the next list's objects, which
    # hold other tokens: a record remembered across calls would show here.
    for round_ in range(6):
        tokens = EPIN_TOKENS[round_ * 100 :] + EPIN_TOKENS[: round_ * 100]
        items = [fresh(tokens[i % 624]) for i in range(2 * CHUNK)]
        assert core.parse_many(items, True).tokens() == items
        del items


class _Fired(Exception):
    """Raised by every hostile method below: a reader that calls one fails the test."""


class _LyingType(type):
    # A metaclass that says its classes are str: a reader that compared or hashed the
    # items' types, rather than taking them by identity, would be told so.
    def __eq__(cls, other: object) -> bool:
        raise _Fired

    def __hash__(cls) -> int:
        raise _Fired


class _Impostor(metaclass=_LyingType):
    def __eq__(self, other: object) -> bool:
        raise _Fired

    def __hash__(self) -> int:
        raise _Fired


class _Text(str, metaclass=_LyingType):
    def __eq__(self, other: object) -> bool:
        raise _Fired

    def __hash__(self) -> int:
        raise _Fired


class _Unhashing:
    def __hash__(self) -> int:
        raise _Fired


@pytest.mark.parametrize("errors", ["raise", "mark"])
def test_hostile_items_among_many_tokens_run_no_code(core: ModuleType, errors: str) -> None:
    # Thousands of tokens around each hostile item, so that every fast road of a list
    # (the joined text, the table of known tokens) meets it: none of its methods, nor
    # its type's, is ever called; a str subclass is read by its characters, anything
    # else not a str is a TypeError naming its index, under either errors mode.
    base = [EPIN_TOKENS[i % 624] for i in range(2 * CHUNK)]
    at = len(base)
    for item in (_Impostor(), _Unhashing(), ["K"], {"K": 1}, _Text("q'")):
        items = [*base, item, *base]
        if isinstance(item, str):
            result = core.parse_many(items, True, errors=errors)
            assert list(result.invalid) == []
            assert str(result[at]) == "q'"
            continue
        with pytest.raises(TypeError, match=f"item {at} is {type(item).__name__}, not str"):
            core.parse_many(items, True, errors=errors)
    bad = _Text("K^^")
    if errors == "raise":
        with pytest.raises(ParseError) as caught:
            core.parse_many([*base, bad, *base], True)
        assert (caught.value.index, str.__str__(caught.value.token)) == (at, "K^^")
    else:
        result = core.parse_many([*base, bad, *base], True, errors="mark")
        assert list(result.invalid) == [at]
        assert str.__str__(result.errors()[0].token) == "K^^"
