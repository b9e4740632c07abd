"""Exhaustive conformance: each core accepts exactly the spec's tokens.

Every valid token, every string of length 0-5 over a tricky alphabet, and every Unicode
code point alone and in each position of a token, against the whole-string regexes.

The sweeps are compared in bulk: the regex oracle's answers are computed once per set
of strings, each core answers the whole set in one ``parse_many`` call, and the
per-string API (``*_code``, ``is_valid_*``, ``parse_*``, ``safe_parse_*``) answers every
string of the set too, in plain loops; each test asserts once, at the end, and names the
first strings that disagree.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import CORES, TRICKY
from oracle import EPIN_RE, PIN_RE

from sashite_epin import ParseError, Reason
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS
from sashite_epin._layout import all_codes

NOTATIONS = (False, True)  # PIN, EPIN
REGEX = {False: PIN_RE, True: EPIN_RE}
SHOWN = 10  # mismatches a failure names


def test_the_token_sets_have_the_specs_sizes() -> None:
    assert len(set(PIN_TOKENS)) == 312
    assert len(set(EPIN_TOKENS)) == 624
    assert all(PIN_RE.fullmatch(t) for t in PIN_TOKENS)
    assert all(EPIN_RE.fullmatch(t) for t in EPIN_TOKENS)


def test_every_valid_token_formats_back_from_its_code(core: ModuleType) -> None:
    assert sorted(core.format_code(c) for c in all_codes(True)) == sorted(EPIN_TOKENS)
    assert sorted(core.format_code(c) for c in all_codes(False)) == sorted(PIN_TOKENS)
    for token in EPIN_TOKENS:
        assert core.format_code(core.epin_code(token)) == token
    for token in PIN_TOKENS:
        assert core.pin_code(token) == core.epin_code(token)


def test_codes_decode_to_the_tokens_attributes(core: ModuleType) -> None:
    for token in EPIN_TOKENS:
        code = core.epin_code(token)
        body = token.rstrip("'").rstrip("^").lstrip("+-")
        assert code >> 5 == ord(body.upper()) - 65
        assert (code >> 4) & 1 == (body >= "a")
        assert (code >> 2) & 3 == {"-": 0, "+": 1}.get(token[0], 2)
        assert (code >> 1) & 1 == ("^" in token)
        assert code & 1 == token.endswith("'")


def outcome(code_of: Callable[[str], int], s: str) -> int:
    """A core's answer for s in one number: the code, or minus the number of the Reason
    member it is not a token (the numbers ``reason_codes()`` gives)."""
    try:
        return code_of(s)
    except ParseError as exc:
        if type(exc.reason) is not Reason:
            return -1000  # never a reason's number: reported as a mismatch
        return -int(exc.reason.value)


def bulk_answers(core: ModuleType, strings: list[str], epin: bool) -> np.ndarray:
    """One parse_many call over strings: per entry, the code or minus the reason's
    number, as outcome() gives them one by one."""
    result = core.parse_many(strings, epin, "mark")
    codes = np.asarray(result.codes(), np.int64)
    reasons = result.reason_codes().astype(np.int64)
    mask = result.valid_mask()
    assert len(codes) == len(reasons) == len(mask) == len(strings)
    assert (mask == (reasons == 0)).all() and (mask == (codes >= 0)).all()
    return np.where(mask, codes, -reasons)


@functools.cache
def short_strings(length: int, extra: str = "") -> list[str]:
    """Every string of the length over the tricky characters (and extra)."""
    return list(map("".join, itertools.product((*TRICKY, *extra), repeat=length)))


@functools.cache
def oracle_valid(length: int, epin: bool) -> np.ndarray:
    """The regex's verdict on each of short_strings(length), computed once per run."""
    fullmatch = REGEX[epin].fullmatch
    strings = short_strings(length)
    return np.fromiter((fullmatch(s) is not None for s in strings), bool, len(strings))


def first(where: np.ndarray) -> list[int]:
    return [int(i) for i in np.flatnonzero(where)[:SHOWN]]


# The quick loop (pytest -m quick) sweeps the strings of length 0-3 on every core.
SHORT_LENGTHS = [pytest.param(n, marks=pytest.mark.quick) if n <= 3 else n for n in range(6)]


@pytest.mark.slow
@pytest.mark.parametrize("length", SHORT_LENGTHS)
def test_every_short_string_over_tricky_characters_agrees_with_the_regex(
    core: ModuleType, length: int
) -> None:
    strings = short_strings(length)
    n = len(strings)
    failures: list[str] = []
    for epin in NOTATIONS:
        name = "epin" if epin else "pin"
        code_of, is_valid = getattr(core, f"{name}_code"), getattr(core, f"is_valid_{name}")
        parse, safe_parse = getattr(core, f"parse_{name}"), getattr(core, f"safe_parse_{name}")
        expected = oracle_valid(length, epin)
        bulk = bulk_answers(core, strings, epin)
        single = np.fromiter((outcome(code_of, s) for s in strings), np.int64, n)
        valid = np.fromiter(map(is_valid, strings), bool, n)
        safe = list(map(safe_parse, strings))
        safe_valid = np.fromiter((p is not None for p in safe), bool, n)
        # parse_* raises where *_code does (the single answers), else gives safe_parse's
        # object, which is the string's token.
        parsed = np.fromiter(
            (
                p is not None and parse(s) is p and str(p) == s
                for s, p in zip(strings, safe, strict=True)
            ),
            bool,
            n,
        )
        checks = {
            "parse_many": (bulk >= 0) != expected,
            f"{name}_code": (single >= 0) != expected,
            "parse_many vs one by one": bulk != single,
            f"is_valid_{name}": valid != expected,
            f"safe_parse_{name}": safe_valid != expected,
            f"parse_{name}": parsed != expected,
        }
        for check, wrong in checks.items():
            failures += [
                f"{check}({strings[i]!a}): valid={bool(expected[i])}, "
                f"one by one {single[i]}, in bulk {bulk[i]}"
                for i in first(wrong)
            ]
    assert not failures, f"{core.IMPLEMENTATION}: " + "\n".join(failures[:SHOWN])


