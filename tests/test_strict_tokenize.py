"""strict tokenize: between tokens only what FEEN's piece placement puts there (digits,
"/"); any other character there is a ParseError (or a mark) with its reason and offset.

Every short string over an alphabet of tricky characters is checked against a regex
oracle (tests/oracle.py) on both cores, alone and in bulk; then rows past every
internal size (SIMD blocks, pieces, windows), Arrow columns, and the defaults, which
strict leaves as they were."""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator
from types import ModuleType

import pyarrow as pa
import pytest
from conftest import CORES
from oracle import is_strict_placement, oracle_strict_tokenize, oracle_tokenize

from sashite_epin import Epin, ParseError, Pin, Reason
from sashite_epin._corpora import EPIN_TOKENS

# Tokens' characters, FEEN's between-token characters, and what a placement never holds:
# whitespace, line breaks, NUL, a fullwidth K, the Kelvin sign, a non-ASCII letter.
ALPHABET = ["K", "k", "+", "-", "^", "'", "/", "1", "0", "9",
            " ", "\t", "\r", "\n", "\x00", "\uff2b", "\u212a", "\u00e9"]  # fmt: skip
SHORT_ALPHABET = ["K", "+", "^", "'", "/", "1", " ", "\n", "\uff2b", "\x00"]


def strings(alphabet: list[str], longest: int) -> Iterator[str]:
    for length in range(longest + 1):
        for chars in itertools.product(alphabet, repeat=length):
            yield "".join(chars)


ALL_STRINGS = [*strings(ALPHABET, 4), *(s for s in strings(SHORT_ALPHABET, 5) if len(s) == 5)]


def answer(core: ModuleType, s: str, epin: bool, strict: bool) -> tuple[object, ...]:
    """tokenize's answer: ("ok", items as str) or ("error", reason, token, position)."""
    try:
        items = (core.tokenize_epin if epin else core.tokenize_pin)(s, strict=strict)
    except ParseError as error:
        return ("error", error.reason, error.token, error.position)
    return ("ok", [str(item) for item in items])


def stray_reason(s: str, at: int, epin: bool) -> Reason:
    """The reason of a character no token holds and no placement allows, by hand."""
    char = s[at]
    if char in "\r\n":
        return Reason.LINE_BREAK
    if char in " \t\x0b\x0c":
        return Reason.WHITESPACE
    if char == "'" and not epin:  # right after a token: judged with it
        before = oracle_tokenize(s[:at], epin)
        if isinstance(before, list) and before and (Pin.safe_parse(before[-1]) is not None):
            return Reason.DERIVATION_IN_PIN
    return Reason.NOT_A_LETTER


@pytest.mark.slow
@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_every_short_string_against_the_oracle(core: ModuleType, epin: bool) -> None:
    """Every string of up to 4 characters over ALPHABET (5 over a shorter one): strict
    tokenize fails exactly where the oracle does (the regex fullmatch agrees), at the
    first of non-strict's failure and the first stray character, with non-strict's
    reason there or the stray character's own; where it does not fail, its items are
    non-strict's.  The other core gives the same answer."""
    twin = CORES[-1] if core is not CORES[-1] else None  # the compiled one checked against it
    for s in ALL_STRINGS:
        got = answer(core, s, epin, True)
        if twin is not None:
            assert got == answer(twin, s, epin, True), s
        want = oracle_strict_tokenize(s, epin)
        assert (got[0] == "ok") == is_strict_placement(s, epin), s
        if isinstance(want, list):
            assert got == ("ok", want), s
            assert answer(core, s, epin, False) == got, s
            continue
        assert got[0] == "error" and got[3] == want, s
        loose = answer(core, s, epin, False)
        if loose[0] == "error" and loose[3] == want:  # non-strict's failure comes first
            assert got == loose, s
        else:
            assert got == ("error", stray_reason(s, want, epin), s[want], want), s


@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_strict_changes_nothing_by_default(core: ModuleType, epin: bool) -> None:
    """strict=False is tokenize as it was: the characters outside the alphabet kept as
    str items, whatever they are."""
    for s in ALL_STRINGS[::7]:
        default = answer(core, s, epin, False)
        items = core.tokenize_epin if epin else core.tokenize_pin
        try:
            plain = ("ok", [str(item) for item in items(s)])
        except ParseError as error:
            plain = ("error", error.reason, error.token, error.position)
        assert plain == default, s
        want = oracle_tokenize(s, epin)
        assert (default[0] == "ok") == isinstance(want, list), s


