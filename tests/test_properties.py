"""Property tests (hypothesis): for any text and any bytes, the compiled core, the twin
and the regex oracle agree (result and error reason); parse ∘ format is the identity;
bulk parsing is per-token parsing.

Examples are drawn from text near the grammar (token characters, look-alikes, separators)
as well as from all of Unicode / all bytes.  ``HYPOTHESIS_PROFILE=long`` runs 20x more
(the profiles: conftest.py).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from conftest import CORES, TRICKY
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import EPIN_RE, PIN_RE, is_token, oracle_tokenize

from sashite_epin import Epin, ParseError, Pin
from sashite_epin._layout import all_codes

TWIN = CORES[-1]
NEAR = st.sampled_from([*TRICKY, "A", "z", "\u212a", "\uff2b", "\x7f", "\x80", "\xff", "/"])
CHARS = st.one_of(NEAR, st.characters())
TEXT = st.one_of(st.text(NEAR, max_size=8), st.text(CHARS, max_size=8), st.from_regex(EPIN_RE))
# Bytes near the grammar: token bytes, every separator, high-bit bytes, NUL.
NEAR_BYTES = st.sampled_from(list(b"+-^'KkZa1 \t\n\r\x0b\x0c\x00\x80\xc3\xff"))
BYTES = st.one_of(
    st.binary(max_size=200),
    st.lists(NEAR_BYTES, max_size=200).map(bytes),
)
EPIN = st.booleans()


def outcome(core: ModuleType, s: object, epin: bool) -> tuple[str, object]:
    """('ok', code) or ('error', reason) of single-token parsing."""
    try:
        return "ok", (core.epin_code if epin else core.pin_code)(s)
    except ParseError as e:
        assert (e.token, e.notation, e.index) == (s, "EPIN" if epin else "PIN", None)
        return "error", e.reason


def bulk_outcome(core: ModuleType, tokens: object, epin: bool, errors: str) -> object:
    try:
        result = core.parse_many(tokens, epin, errors)
    except ParseError as e:
        return "error", e.index, e.token, e.reason
    return bytes(np.asarray(result).tobytes()), list(result.invalid)


@given(TEXT, EPIN)
def test_any_text_core_twin_and_oracle_agree(s: str, epin: bool) -> None:
    expected = outcome(TWIN, s, epin)
    assert (expected[0] == "ok") is is_token(s, epin)
    for core in CORES:
        assert outcome(core, s, epin) == expected
        valid = core.is_valid_epin(s) if epin else core.is_valid_pin(s)
        assert valid is is_token(s, epin)
        parsed = (core.safe_parse_epin if epin else core.safe_parse_pin)(s)
        assert (parsed is not None) is valid
        if valid:
            assert str(parsed) == s


@given(st.sampled_from(all_codes(True)))
def test_parse_of_format_is_the_identity(code: int) -> None:
    for core in CORES:
        token = core.format_code(code)
        assert core.epin_code(token) == code
        assert str(core.parse_epin(token)) == token
        assert core.parse_epin(token) is Epin.parse(token)
        if not code & 1:
            assert str(core.parse_pin(token)) == token and Pin.parse(token).code == code


@given(st.from_regex(PIN_RE, fullmatch=True))
def test_format_of_parse_is_the_identity(token: str) -> None:
    for core in CORES:
        assert core.format_code(core.pin_code(token)) == token
        assert str(Pin.parse(token)) == token == str(Epin.parse(token))


@given(st.lists(TEXT, max_size=40), EPIN)
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_bulk_lists_are_per_token_parsing(tokens: list[str], epin: bool) -> None:
    safe = "safe_parse_epin" if epin else "safe_parse_pin"
    expected = [getattr(TWIN, safe)(t) for t in tokens]
    assert [e is not None for e in expected] == [is_token(t, epin) for t in tokens]
    first_bad = next((i for i, e in enumerate(expected) if e is None), None)
    for core in CORES:
        marked = core.parse_many(tokens, epin, "mark")
        assert list(marked) == expected
        assert list(marked.invalid) == [i for i, e in enumerate(expected) if e is None]
        if first_bad is None:
            assert core.parse_many(tokens, epin).tokens() == tokens
        else:
            with pytest.raises(ParseError) as caught:
                core.parse_many(tokens, epin)
            assert (caught.value.index, caught.value.token) == (first_bad, tokens[first_bad])
            assert caught.value.reason == outcome(TWIN, tokens[first_bad], epin)[1]
    # numpy U arrays strip trailing NULs, as numpy itself does
    if all(not t.endswith("\x00") for t in tokens) and tokens:
        array = np.array(tokens, dtype="U")
        for core in CORES:
            assert list(core.parse_many(array, epin, "mark")) == expected


@given(BYTES, EPIN)
def test_any_bytes_core_twin_and_oracle_agree(data: bytes, epin: bool) -> None:
    tokens = data.split()  # the separators parse_many documents: bytes.split()'s
    texts = [t.decode("latin-1") for t in tokens]
    valid = [is_token(t, epin) for t in texts]
    for errors in ("mark", "raise"):
        results = [bulk_outcome(core, data, epin, errors) for core in CORES]
        assert all(r == results[0] for r in results), errors
    marked = bulk_outcome(TWIN, data, epin, "mark")
    assert isinstance(marked, tuple) and marked[1] == [i for i, v in enumerate(valid) if not v]
    for core in CORES:
        # the same bytes, unaligned and in a writable buffer, give the same result
        view = memoryview(bytearray(b"\xff" + data))[1:]
        assert bulk_outcome(core, view, epin, "mark") == marked


@given(st.text(st.one_of(NEAR, st.sampled_from("+-^'KkQq/8 ")), max_size=30), EPIN)
def test_tokenize_core_twin_and_oracle_agree(s: str, epin: bool) -> None:
    expected = oracle_tokenize(s, epin)
    for core in CORES:
        tokenize = core.tokenize_epin if epin else core.tokenize_pin
        if isinstance(expected, int):
            with pytest.raises(ParseError) as caught:
                tokenize(s)
            assert caught.value.position == expected
        else:
            assert [str(piece) for piece in tokenize(s)] == expected


@given(TEXT, st.integers(0, 8), EPIN)
def test_scan_core_and_twin_agree(s: str, pos: int, epin: bool) -> None:
    def attempt(core: ModuleType) -> object:
        try:
            token, end = (core.scan_epin if epin else core.scan_pin)(s, pos)
        except ParseError as e:
            return "error", e.position, e.token, e.reason
        except ValueError as e:
            return "outside", str(e)
        return str(token), end

    results = [attempt(core) for core in CORES]
    assert all(r == results[0] for r in results)
    if isinstance(results[0][1], int) and results[0][0] not in ("error", "outside"):
        token, end = results[0]
        assert is_token(s[pos:end], epin) and token == s[pos:end]
