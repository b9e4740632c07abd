"""Scanning back-to-back tokens: greedy scan at a position and tokenize, on both
cores, against a regex oracle; then ordering, style resolution and byte output."""

from __future__ import annotations

import itertools
import random
from types import ModuleType

import pytest
from conftest import TRICKY, LyingStr
from oracle import EPIN_RE, PIN_RE, oracle_tokenize

from sashite_epin import Epin, NativeStyles, ParseError, Pin, Side, _core_py
from sashite_epin._corpora import EPIN_TOKENS, PLACEMENTS, uniform


def as_text(items: list[object]) -> list[str]:
    return [item if isinstance(item, str) else str(item) for item in items]


def scan_of(core: ModuleType, epin: bool):  # type: ignore[no-untyped-def]
    return core.scan_epin if epin else core.scan_pin


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_tokenize_matches_the_oracle_on_every_short_string(core: ModuleType, epin: bool) -> None:
    tokenize = core.tokenize_epin if epin else core.tokenize_pin
    alphabet = (*TRICKY, "/", "8")
    for length in range(5):
        for chars in itertools.product(alphabet, repeat=length):
            s = "".join(chars)
            expected = oracle_tokenize(s, epin)
            if isinstance(expected, int):
                with pytest.raises(ParseError) as caught:
                    tokenize(s)
                assert caught.value.position == expected, s
            else:
                assert as_text(tokenize(s)) == expected, s


