"""The C API's whole placements, as a third party calls them: scan_placement and
format_placement from a module compiled here against the installed package
(tests/downstream/placement_probe.pyx), checked against a reference written from
FEEN's grammar over the Python tokenize, on real placements, random ones, broken ones
and ones past every room."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import CORES, implementation_expected
from downstream.compile_downstream import load

from sashite_epin import ParseError, Reason
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS, PLACEMENTS, placements

pytestmark = pytest.mark.skipif(
    implementation_expected() == "python", reason="the C-level API needs the compiled core"
)

Result = tuple[object, ...]


@pytest.fixture(scope="module")
def probe(downstream_built: Path) -> ModuleType:
    return load(downstream_built, "placement_probe")


def reference(text: str, epin: bool, room: int = 4096, rank_room: int = 512) -> Result:
    """FEEN's placement from Epin.tokenize / Pin.tokenize and the grammar between tokens:
    (0, squares, lengths, separators) or (reason number, offset)."""
    core = CORES[0]
    tokenize = core.tokenize_epin if epin else core.tokenize_pin
    scan = core.scan_epin if epin else core.scan_pin
    if not text:
        return (Reason.EMPTY.value, 0)
    failure = None
    try:
        items = tokenize(text)
    except ParseError as error:
        failure = (error.reason.value, error.position)
        items = tokenize(text[: error.position])
    squares: list[int] = []
    lengths: list[int] = []
    separators: list[int] = []
    pos = start = separator_at = 0
    for item in items:
        if not isinstance(item, str):
            if len(squares) >= room:
                return (Reason.NO_ROOM.value, pos)
            squares.append(item.code)
            pos += len(str(item))
            continue
        j = 0
        while j < len(item):
            at, c = pos + j, item[j]
            if c == "/":
                if item.startswith("///", j):
                    return (Reason.TOO_MANY_SEPARATORS.value, at)
                if len(squares) == start:
                    return (Reason.EMPTY_RANK.value, at)
                if len(lengths) >= rank_room:
                    return (Reason.NO_ROOM.value, at)
                separator = 2 if item.startswith("//", j) else 1
                lengths.append(len(squares) - start)
                separators.append(separator)
                start, separator_at = len(squares), at
                j += separator
            elif c == "0":
                return (Reason.LEADING_ZERO.value, at)
            elif c in "123456789":
                digits = re.match(r"[0-9]+", item[j:])
                assert digits is not None
                if int(digits.group()) > room - len(squares):
                    return (Reason.RUN_TOO_LONG.value, at)
                squares += [-1] * int(digits.group())
                j += len(digits.group())
            else:  # nothing else stands between tokens: what scanning says there
                if c == "'":
                    return (Reason.DERIVATION_IN_PIN.value, at)
                with pytest.raises(ParseError) as caught:
                    scan(text, at)
                return (caught.value.reason.value, at)
        pos += len(item)
    if failure:
        return failure
    if len(squares) == start:
        return (Reason.EMPTY_RANK.value, separator_at)
    if len(lengths) >= rank_room:
        return (Reason.NO_ROOM.value, len(text))
    lengths.append(len(squares) - start)
    separators.append(0)
    return (0, squares, lengths, separators)


def scanned(probe: ModuleType, text: str, epin: bool, room: int = 4096, ranks: int = 512) -> Result:
    got = probe.scan(text.encode(), epin, room, ranks)
    if got[0]:
        reason, at, said = got[:3]
        assert said == str(Reason(reason)), text
        return (reason, at)
    return tuple(got)


def random_placement(rng: random.Random, tokens: list[str]) -> str:
    ranks = []
    for _ in range(rng.randint(1, 12)):
        rank, empty = [], 0
        for _ in range(rng.randint(1, 14)):
            if rng.random() < 0.35:
                empty += 1
                continue
            if empty:
                rank.append(str(empty))
                empty = 0
            rank.append(rng.choice(tokens))
        rank.append(str(empty) if empty else "")
        ranks.append("".join(rank) or "1")
    separators = [rng.choice(["/", "/", "/", "//"]) for _ in ranks[1:]]
    return ranks[0] + "".join(s + r for s, r in zip(separators, ranks[1:], strict=True))


def test_real_placements_decode_and_format_back(probe: ModuleType) -> None:
    corpus = [*PLACEMENTS, *placements(300, seed=5), "K", "k^+p4+PK", "8", "19", "1" * 3]
    corpus += ["5/5/5//5/5/5", "rnbk^/5//5/KBNR", "/".join(["12"] * 12)]
    for text in corpus:
        for epin in (True, False):
            want = reference(text, epin)
            assert scanned(probe, text, epin) == want, (text, epin)
            if want[0] == 0:
                _, squares, lengths, separators = want
                assert probe.format(squares, lengths, separators, epin) == (text.encode(),)
    rc, squares, lengths, separators = probe.scan(PLACEMENTS[1].encode())
    assert rc == 0 and lengths == [9] * 9 and separators == [1] * 8 + [0]
    assert squares[4] == CORES[0].epin_code("k^") and squares[9] == -1


def test_random_placements_agree_with_the_reference(probe: ModuleType) -> None:
    rng = random.Random(51)
    for _ in range(1500):
        epin = rng.random() < 0.7
        text = random_placement(rng, EPIN_TOKENS if epin else PIN_TOKENS)
        want = reference(text, epin)
        assert want[0] == 0, text
        assert scanned(probe, text, epin) == want, text
        _, squares, lengths, separators = want
        assert probe.format(squares, lengths, separators, epin) == (text.encode(),)


def test_broken_placements_fail_where_and_as_the_reference_says(probe: ModuleType) -> None:
    rng = random.Random(53)
    noise = ["^", "'", "+", "-", "^^", "''", "*", " ", "\t", "\n", "\r", "/", "//", "///", "0"]
    noise += ["00", "01", "+K^'", "K", "\x00", "\x7f", "12", "9" * 5, "/8/"]
    seen: set[int] = set()
    for _ in range(4000):
        epin = rng.random() < 0.6
        text = random_placement(rng, EPIN_TOKENS)
        for _ in range(rng.randint(1, 2)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(noise) + text[at:]
        want = reference(text, epin)
        assert scanned(probe, text, epin) == want, (text, epin)
        seen.add(int(want[0]))  # type: ignore[call-overload]
    # the faults of the text between tokens and of the tokens themselves all came up
    assert seen >= {
        r.value
        for r in (
            *(Reason.EMPTY_RANK, Reason.LEADING_ZERO, Reason.TOO_MANY_SEPARATORS),
            *(Reason.WHITESPACE, Reason.LINE_BREAK, Reason.NOT_A_LETTER),
            *(Reason.MULTIPLE_TERMINAL_MARKERS, Reason.MULTIPLE_DERIVATION_MARKERS),
            *(Reason.DERIVATION_IN_PIN, Reason.MULTIPLE_STATE_MODIFIERS),
        )
    }


def test_each_fault_by_name(probe: ModuleType) -> None:
    cases = {
        "": (Reason.EMPTY, 0),
        "/8": (Reason.EMPTY_RANK, 0),
        "8/": (Reason.EMPTY_RANK, 1),
        "8//": (Reason.EMPTY_RANK, 1),
        "8///8": (Reason.TOO_MANY_SEPARATORS, 1),
        "08": (Reason.LEADING_ZERO, 0),
        "K0": (Reason.LEADING_ZERO, 1),
        "K 8": (Reason.WHITESPACE, 1),
        "K\n8": (Reason.LINE_BREAK, 1),
        "K*8": (Reason.NOT_A_LETTER, 1),
        "K^^": (Reason.MULTIPLE_TERMINAL_MARKERS, 2),
        "K''": (Reason.MULTIPLE_DERIVATION_MARKERS, 2),
        "++K": (Reason.MULTIPLE_STATE_MODIFIERS, 0),
        "K+/": (Reason.NOT_A_LETTER, 1),
        "\xc3\x89": (Reason.NOT_A_LETTER, 0),
    }
    for text, (reason, at) in cases.items():
        assert probe.scan(text.encode("latin-1"))[:2] == (reason.value, at), text
    assert probe.scan(b"K'", False)[:2] == (Reason.DERIVATION_IN_PIN.value, 1)
    assert probe.scan(b"\xc3\x89")[:2] == (Reason.NOT_A_LETTER.value, 0)


def test_rooms_are_never_passed(probe: ModuleType) -> None:
    rng = random.Random(57)
    for _ in range(600):
        text = random_placement(rng, EPIN_TOKENS)
        room, ranks = rng.randint(0, 90), rng.randint(0, 14)
        want = reference(text, True, room, ranks)
        assert scanned(probe, text, True, room, ranks) == want, (text, room, ranks)
    assert probe.scan(b"9" * 40, True, 16)[:2] == (Reason.RUN_TOO_LONG.value, 0)
    assert probe.scan(b"K" * 17, True, 16)[:2] == (Reason.NO_ROOM.value, 16)
    assert probe.scan(b"8/8/8", True, 64, 2)[:2] == (Reason.NO_ROOM.value, 5)
    assert probe.scan(b"8/8", True, 64, 1)[:2] == (Reason.NO_ROOM.value, 3)
    # past the probe's 4096 squares: one run, then one more square
    assert probe.scan(b"4096")[0] == 0
    assert probe.scan(b"4096K")[:2] == (Reason.NO_ROOM.value, 4)
    assert probe.scan(b"4097")[:2] == (Reason.RUN_TOO_LONG.value, 0)
    # A count a rank's int32 length cannot hold, or past int64: too long whatever the
    # room (the room here is claimed, never written: the scan refuses before writing).
    huge = sys.maxsize
    for text in (b"2147483648", b"99999999999999999999", b"18446744073709551617K"):
        assert probe.scan_count(text, huge) == (Reason.RUN_TOO_LONG.value, 0, 0)
    assert probe.scan_count(b"K^2147483647", huge) == (Reason.RUN_TOO_LONG.value, 2, 1)


def test_format_refuses_what_is_no_placement(probe: ModuleType) -> None:
    k = CORES[0].epin_code("K")
    derived = CORES[0].epin_code("K'")
    assert probe.format([k, -1, -1], [3], [0]) == (b"K2",)
    assert probe.format([-1] * 300, [300], [0]) == (b"300",)
    assert probe.format([k, k], [1, 1], [2, 0]) == (b"K//K",)
    assert probe.format([k], [], []) == (Reason.EMPTY_RANK.value, 0)
    assert probe.format([k, k], [2, 0], [1, 0]) == (Reason.EMPTY_RANK.value, 1)
    assert probe.format([k, k], [1, 1], [3, 0]) == (Reason.TOO_MANY_SEPARATORS.value, 0)
    assert probe.format([k, 12, k], [3], [0]) == (Reason.NOT_A_CODE.value, 1)
    assert probe.format([k, -2], [2], [0]) == (Reason.NOT_A_CODE.value, 1)
    assert probe.format([derived], [1], [0], False) == (Reason.DERIVATION_IN_PIN.value, 0)
    assert probe.format([k, k], [3], [0]) == (Reason.NO_ROOM.value, 0)
    assert probe.format([k, k, k], [2], [0]) == (Reason.NO_ROOM.value, 2)
    # every output room from 0 to the text's length: the text, or NO_ROOM, never past it
    text = "-rnbqk^'bn-r/+p+p+p+p+p+p+p+p/8/8/8/8/+P'+P+P+P+P+P+P+P/-RNBQK^BN-R"
    _, squares, lengths, separators = reference(text, True)
    for room in range(len(text) + 2):
        got = probe.format(squares, lengths, separators, True, room)
        assert got == ((text.encode(),) if room >= len(text) else (Reason.NO_ROOM.value, got[1]))


def test_constants_build_tables(probe: ModuleType) -> None:
    import sashite_epin

    assert probe.constants() == (sashite_epin.CODE_NONE, len(Reason) + 1, 1)


def test_the_code_layout_is_public(probe: ModuleType) -> None:
    from sashite_epin import _layout

    layout = probe.layout()
    assert layout == {name: getattr(_layout, name) for name in layout}
    # one numbering of the states: the records' (STATE_*), what code_state gives
    records = CORES[0].parse_many(["K", "+K", "-K"], True)
    for i, token in enumerate(["K", "+K", "-K"]):
        code = CORES[0].epin_code(token)
        assert probe.state_of(code) == bytes(memoryview(records))[5 * i + 2]
    assert (layout["STATE_NORMAL"], layout["STATE_ENHANCED"], layout["STATE_DIMINISHED"]) == (
        0,
        1,
        2,
    )