@pytest.mark.slow
@pytest.mark.skipif(len(CORES) < 2, reason="only the twin is expected here")
@pytest.mark.parametrize("length", SHORT_LENGTHS)
def test_compiled_core_and_twin_give_the_same_code_or_reason(length: int) -> None:
    # Each core's run checks that its per-string answers are its parse_many answers
    # (the test above), so the two cores' bulk answers agreeing is their per-string
    # answers agreeing.
    compiled, twin = CORES
    strings = short_strings(length)
    failures = []
    for epin in NOTATIONS:
        a, b = bulk_answers(compiled, strings, epin), bulk_answers(twin, strings, epin)
        failures += [
            f"{'epin' if epin else 'pin'}({strings[i]!a}): compiled {a[i]}, twin {b[i]}"
            for i in first(a != b)
        ]
    assert not failures, "\n".join(failures[:SHOWN])


def scanned(call: Callable[..., Any], s: str) -> object:
    """A scanning call's answer: its result, or where it failed, what stands there and
    the Reason member."""
    try:
        if "tokenize" in call.__name__:
            return [str(item) for item in call(s)]
        return call(s, 0)
    except ParseError as exc:
        assert type(exc.reason) is Reason, exc.reason
        return (exc.position, exc.token, exc.reason)


@pytest.mark.slow
@pytest.mark.skipif(len(CORES) < 2, reason="only the twin is expected here")
@pytest.mark.parametrize("length", range(4))  # longer texts: test_scan's random ones
def test_compiled_core_and_twin_scan_and_fail_alike(length: int) -> None:
    compiled, twin = CORES
    failures = []
    for name in ("scan_pin", "scan_epin", "tokenize_pin", "tokenize_epin"):
        strings = [s for s in short_strings(length, "/") if s or not name.startswith("scan")]
        a = [str(scanned(getattr(compiled, name), s)) for s in strings]
        b = [str(scanned(getattr(twin, name), s)) for s in strings]
        failures += [
            f"{name}({s!a}): compiled {x}, twin {y}"
            for s, x, y in zip(strings, a, b, strict=True)
            if x != y
        ][:SHOWN]
    assert not failures, "\n".join(failures[:SHOWN])


# The regexes decide each of the 128 ASCII characters in each of the five positions of
# "+K^'"; their character classes are ASCII sets, so no other code point can match
# anywhere and the core must reject every one of them (1.1 million, x5).
SHAPES = (("", ""), ("", "K^'"), ("+", "^'"), ("+K", "'"), ("+K^", ""))
CHUNK = 1 << 17  # code points per parse_many call


def shaped(shape: tuple[str, str], chars: Iterable[str]) -> list[str]:
    before, after = shape
    return [before + char + after for char in chars]


@pytest.mark.slow
def test_every_code_point_alone_and_in_every_position_agrees_with_the_regex(
    core: ModuleType,
) -> None:
    failures: list[str] = []
    for shape in SHAPES:
        bulk_got: dict[tuple[str, bool], list[np.ndarray]] = {}
        for start in range(0, sys.maxunicode + 1, CHUNK):  # each string built once
            strings = shaped(shape, map(chr, range(start, min(start + CHUNK, 0x110000))))
            for epin in NOTATIONS:
                name = "epin" if epin else "pin"
                mask = core.parse_many(strings, epin, "mark").valid_mask()
                bulk_got.setdefault(("parse_many", epin), []).append(np.flatnonzero(mask) + start)
                is_valid = getattr(core, f"is_valid_{name}")
                valid = np.fromiter(map(is_valid, strings), bool, len(strings))
                bulk_got.setdefault((f"is_valid_{name}", epin), []).append(
                    np.flatnonzero(valid) + start
                )
        for (how, epin), got in bulk_got.items():
            # the oracle: the code points the regex accepts here, all of them ASCII
            fullmatch = REGEX[epin].fullmatch
            ascii_shaped = shaped(shape, map(chr, range(128)))
            want = np.array([cp for cp, s in enumerate(ascii_shaped) if fullmatch(s)], np.int64)
            accepted = np.concatenate(got)
            if not np.array_equal(accepted, want):
                wrong = sorted(set(accepted.tolist()) ^ set(want.tolist()))[:SHOWN]
                failures += [f"{how}: {shaped(shape, [chr(cp)])[0]!a}" for cp in wrong]
    assert not failures, f"{core.IMPLEMENTATION}: " + "\n".join(failures[:SHOWN])