def test_scan_at_every_position_matches_the_oracle(core: ModuleType) -> None:
    for epin in (True, False):
        regex = EPIN_RE if epin else PIN_RE
        for s in ["K^'+Rp-b", "ab+K^x", "+", "-/", "K''", "\u00c9K", *PLACEMENTS]:
            for pos in range(len(s) + 1):
                m = regex.match(s, pos)
                if m is None:
                    with pytest.raises(ParseError) as caught:
                        scan_of(core, epin)(s, pos)
                    assert caught.value.position == pos and str(pos) in str(caught.value)
                    continue
                found, end = scan_of(core, epin)(s, pos)
                assert (str(found), end) == (m.group(), m.end())


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_tokenize_matches_the_oracle_across_blocks(core: ModuleType, epin: bool) -> None:
    # The compiled scan reads 64 bytes at a time with 8 bytes of lookahead: long texts
    # put tokens, markers and failures astride every block boundary, at every length
    # around a multiple of 64 (the padded last block).
    tokenize = core.tokenize_epin if epin else core.tokenize_pin
    rng = random.Random(20261123)
    pieces = ["K", "q", "+R", "-b", "k^", "P'", "+n^'", "/", "8", "^", "'", "+", "-", "\u00e9"]
    weights = [20, 20, 8, 8, 6, 6, 4, 6, 6, 1, 1, 1, 1, 1]
    twin = _core_py.tokenize_epin if epin else _core_py.tokenize_pin
    for _ in range(1500):
        s = "".join(rng.choices(pieces, weights, k=rng.randrange(1, 200)))
        for text in (s, s[: 64 * (len(s) // 64)], s[:63], s[:72], s[:71], s[:136]):
            expected = oracle_tokenize(text, epin)
            if isinstance(expected, int):
                with pytest.raises(ParseError) as caught:
                    tokenize(text)
                with pytest.raises(ParseError) as by_twin:
                    twin(text)
                assert caught.value.position == expected, text
                assert caught.value.reason == by_twin.value.reason, text
            else:
                assert as_text(tokenize(text)) == expected, text


def test_back_to_back_tokens_split_back(core: ModuleType) -> None:
    tokens = uniform(3000)
    assert as_text(core.tokenize_epin("".join(tokens))) == tokens
    assert as_text(core.tokenize_epin("K^'+Rp-b")) == ["K^'", "+R", "p", "-b"]
    assert as_text(core.tokenize_epin("2PB")) == ["2", "P", "B"]


def test_scan_arguments_are_checked(core: ModuleType) -> None:
    with pytest.raises(TypeError):
        core.scan_epin(b"K", 0)
    with pytest.raises(TypeError):
        core.scan_epin("K", 0.0)
    with pytest.raises(TypeError):
        core.scan_epin("K", True)
    with pytest.raises(ValueError, match="outside"):
        core.scan_epin("K", 2)
    with pytest.raises(ValueError, match="outside"):
        core.scan_epin("K", -1)
    with pytest.raises(TypeError):
        core.tokenize_pin(None)


def test_facade_scanning_returns_the_interned_objects() -> None:
    assert Epin.scan("xx+K^'", 2) == (Epin.parse("+K^'"), 6)
    assert Pin.scan("K^'", 0) == (Pin.parse("K^"), 2)
    items = Epin.tokenize(PLACEMENTS[0])
    assert items[0] is Epin.parse("-r") and items[8] == "/"
    with pytest.raises(ParseError) as caught:
        Epin.tokenize("K^^")
    assert str(caught.value) == (
        "no EPIN token starts at position 2, where '^' stands: "
        "multiple terminal markers (only one marker is allowed)"
    )
    with pytest.raises(ParseError) as caught:
        Pin.scan("a1", 1)
    assert (caught.value.position, caught.value.token, str(caught.value)) == (
        1,
        "1",
        "no PIN token starts at position 1, where '1' stands: not a letter",
    )


# -- ordering ---------------------------------------------------------------------
def feen_key(token: str) -> tuple[int, ...]:
    """FEEN's hand order, stated directly: letter, uppercase first, - + none,
    non-terminal first, native first."""
    body = token.lstrip("+-")
    state = {"-": 0, "+": 1}.get(token[0], 2)
    return (ord(body[0].upper()), body[0].islower(), state, "^" in token, "'" in token)


def test_order_is_feens_hand_order() -> None:
    epins = [Epin.parse(t) for t in EPIN_TOKENS]
    assert [str(e) for e in sorted(epins)] == sorted(EPIN_TOKENS, key=feen_key)
    pins = [Pin.parse(t) for t in EPIN_TOKENS if "'" not in t]
    assert [str(p) for p in sorted(pins)] == sorted(map(str, pins), key=feen_key)
    a, b = Epin.parse("K"), Epin.parse("k")
    assert a < b and a <= b and b > a and b >= a and not b < a and a <= a


def test_pins_and_epins_do_not_compare() -> None:
    with pytest.raises(TypeError):
        Pin.parse("K") < Epin.parse("K")
    with pytest.raises(TypeError):
        Epin.parse("K") < "K"


def test_bulk_results_sort_the_same_way(core: ModuleType) -> None:
    tokens = uniform(5000)
    result = core.parse_many(tokens, True)
    assert result.sorted().tokens() == sorted(tokens, key=feen_key)
    assert list(result.codes()) == [core.epin_code(t) for t in tokens]
    marked = core.parse_many(["K", "x!"], True, "mark")
    with pytest.raises(ValueError, match="invalid"):
        marked.sorted()


# -- style resolution -----------------------------------------------------------------
def test_style_resolution() -> None:
    styles = NativeStyles(first="chess", second="shogi")
    assert styles.resolve(Epin.parse("K^")) == "chess"
    assert styles.resolve(Epin.parse("K^'")) == "shogi"
    assert styles.resolve(Epin.parse("p")) == "shogi"
    assert styles.resolve(Epin.parse("-p'")) == "chess"
    assert styles.of_side(Side.SECOND) == "shogi" and styles.of_side("first") == "chess"
    assert styles.epin(Pin.parse("p"), "chess") is Epin.parse("p'")
    assert styles.epin(Pin.parse("P"), "chess") is Epin.parse("P")
    with pytest.raises(ValueError, match="neither"):
        styles.epin(Pin.parse("P"), "xiangqi")
    same = NativeStyles("chess", "chess")
    assert same.epin(Pin.parse("p"), "chess") is Epin.parse("p")
    assert same.resolve(Epin.parse("p'")) == same.resolve(Epin.parse("p")) == "chess"
    with pytest.raises(TypeError):
        styles.resolve(Pin.parse("K"))  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        styles.first = "x"  # type: ignore[misc]
    assert styles == NativeStyles("chess", "shogi") and len({styles, styles}) == 1


def test_parsing_never_resolves_style() -> None:
    # EPIN 9.2: no marker is added or removed by parsing, whatever the context.
    for token in EPIN_TOKENS:
        assert str(Epin.parse(token)) == token


# -- byte output ------------------------------------------------------------------------
def test_append_to_and_write_into() -> None:
    buf = bytearray(b">")
    for token in ("+K^'", "p", "-b"):
        Epin.parse(token).append_to(buf)
    Pin.parse("K^").append_to(buf)
    assert buf == b">+K^'p-bK^"
    out = bytearray(8)
    end = Epin.parse("+K^'").write_into(out, 2)
    assert (end, bytes(out)) == (6, b"\0\0+K^'\0\0")
    assert Pin.parse("q").write_into(memoryview(out), 7) == 8 and out[7:] == b"q"
    with pytest.raises(IndexError):
        Epin.parse("+K^'").write_into(out, 6)  # would grow the bytearray
    assert len(out) == 8
    with pytest.raises(IndexError):
        Epin.parse("K").write_into(out, -1)
    with pytest.raises(TypeError):
        Epin.parse("K").append_to(b"")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Epin.parse("K").write_into(out, True)


def test_str_subclasses_are_scanned_by_their_characters(core: ModuleType) -> None:
    text = LyingStr("K^'\u00e9+R/8")
    assert as_text(core.tokenize_epin(text)) == ["K^'", "\u00e9", "+R", "/8"]
    assert str(core.scan_epin(LyingStr("xK"), 1)[0]) == "K"
    with pytest.raises(ParseError) as caught:
        core.tokenize_epin(LyingStr("\u00e9+/"))
    assert (caught.value.position, caught.value.token) == (1, "+")
