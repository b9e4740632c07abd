"""The C-level API works for a third party: a Cython module outside the package
cimports the installed package's public ``sashite_epin/__init__.pxd`` (``from
sashite_epin cimport ...``), is compiled here, and must agree with the Python-level core
on every token, on scanning back-to-back text, on reason texts and on records."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest
from conftest import CORES, TRICKY, implementation_expected
from downstream.compile_downstream import load
from oracle import EPIN_RE, PIN_RE

from sashite_epin import ParseError, Reason
from sashite_epin._corpora import EPIN_TOKENS
from sashite_epin._errors import reason_text

pytestmark = pytest.mark.skipif(
    implementation_expected() == "python", reason="the C-level API needs the compiled core"
)


@pytest.fixture(scope="module")
def built(downstream_built: Path) -> Path:
    return downstream_built


@pytest.fixture(scope="module")
def probe(built: Path) -> ModuleType:
    return load(built, "engine_probe")


@pytest.fixture(scope="module")
def example(built: Path) -> ModuleType:
    return load(built, "capi_example")


@pytest.fixture(scope="module")
def feen(built: Path) -> ModuleType:
    return load(built, "feen_board")


def compiled() -> ModuleType:
    assert CORES[0].IMPLEMENTATION == "cython"
    return CORES[0]


def test_whole_tokens_agree_with_the_core(probe: ModuleType) -> None:
    core = compiled()
    for token in EPIN_TOKENS:
        assert probe.whole(token.encode(), True) == core.epin_code(token)
    strings = [a + b + c for a in TRICKY for b in TRICKY for c in TRICKY if (a + b + c).isascii()]
    for s in strings:
        for epin, regex in ((True, EPIN_RE), (False, PIN_RE)):
            code = probe.whole(s.encode(), epin)
            assert (code >= 0) == bool(regex.fullmatch(s)), s
            if code < 0:
                with pytest.raises(ValueError) as caught:
                    (core.epin_code if epin else core.pin_code)(s)
                assert caught.value.reason == reason_text(-code, "EPIN" if epin else "PIN")


def test_scanning_back_to_back_agrees_with_tokenize(probe: ModuleType) -> None:
    core = compiled()
    text = "-rnbqk^bn-r+p+p+p+PK^'p'-B+b^"
    pairs = probe.split(text.encode(), True)
    items = core.tokenize_epin(text)
    assert [code for code, _ in pairs] == [e.code for e in items]
    assert sum(used for _, used in pairs) == len(text)
    # C-level scanning judges what stands at p alone: a lone "^" is not a letter.
    assert probe.split(b"K^^", True) == [(core.epin_code("K^"), 2), (-Reason.NOT_A_LETTER.value, 0)]
    assert probe.constants()[1] == Reason.MULTIPLE_TERMINAL_MARKERS.value
    assert probe.split(b"K'", False)[0] == (core.pin_code("K"), 1)  # PIN stops before "'"


def test_format_and_records(probe: ModuleType) -> None:
    core = compiled()
    limit, _ = probe.constants()
    assert limit == 832
    for code in range(1024):
        token = probe.formatted(code)
        if token is None:
            with pytest.raises(ValueError):
                core.format_code(code)
            assert probe.record(code) is None
            continue
        assert token.decode() == core.format_code(code)
        record, abbr, derived = probe.record(code)
        parsed = core.parse_many([token.decode()], True)
        assert record == bytes(memoryview(parsed))
        assert abbr == token.decode().lstrip("+-")[0].upper() and derived == token.endswith(b"'")


def test_reason_texts_are_the_python_ones(probe: ModuleType) -> None:
    from sashite_epin import _messages

    for epin, notation in ((True, "EPIN"), (False, "PIN")):
        for number in range(1, _messages.REASON_COUNT):
            assert probe.reason(number, epin) == reason_text(number, notation)
            assert probe.reason(-number, epin) == reason_text(number, notation)
        assert probe.reason(0, epin) is None and probe.reason(99, epin) is None
        assert probe.reason(_messages.REASON_COUNT, epin) is None
    assert probe.reason(probe.whole(b"K^^", True), True) == str(Reason.MULTIPLE_TERMINAL_MARKERS)


def test_records_read_as_a_typed_memoryview(probe: ModuleType) -> None:
    core = compiled()
    result = core.parse_many(["K^", "x1", "+r'", None], True, "mark")
    assert probe.records_of(result) == [
        ((ord("K"), 0, 0, 1, 0), core.epin_code("K^")),
        ((0, 0, 0, 0, 0), -1),
        ((ord("R"), 1, 1, 0, 1), core.epin_code("+r'")),
        ((0, 0, 0, 0, 0), -1),
    ]
    assert probe.records_of(core.parse_many([], True)) == []


def test_the_documented_example_does_what_its_page_says(example: ModuleType) -> None:
    core = compiled()
    assert example.check(b"K^'") == core.epin_code("K^'")
    assert example.check(b"K^^") == str(Reason.MULTIPLE_TERMINAL_MARKERS)
    assert example.check(b"") == "empty"
    assert example.split(b"-rnbqk^bn-r") == [e.code for e in core.tokenize_epin("-rnbqk^bn-r")]
    assert example.split(b"Kq^^") == [core.epin_code("K"), core.epin_code("q^")]
    result = core.parse_many(["K^", "p", "x1", "+R'"], True, "mark")
    assert example.first_side_letters(result) == b"KR"
    assert example.highest_token() == (832, core.epin_code("z^'"), b"z^'", "Z", 1)
    assert example.failure(b"K^^") == (2, str(Reason.MULTIPLE_TERMINAL_MARKERS))
    assert example.failure(b"qK''") == (3, str(Reason.MULTIPLE_DERIVATION_MARKERS))
    assert example.failure(b"-rnbqk^bn-r") is None


def test_stop_reason_gives_what_tokenize_says_on_random_texts(probe: ModuleType) -> None:
    """scan_many, then stop_reason where it stops: the token, offset and reason of
    Pin.tokenize / Epin.tokenize, over random texts near the grammar, both grammars."""
    core = compiled()
    rng = random.Random(23)
    pieces = ["K", "q", "+R", "-b", "k^", "P'", "+n^'", "/", "8", "^", "'", "+", "-", "^^", "''"]
    for _ in range(3000):
        text = "".join(rng.choices(pieces, k=rng.randrange(0, 12)))
        for epin in (True, False):
            tokens, stop, reason = probe.tokenize_failure(text.encode(), epin)
            tokenize = core.tokenize_epin if epin else core.tokenize_pin
            try:
                items = tokenize(text)
            except ParseError as error:
                assert (stop, reason) == (error.position, error.reason.value), (text, epin)
                continue
            assert stop is None, (text, epin)
            assert tokens == [item.code for item in items if not isinstance(item, str)]


def test_scan_many_agrees_with_scan_prefix_in_any_batch_size(probe: ModuleType) -> None:
    rng = random.Random(7)
    pieces = [b"K", b"q", b"+R", b"-b", b"k^", b"P'", b"+n^'", b"/", b"8", b"^", b"'", b"+"]
    weights = [20, 20, 8, 8, 6, 6, 4, 6, 6, 1, 1, 1]
    for _ in range(400):
        text = b"".join(rng.choices(pieces, weights, k=rng.randrange(0, 160)))
        for epin in (True, False):
            # The greedy chain, skipping what is outside the alphabet: the reference.
            expected, at, failure, reason = [], 0, None, 0
            while at < len(text):
                if text[at : at + 1] in (b"/", b"8") or (not epin and text[at] == 0x27):
                    at += 1
                    continue
                ((code, used),) = probe.split(text[at : at + 4], epin)[:1]
                if code < 0:
                    failure, reason = at, -code
                    break
                expected.append((code, at))
                at += used
            if failure is not None:  # the reason is tokenize's, not scan_prefix's
                with pytest.raises(ParseError) as caught:
                    (compiled().tokenize_epin if epin else compiled().tokenize_pin)(text.decode())
                assert caught.value.position == failure
                reason = caught.value.reason.value
            for room in (1, 2, 3, 1000):
                assert probe.split_many(text, epin, room) == (expected, failure, reason), text


def test_scan_many_gives_tokenize_reasons_with_no_stop_reason_call(probe: ModuleType) -> None:
    """scan_many's own reason is what tokenize says, in every batch size, over 100,000
    random texts near the grammar (stray markers after tokens, long runs past the
    64-byte blocks), both grammars: no stop_reason call needed."""
    core = compiled()
    rng = random.Random(29)
    pieces = ["K", "q", "+R", "-b", "k^", "P'", "+n^'", "/", "8", "^", "'", "+", "-", "^^", "''"]
    pieces += ["KQRBNP" * 12, "/8/8/"]
    differ = 0
    for i in range(100_000):
        text = "".join(rng.choices(pieces, k=rng.randrange(0, 14)))
        epin = i % 2 == 0
        tokenize = core.tokenize_epin if epin else core.tokenize_pin
        try:
            tokenize(text)
            want = None
        except ParseError as error:
            want = (error.position, error.reason.value)
        _, stop, reason = probe.split_many(text.encode(), epin, (1, 2, 7, 1000)[i % 4])
        differ += (None if stop is None else (stop, reason)) != want
    assert differ == 0


def test_the_feen_example_decodes_placements_as_the_reference_reads_them(
    feen: ModuleType,
) -> None:
    from test_placement_capi import random_placement, reference

    from sashite_epin._corpora import PLACEMENTS

    rng = random.Random(41)
    # long enough placements to take several thousand squares
    wide = "/".join("".join(rng.choices(EPIN_TOKENS, k=300)) + "12" for _ in range(3))
    placements = [*PLACEMENTS, wide, "", "/", "8", "10K/K10", "/".join(["9"] * 9), "8//8"]
    placements += [random_placement(rng, EPIN_TOKENS) for _ in range(500)]
    noise = ["^", "'", "+", "-", "^^", "''", "*", " ", "/", "12", "+K^'", "0", "///"]
    for _ in range(1000):
        text = random_placement(rng, EPIN_TOKENS)
        at = rng.randrange(len(text) + 1)
        placements.append(text[:at] + rng.choice(noise) + text[at:])
    for placement in placements:
        for epin in (True, False):
            want = reference(placement, epin)
            try:
                squares, ranks, separators = feen.board(placement.encode(), epin, 4096)
                got: object = (0, list(squares), list(ranks), list(separators))
            except ValueError as error:
                offset, said = str(error).split(": ", 1)
                got = (_reason_number(said), int(offset.split()[1]))
            assert got == want, (placement, epin)
    squares, ranks, _ = feen.board(PLACEMENTS[1].encode())
    assert list(ranks) == [9] * 9 and len(squares) == 81
    assert squares[4] == compiled().epin_code("k^") and squares[9] == -1


def _reason_number(text: str) -> int:
    return next(r.value for r in Reason if str(r) == text)


def test_the_feen_example_refuses_a_board_bigger_than_its_room(feen: ModuleType) -> None:
    with pytest.raises(ValueError, match="offset 4: more squares or ranks than the room"):
        feen.board(b"8/8/K", True, 16)
    with pytest.raises(ValueError, match="offset 0: run of empty squares longer than the room"):
        feen.board(b"99999999999999999999999", True, 16)
    assert list(feen.board(b"8/8", True, 16)[1]) == [8, 8]
    rate, squares = feen.placements_per_second([p.encode() for p in ["8/8", "K7/8"]], 2)
    assert rate > 0 and squares == 32
