"""The published test vectors (those the public Ruby, Go and Rust implementations of
the specs test) and non-str inputs, through the public API on the active core."""

from __future__ import annotations

import pytest
from conftest import LyingStr

from sashite_epin import (
    EPIN_MAX_LENGTH,
    EPIN_TOKEN_COUNT,
    PIN_MAX_LENGTH,
    PIN_TOKEN_COUNT,
    Epin,
    ParseError,
    Pin,
    Reason,
)
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS

# In the quick loop (pytest -m quick): the specs' vectors and reasons.
pytestmark = pytest.mark.quick

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

# EPIN 1.0.0 §9.4, "Invalid token examples": each string, the reason the spec gives
# (its words must be in the message), and the Reason member.
EPIN_SPEC_TABLE = [
    ("", "empty", Reason.EMPTY),
    ("K''", "multiple derivation markers", Reason.MULTIPLE_DERIVATION_MARKERS),
    ("^K", "wrong order", Reason.TERMINAL_NOT_AFTER_LETTER),
    ("K'^", "derivation marker must be last", Reason.DERIVATION_NOT_LAST),
    ("++K", "multiple state modifiers", Reason.MULTIPLE_STATE_MODIFIERS),
    ("K^^", "multiple terminal markers", Reason.MULTIPLE_TERMINAL_MARKERS),
    ("1", "not a letter", Reason.NOT_A_LETTER),
    (" K", "whitespace", Reason.WHITESPACE),
    ("K\n", "line break", Reason.LINE_BREAK),
]
# PIN 1.0.0 §6.2, "Canonical form": the same for PIN's four examples.
PIN_SPEC_TABLE = [
    ("K+", "modifier must be a prefix", Reason.MODIFIER_NOT_FIRST),
    ("^K", "terminal marker must be a suffix", Reason.TERMINAL_NOT_AFTER_LETTER),
    ("++K", "only one modifier is allowed", Reason.MULTIPLE_STATE_MODIFIERS),
    ("K^^", "only one marker is allowed", Reason.MULTIPLE_TERMINAL_MARKERS),
]
# Beyond the tables: strings that break several rules get the first in Reason's order.
BY_THE_ORDER = [
    ("+K^'X", True, Reason.TOO_LONG),  # length first: long strings are not read
    ("K ^\n", True, Reason.LINE_BREAK),  # a line break before whitespace
    ("1 ", True, Reason.WHITESPACE),  # whitespace before "not a letter"
    ("+", True, Reason.NOT_A_LETTER),
    ("\u212a", True, Reason.NOT_A_LETTER),  # the Kelvin sign is no ASCII letter
    ("KK", True, Reason.MORE_THAN_ONE_LETTER),
    ("K1", True, Reason.OTHER_CHARACTER),
    ("K'", False, Reason.DERIVATION_IN_PIN),
    ("K'+", False, Reason.DERIVATION_IN_PIN),  # PIN has no "'" before all else
    ("+K-", True, Reason.MULTIPLE_STATE_MODIFIERS),
    ("^+K", True, Reason.MODIFIER_NOT_FIRST),
    ("'K'", True, Reason.MULTIPLE_DERIVATION_MARKERS),
    ("'K^", True, Reason.DERIVATION_NOT_LAST),  # before the misplaced "^"
    ("^K^", True, Reason.MULTIPLE_TERMINAL_MARKERS),
    ("K'^", True, Reason.DERIVATION_NOT_LAST),
]


@pytest.mark.parametrize("token", INVALID, ids=ascii)
def test_published_invalid_vectors_are_rejected_by_both_grammars(token: str) -> None:
    for cls in (Pin, Epin):
        assert cls.is_valid(token) is False
        assert cls.safe_parse(token) is None
        with pytest.raises(ParseError) as info:
            cls.parse(token)
        assert info.value.token == token
        assert info.value.index is None
        # Quoted as ascii() quotes: a look-alike never shows as the letter it imitates.
        assert ascii(token) in str(info.value) and str(info.value).isascii()


@pytest.mark.parametrize(("token", "words", "reason"), EPIN_SPEC_TABLE, ids=ascii)
def test_epin_spec_examples_get_the_spec_reason(token: str, words: str, reason: Reason) -> None:
    with pytest.raises(ParseError) as info:
        Epin.parse(token)
    assert info.value.reason is reason
    assert words in str(reason) and info.value.reason == str(reason)
    assert info.value.notation == "EPIN"
    assert str(info.value) == f"invalid EPIN token {token!a}: {reason}"


@pytest.mark.parametrize(("token", "words", "reason"), PIN_SPEC_TABLE, ids=ascii)
def test_pin_spec_examples_get_the_spec_reason(token: str, words: str, reason: Reason) -> None:
    with pytest.raises(ParseError) as info:
        Pin.parse(token)
    assert info.value.reason is reason
    assert words in str(reason)


@pytest.mark.parametrize(("token", "epin", "reason"), BY_THE_ORDER, ids=ascii)
def test_several_broken_rules_give_the_first_in_order(
    token: str, epin: bool, reason: Reason
) -> None:
    with pytest.raises(ParseError) as info:
        (Epin if epin else Pin).parse(token)
    assert info.value.reason is reason


def test_reason_is_a_stable_enum_that_reads_as_its_message() -> None:
    assert [r.value for r in Reason] == list(range(1, len(Reason) + 1))
    assert Reason(3) is Reason.LINE_BREAK and str(Reason.EMPTY) == "empty"
    assert Reason.EMPTY == "empty" and "empty" == Reason.EMPTY and Reason.EMPTY != "x"
    assert {Reason.EMPTY: 1}["empty"] == 1  # hashed as its text
    assert Reason.MULTIPLE_TERMINAL_MARKERS != Reason.MULTIPLE_STATE_MODIFIERS
    assert (PIN_MAX_LENGTH, EPIN_MAX_LENGTH, PIN_TOKEN_COUNT, EPIN_TOKEN_COUNT) == (3, 4, 312, 624)
    assert len(PIN_TOKENS) == PIN_TOKEN_COUNT and len(EPIN_TOKENS) == EPIN_TOKEN_COUNT
    assert max(map(len, EPIN_TOKENS)) == EPIN_MAX_LENGTH
    assert max(map(len, PIN_TOKENS)) == PIN_MAX_LENGTH


def test_the_message_names_notation_token_and_reason_exactly() -> None:
    with pytest.raises(
        ParseError, match=r"^invalid EPIN token \"K''\": multiple derivation markers\Z"
    ):
        Epin.parse("K''")


def test_too_long_says_the_notation_s_length() -> None:
    with pytest.raises(ParseError, match=r"too long \(at most 3 characters\)"):
        Pin.parse("+K^'")
    with pytest.raises(ParseError, match=r"too long \(at most 4 characters\)"):
        Epin.parse("+K^'x")
    with pytest.raises(ParseError) as info:
        Pin.parse("K'")
    assert info.value.notation == "PIN" and info.value.reason is Reason.DERIVATION_IN_PIN


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
    assert info.value.reason is Reason.MORE_THAN_ONE_LETTER
    assert "'KK'" in str(info.value)
