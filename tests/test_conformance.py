"""Exhaustive conformance: each core accepts exactly the spec's tokens.

Every valid token, every string of length 0-5 over a tricky alphabet, and every Unicode
code point alone and in each position of a token, against the whole-string regexes.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from conftest import CORES, TRICKY
from oracle import EPIN_RE, PIN_RE

from sashite_epin import ParseError, Reason
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS
from sashite_epin._layout import all_codes


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


def outcome(code_of: object, s: str) -> int | Reason:
    """A core's answer for s: the code, or the Reason member it is not a token."""
    try:
        return code_of(s)  # type: ignore[operator, no-any-return]
    except ParseError as exc:
        assert type(exc.reason) is Reason, exc.reason
        return exc.reason


@pytest.mark.slow
@pytest.mark.parametrize("length", range(6))
def test_every_short_string_over_tricky_characters_agrees_with_the_regex(
    core: ModuleType, length: int
) -> None:
    for s in map("".join, itertools.product(TRICKY, repeat=length)):
        for is_valid, code_of, regex in (
            (core.is_valid_pin, core.pin_code, PIN_RE),
            (core.is_valid_epin, core.epin_code, EPIN_RE),
        ):
            expected = regex.fullmatch(s) is not None
            answer = outcome(code_of, s)
            if is_valid(s) is not expected or isinstance(answer, int) is not expected:
                pytest.fail(f"{core.IMPLEMENTATION}: {s!a} valid={expected} got {answer}")


@pytest.mark.slow
@pytest.mark.skipif(len(CORES) < 2, reason="only the twin is expected here")
@pytest.mark.parametrize("length", range(6))
def test_compiled_core_and_twin_give_the_same_code_or_reason(length: int) -> None:
    compiled, twin = CORES
    for s in map("".join, itertools.product(TRICKY, repeat=length)):
        for name in ("pin_code", "epin_code"):
            a, b = outcome(getattr(compiled, name), s), outcome(getattr(twin, name), s)
            if a != b:
                pytest.fail(f"{name}({s!a}): compiled {a!r}, twin {b!r}")


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
    for s in map("".join, itertools.product((*TRICKY, "/"), repeat=length)):
        for name in ("scan_pin", "scan_epin", "tokenize_pin", "tokenize_epin"):
            if name.startswith("scan") and not s:
                continue
            a = scanned(getattr(compiled, name), s)
            b = scanned(getattr(twin, name), s)
            if str(a) != str(b):
                pytest.fail(f"{name}({s!a}): compiled {a!r}, twin {b!r}")


@pytest.mark.slow
def test_every_code_point_alone_and_in_every_position_agrees_with_the_regex(
    core: ModuleType,
) -> None:
    # The regexes decide each of the 128 ASCII characters in each of the five positions
    # of "+K^'"; their character classes are ASCII sets, so no other code point can
    # match anywhere and the core must reject every one of them (1.1 million, x5).
    valid = {
        (regex.pattern, shaped)
        for cp in range(128)
        for shaped in _shapes(chr(cp))
        for regex in (PIN_RE, EPIN_RE)
        if regex.fullmatch(shaped)
    }
    is_pin, is_epin = core.is_valid_pin, core.is_valid_epin
    for cp in range(sys.maxunicode + 1):
        for shaped in _shapes(chr(cp)):
            if is_epin(shaped) is not ((EPIN_RE.pattern, shaped) in valid) or is_pin(
                shaped
            ) is not ((PIN_RE.pattern, shaped) in valid):
                pytest.fail(f"{core.IMPLEMENTATION}: {shaped!a}")


def _shapes(char: str) -> tuple[str, ...]:
    return (char, char + "K^'", "+" + char + "^'", "+K" + char + "'", "+K^" + char)
