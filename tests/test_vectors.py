"""The published test vectors (those the public Ruby, Go and Rust implementations of
the specs test) and non-str inputs, through the public API on the active core."""

from __future__ import annotations

import pytest
from conftest import LyingStr

from sashite_epin import Epin, ParseError, Pin

INVALID = [
    "",
    "+",
    "^",
    "'",
    "1",
    "KK",
    "K+",
    "^K",
    "++K",
    "+-K",
    "K^^",
    "K''",
    "K'^",
    "'K",
    "+K^'X",
    " K",
    "K ",
    "K\n",
    "\nK",
    "K\r",
    "K\t",
    "K\x00",
    "\x00K",
    "K\x7f",
    "\u041a",
    "\u0391",
    "\uff2b",
    "\u212a",
    "K\u0301",
    "K\u200b",
    "\ufeffK",
]

REASONS = {
    "": "empty input",
    "+K^'X": "input exceeds 4 characters",
    "KK": "must contain exactly one letter",
    "1": "must contain exactly one letter",
    "+": "must contain exactly one letter",
    "++K": "invalid state modifier",
    "K+": "invalid state modifier",
    "^K": "invalid terminal marker",
    "K^^": "invalid terminal marker",
    "K'^": "invalid terminal marker",
    "K''": "invalid derivation marker",
    "'K": "invalid derivation marker",
    "K\n": "unexpected character",
    "\u212a": "must contain exactly one letter",
}


@pytest.mark.parametrize("token", INVALID, ids=ascii)
def test_published_invalid_vectors_are_rejected_by_both_grammars(token: str) -> None:
    for cls in (Pin, Epin):
        assert cls.is_valid(token) is False
        assert cls.safe_parse(token) is None
        with pytest.raises(ParseError) as info:
            cls.parse(token)
        assert info.value.token == token
        assert info.value.index is None
        assert repr(token) in str(info.value)


@pytest.mark.parametrize(("token", "reason"), REASONS.items(), ids=ascii)
def test_epin_reasons_name_what_is_wrong(token: str, reason: str) -> None:
    with pytest.raises(ParseError) as info:
        Epin.parse(token)
    assert info.value.reason == reason
    assert info.value.notation == "EPIN"
    assert str(info.value) == f"invalid EPIN token {token!r}: {reason}"


def test_the_message_names_notation_token_and_reason_exactly() -> None:
    with pytest.raises(
        ParseError, match=r"^invalid EPIN token \"K''\": invalid derivation marker\Z"
    ):
        Epin.parse("K''")


def test_pin_reasons_count_three_characters_and_know_no_derivation_marker() -> None:
    with pytest.raises(ParseError, match="input exceeds 3 characters"):
        Pin.parse("+K^'")
    with pytest.raises(ParseError, match="unexpected character") as info:
        Pin.parse("K'")
    assert info.value.notation == "PIN"


def test_parse_error_is_a_value_error_and_pickles() -> None:
    import pickle

    with pytest.raises(ValueError) as info:
        Epin.parse("K''")
    again = pickle.loads(pickle.dumps(info.value))
    assert (again.token, again.reason, str(again)) == ("K''", info.value.reason, str(info.value))


def test_a_huge_token_gives_a_short_message_and_keeps_the_whole_token() -> None:
    token = "K" * 3_000_000
    with pytest.raises(ParseError) as info:
        Epin.parse(token)
    assert info.value.token is token
    assert len(str(info.value)) < 120


@pytest.mark.parametrize("value", [None, b"K", bytearray(b"K"), 75, 1.0, ["K"], ("K",), object()])
def test_non_str_input_is_a_type_error_for_parse_and_false_otherwise(value: object) -> None:
    for cls in (Pin, Epin):
        with pytest.raises(TypeError, match="must be str"):
            cls.parse(value)  # type: ignore[arg-type]
        assert cls.is_valid(value) is False
        assert cls.safe_parse(value) is None


def test_a_str_subclass_is_parsed_by_its_characters_not_its_methods() -> None:
    assert Epin.parse(LyingStr("+k^'")) is Epin.parse("+k^'")
    assert Epin.is_valid(LyingStr("K K")) is False
    assert Pin.parse(LyingStr("K^")) is Pin.parse("K^")
    assert Epin.safe_parse(LyingStr("K^^")) is None
    with pytest.raises(ParseError) as info:
        Pin.parse(LyingStr("KK"))
    assert info.value.reason == "must contain exactly one letter"
    assert "'KK'" in str(info.value)