def by_row(result: object, rows: int) -> list[tuple[object, ...]]:
    """tokenize_many's answer per row, as answer() gives it (tokens only, and their
    offsets, since tokenize_many keeps no other items)."""
    marks = dict(zip(result.invalid, result.errors(), strict=True))  # type: ignore[attr-defined]
    ranges, offsets = list(result.row_offsets), list(result.offsets)  # type: ignore[attr-defined]
    tokens = [TOKEN.get(code) for code in result.codes()]  # type: ignore[attr-defined]
    out: list[tuple[object, ...]] = []
    for i in range(rows):
        start, stop = ranges[i], ranges[i + 1]
        if stop - start == 1 and start in marks:
            e = marks[start]
            out.append(("error", e.reason, e.token, e.position))
        else:
            out.append(("ok", tokens[start:stop], offsets[start:stop]))
    return out


TOKEN = {Epin.parse(token).code: token for token in EPIN_TOKENS}  # a Pin's is its Epin's


def row_answer(core: ModuleType, s: str, epin: bool) -> tuple[object, ...]:
    """What tokenize_many must give for s under strict: tokenize(strict=True)'s tokens
    and their offsets, or its error."""
    got = answer(core, s, epin, True)
    if got[0] == "error":
        return got
    tokens, offsets, at = [], [], 0
    for item in got[1]:  # type: ignore[attr-defined]
        if item[0] not in "0123456789/":  # a run: digits and "/" only, under strict
            tokens.append(item)
            offsets.append(at)
        at += len(item)
    return ("ok", tokens, offsets)


@pytest.mark.slow
@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_tokenize_many_is_tokenize_on_each_short_string(core: ModuleType, epin: bool) -> None:
    """All the short strings as one column (a hundred thousand rows, past many pieces,
    refused ones close together): each row marked as tokenize(strict=True) refuses it,
    or its tokens; a list and an Arrow column alike."""
    rows = ALL_STRINGS
    want = strict_answers(epin)
    assert by_row(core.tokenize_many(rows, epin, "mark", True), len(rows)) == want
    column = pa.array(rows, pa.large_string())
    assert by_row(core.tokenize_many(column, epin, "mark", True), len(rows)) == want


@functools.cache
def strict_answers(epin: bool) -> list[tuple[object, ...]]:
    """row_answer on every short string, by the twin (computed once for both cores)."""
    return [row_answer(CORES[-1], s, epin) for s in ALL_STRINGS]


def placement_rows(rng: random.Random, count: int, longest: int) -> list[str]:
    """Valid placements of random lengths, each with a stray character at a random place
    or at a 64-byte block's edge (or none)."""
    rows = []
    for _ in range(count):
        length = rng.choice([0, 1, 5, 63, 64, 65, 127, 128, 129, rng.randrange(longest)])
        text = "".join(rng.choice(["K", "+p", "8", "/", "q^'", "-R^", "12"]) for _ in range(length))
        if text and rng.random() < 0.7:
            at = rng.choice([0, len(text) - 1, min(63, len(text) - 1), min(64, len(text) - 1),
                             rng.randrange(len(text))])  # fmt: skip
            text = text[:at] + rng.choice(" \t\r\n\x00\uff2b\u212a\u00e9,") + text[at + 1 :]
        rows.append(text)
    return rows


@pytest.mark.parametrize("piece", [None, 100, 1], ids=["default", "100B", "1B"])
def test_marks_at_piece_and_block_edges(core: ModuleType, piece: int | None) -> None:
    """Rows of every length about a block (64 bytes), with their stray character at its
    edges, read with the default pieces and with tiny ones (each row then read alone, a
    window at a time): each row as tokenize(strict=True) gives it, raise or mark."""
    rng = random.Random(piece)
    rows = placement_rows(rng, 3000, 400)
    before = core.use_piece_size(piece) if piece else None
    try:
        for epin in (True, False):
            want = [row_answer(CORES[-1], s, epin) for s in rows]
            assert by_row(core.tokenize_many(rows, epin, "mark", True), len(rows)) == want
            got = core.tokenize_many(pa.array(rows), epin, "mark", True)
            assert by_row(got, len(rows)) == want
            first = next(i for i, w in enumerate(want) if w[0] == "error")
            with pytest.raises(ParseError) as info:
                core.tokenize_many(rows, epin, "raise", True)
            assert (info.value.index, info.value.position) == (first, want[first][3])
            assert info.value.reason == want[first][1]
    finally:
        if before is not None:
            core.use_piece_size(before)


UNIT = "+P^k-r8/12//"  # a placement's characters, 12 of them


@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_long_rows_fail_at_their_stray_character(core: ModuleType, epin: bool) -> None:
    """Rows longer than a piece (128 KiB), ASCII or not, with one stray character at
    the edges of blocks, windows and pieces: each fails there, by tokenize's rule; the
    rows around them keep their tokens."""
    # past three pieces on the compiled core; the twin has no pieces (and is slow)
    length = 3 * (1 << 17) + 100 if core.IMPLEMENTATION == "cython" else 3000
    base = UNIT * (length // len(UNIT))
    valid = core.tokenize_many([base], epin, "raise", True)
    places = [p for p in (0, 63, 64, 65, (1 << 17) - 1, 1 << 17, (1 << 17) + 1,
                          2 * (1 << 17) + 5) if p < len(base)] + [len(base) - 1]  # fmt: skip
    rows = [base]
    for at in places:
        for stray in (" ", "\x00", "\u212a"):
            # on a digit or "/": nothing before it fails
            at_free = at + next(i for i, c in enumerate(base[at:]) if c in "0123456789/")
            rows.append(base[:at_free] + stray + base[at_free + 1 :])
    rows.append("P\u00e9" + base)  # not ASCII: narrowed, fails at 1
    rows.append(base)
    got = core.tokenize_many(rows, epin, "mark", True)
    answers = by_row(got, len(rows))
    assert answers[0] == answers[-1] == by_row(valid, 1)[0]
    assert answers[0][0] == "ok" and len(answers[0][1]) == len(valid)  # type: ignore[arg-type]
    for row, text in enumerate(rows[1:-1], 1):
        position = next(i for i, c in enumerate(text) if c not in UNIT)
        reason = Reason.WHITESPACE if text[position] == " " else Reason.NOT_A_LETTER
        assert answers[row] == ("error", reason, text[position], position), row
        if row % 7 == 1:  # tokenize on the row alone says the same
            assert answer(core, text, epin, True) == answers[row]


def test_the_stray_apostrophe_of_pin(core: ModuleType) -> None:
    """PIN has no "'": right after a token, strict judges it with the token (as parse
    judges "K'"); elsewhere, alone.  EPIN takes it as the token's."""
    for text, want in [("K'", ("error", Reason.DERIVATION_IN_PIN, "'", 1)),
                       ("+K^'8", ("error", Reason.DERIVATION_IN_PIN, "'", 3)),
                       ("8'", ("error", Reason.NOT_A_LETTER, "'", 1)),
                       ("'K", ("error", Reason.NOT_A_LETTER, "'", 0))]:  # fmt: skip
        assert answer(core, text, False, True) == want, text
        assert answer(core, text, False, False)[0] == "ok", text
    assert answer(core, "+K^'8", True, True) == ("ok", ["+K^'", "8"])


def test_examples() -> None:
    assert [str(item) for item in Epin.tokenize("K\x00Q")] == ["K", "\x00", "Q"]
    with pytest.raises(ParseError) as info:
        Epin.tokenize("K\x00Q", strict=True)
    assert (info.value.position, info.value.token, info.value.reason) == (
        1, "\x00", Reason.NOT_A_LETTER)  # fmt: skip
    with pytest.raises(ParseError) as info:
        Pin.tokenize_many(["8/8", "K Q"], strict=True)
    assert (info.value.index, info.value.position, info.value.reason) == (
        1, 1, Reason.WHITESPACE)  # fmt: skip
    marked = Epin.tokenize_many(["K^/8", "k\r\nq", "\uff2b"], errors="mark", strict=True)
    assert [(e.index, e.position, e.reason) for e in marked.errors()] == [
        (1, 1, Reason.LINE_BREAK), (2, 0, Reason.NOT_A_LETTER)]  # fmt: skip
    assert Epin.tokenize_many(["K Q"]).tokens() == ["K", "Q"]  # the default skips it


def test_strict_must_be_a_bool(core: ModuleType) -> None:
    for wrong in (1, 0, "yes", None):
        with pytest.raises(TypeError, match="strict must be True or False"):
            core.tokenize_epin("K", strict=wrong)
        with pytest.raises(TypeError, match="strict must be True or False"):
            core.tokenize_many(["K"], True, "raise", wrong)
    with pytest.raises(TypeError, match="strict must be True or False"):
        Pin.tokenize_many(["K"], strict=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        core.tokenize_pin("K", True)  # keyword only


def test_every_kernel_finds_the_same_stray_character(bytes_core: ModuleType) -> None:
    """The stray search runs in the bytes kernel's instructions (AVX2 under avx2 and
    avx512, SSE2, NEON, plain C): under each, a stray character at every offset of the
    first blocks of a text, and rows with theirs at the blocks' edges, give the twin's
    answers."""
    twin = CORES[-1]
    base = UNIT * 40  # 480 characters: seven blocks and a tail
    texts = [base[:at] + stray + base[at + 1 :] for at in range(200) for stray in " \x00"]
    texts += [base, base[:-1] + "\t", "\u212a" + base, base + "\u00e9"]
    rows = placement_rows(random.Random(5), 1500, 400)
    for epin in (True, False):
        for text in texts:
            assert answer(bytes_core, text, epin, True) == answer(twin, text, epin, True)
        want = [row_answer(twin, s, epin) for s in rows]
        assert by_row(bytes_core.tokenize_many(rows, epin, "mark", True), len(rows)) == want
