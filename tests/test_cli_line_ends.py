"""Line ends on the command line: what a line's final ``\\r`` is (CRLF files, as Windows
editors write them), what any other ``\\r`` is, in every way the command reads lines
(validate one token a line, validate --split, parse and tokenize from a file or from
standard input), whatever the reads' sizes; and the compiled road validate reads lines
by (``line_faults``), checked against a naive reading on each core and kernel.

The command runs as users run it (``python -m sashite_epin``); where the reads must be
tiny, its own read size is set small in the child (``_cli.CHUNK``) before it runs.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from test_cli_long_lines import run, small_reads, tokenized

from sashite_epin import Epin, ParseError, Pin
from sashite_epin._cli import LONGEST_KEPT, SHOWN, describe, escaped, json_token, line_of

COMMAND = [sys.executable, "-m", "sashite_epin"]
STDIN = "(standard input)"


def cli(*args: str, data: bytes) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*COMMAND, *args], input=data, capture_output=True, check=False)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


# -- what a final \r is ----------------------------------------------------------------------


def test_a_crlf_line_is_its_token() -> None:
    done = cli("validate", data=b"K^\r\n+p'\r\nq\r\n")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "3 valid, 0 invalid\n")
    lf = cli("validate", "--json", data=b"K^\nx1\n\nk \n")
    crlf = cli("validate", "--json", data=b"K^\r\nx1\r\n\r\nk \r\n")
    assert crlf.stdout == lf.stdout  # the same findings, the same lengths
    assert [json.loads(line)["length"] for line in crlf.stdout.splitlines()] == [2, 0, 2]


def test_every_other_carriage_return_is_part_of_the_line() -> None:
    data = (
        b"K\rq\r\n"  # a \r inside a line
        b"+p\r\r\n"  # two: one is removed, one stays
        b"\r\n"  # a \r alone: an empty line
        b"\rK\n"  # a \r first
        b"K\r\rK\r\r"  # classic Mac line ends (CR only) are no line ends: one line
    )
    done = cli("validate", "--json", data=data)
    found = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(f["line"], f["token"], f["length"], f["reason"]) for f in found] == [
        (1, "K\rq", 3, "contains a line break"),
        (2, "+p\r", 3, "contains a line break"),
        (3, "", 0, "empty"),
        (4, "\rK", 2, "contains a line break"),
        (5, "K\r\rK\r", 5, "too long"),
    ]
    assert done.stderr == "0 valid, 5 invalid\n"
    text = cli("validate", data=data).stdout.splitlines()
    assert text[0] == f"{STDIN}:1: 'K\\rq': contains a line break"


def test_the_last_line_s_final_carriage_return_is_removed_too() -> None:
    # A file cut after a CRLF line's \r: the \r is that line's line end all the same.
    for data in (b"K^\r", b"q\r\nK^\r"):
        done = cli("validate", data=data)
        assert (done.returncode, done.stdout) == (0, ""), data
    assert cli("validate", data=b"\r").stdout == f"{STDIN}:1: '': empty\n"
    assert cli("validate", data=b"x1\r").stdout == f"{STDIN}:1: 'x1': unexpected character\n"
    assert cli("parse", "-", data=b"q\r\nK^\r").stdout.splitlines()[1].startswith("K^ ")
    assert cli("tokenize", "-", data=b"2K^\r").stdout == f"{STDIN}:1:1\tK^\n"


def test_a_file_of_crlf_only_is_empty_lines() -> None:
    done = cli("validate", data=b"\r\n" * 3)
    assert done.stdout == "".join(f"{STDIN}:{n}: '': empty\n" for n in (1, 2, 3))
    assert (done.returncode, done.stderr) == (1, "0 valid, 3 invalid\n")
    split = cli("validate", "--split", data=b"\r\n" * 3)
    assert (split.returncode, split.stdout, split.stderr) == (0, "", "0 valid, 0 invalid\n")
    assert cli("tokenize", "-", data=b"\r\n" * 3).stdout == ""
    assert cli("parse", "-", data=b"\r\n").stdout == f"{STDIN}:1: '': empty\n"


def test_crlf_positions_and_lines_are_the_lf_ones(tmp_path: Path) -> None:
    lf = b"2K^/+p'\nx1 K\n\n-r^^\n"
    crlf = lf.replace(b"\n", b"\r\n")
    for args in (["tokenize"], ["tokenize", "--json"], ["parse"], ["validate"],
                 ["validate", "--split"], ["validate", "--json"]):  # fmt: skip
        want, got = (cli(*args, "-", data=text) for text in (lf, crlf))
        assert (got.returncode, got.stdout, got.stderr) == (
            want.returncode, want.stdout, want.stderr), args  # fmt: skip
    assert cli("tokenize", "-", data=crlf).stdout.splitlines()[-1] == (
        f"{STDIN}:4:3: '^': multiple terminal markers (only one marker is allowed)"
    )


def test_the_library_reads_a_final_carriage_return_as_part_of_the_token() -> None:
    # What docs/cli.md says: the command removes it, parse_many of a list of lines does
    # not, parse_many of bytes splits on it.
    assert Epin.parse_many(["K^\r"], errors="mark").errors()[0].reason == "contains a line break"
    assert Epin.parse_many(["K^\r".removesuffix("\r")]).tokens() == ["K^"]
    assert Epin.parse_many(b"K^\r\nq\r\n").tokens() == ["K^", "q"]


# -- whatever the reads ----------------------------------------------------------------------


def lines_text(seed: int, count: int) -> bytes:
    """Lines of every kind: tokens, invalid ones, empty ones, whitespace, lone and double
    \\r, characters of two to four bytes, bytes that are not UTF-8, lines past a small
    LONGEST_KEPT (200) with and without a final \\r; LF and CRLF mixed."""
    rng = random.Random(seed)
    bodies = ["K^", "+p'", "q", "-R^'", "x1", "K^^", "", "k ", " K", "K\tq", "K\rq",
              "\r", "+p\r", "\u212a", "KK\u212a", "\U0001d542", "q\udcff", "\udcff",
              "K" * 199, "K" * 200, "K" * 201, "\u212a" * 90, "K " * 150]  # fmt: skip
    ends = ["\n", "\n", "\r\n", "\r\n", "\r\r\n"]
    text = "".join(rng.choice(bodies) + rng.choice(ends) for _ in range(count))
    return text.encode("utf-8", "surrogateescape")


def validated(data: bytes, name: str, kind: type[Pin] | type[Epin], as_json: bool,
              longest: int) -> Iterator[str]:  # fmt: skip
    """validate's findings from the library's parse on each line's text: split on \\n
    only, one final \\r removed, a line past ``longest`` bytes judged by its head."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, 1):
        raw = raw.removesuffix(b"\r")
        text = raw[:longest].decode("utf-8", "surrogateescape")
        try:
            kind.parse(text)
        except ParseError as exc:
            if as_json:
                fields = {"file": name, "line": number, **json_token(text[:SHOWN]),
                          "length": len(raw), "reason": str(exc.reason)}  # fmt: skip
                yield json.dumps(fields)
            else:
                yield f"{name}:{number}: {escaped(text)}: {exc.reason}"


def output(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("pin", [False, True], ids=["epin", "pin"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_validate_is_the_same_whatever_the_reads(pin: bool, as_json: bool, tmp_path: Path) -> None:
    data = lines_text(11, 3000)
    kind = Pin if pin else Epin
    args = ["validate", *(["--pin"] if pin else []), *(["--json"] if as_json else [])]
    expected = {name: list(validated(data, name, kind, as_json, 200))
                for name in (str(tmp_path / "in.txt"), STDIN)}  # fmt: skip
    # Reads of 1, 2, 3 and 7 bytes cut every line, every CRLF and every character at
    # every place; 64 and 65 straddle the compiled road's blocks.
    for chunk in (1, 2, 3, 7, 64, 65, 4096):
        command = small_reads(CHUNK=chunk, LONGEST_KEPT=200)
        for source in ("file", "pipe"):
            status, out = run(command, args, data, source, tmp_path, pieces=source == "pipe")
            name = str(tmp_path / "in.txt") if source == "file" else STDIN
            assert (status, output(out)) == (1, expected[name]), (chunk, source)


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_validate_finds_a_few_invalid_lines_among_many(as_json: bool, tmp_path: Path) -> None:
    # Sparse findings are read from the library's errors, dense ones from the lines
    # themselves (MANY_INVALID): the same findings either way, the same reasons as the
    # text's (the bytes path counts a character of three bytes as three).
    rng = random.Random(14)
    valid = ["K^", "+p'", "q", "-R^'"]
    invalid = ["x1", "KK\u212a", "\u212a", "+K^\u212a", "k ", "", "K^^", "\r", "q\udcff"]
    lines = [rng.choice(valid) for _ in range(40_000)]
    for at in rng.sample(range(len(lines)), 60):
        lines[at] = rng.choice(invalid)
    data = "".join(line + rng.choice(["\n", "\r\n"]) for line in lines)
    encoded = data.encode("utf-8", "surrogateescape")
    args = ["validate", *(["--json"] if as_json else [])]
    expected = list(validated(encoded, STDIN, Epin, as_json, LONGEST_KEPT))
    assert any("more than one letter" in line for line in expected)
    for chunk in (1 << 20, 4096, 100):
        status, out = run(small_reads(CHUNK=chunk), args, encoded, "pipe", tmp_path)
        assert (status, output(out)) == (1, expected), chunk


@pytest.mark.parametrize("source", ["file", "pipe"])
def test_validate_of_long_crlf_lines_whatever_the_reads(source: str, tmp_path: Path) -> None:
    # Lines past LONGEST_KEPT ending in CRLF, the \r and the \n in different reads, a
    # line of exactly LONGEST_KEPT bytes and its \r, and one of only CRs.
    size = LONGEST_KEPT
    data = (b"K" * (3 * size) + b"\r\n" + b"x1\r\n" + b"q" * size + b"\r\n"
            + b"K" * (size + 1) + b"\r\r\n" + b"\r" * (2 * size) + b"\n" + b"K^\r")  # fmt: skip
    name = str(tmp_path / "in.txt") if source == "file" else STDIN
    expected = list(validated(data, name, Epin, True, size))
    assert [json.loads(line)["length"] for line in expected] == [
        3 * size, 2, size, size + 2, 2 * size - 1]  # fmt: skip
    for chunk in (size - 1, size, size + 1, size + 2, 1 << 20):
        status, out = run(small_reads(CHUNK=chunk), ["validate", "--json"], data, source,
                          tmp_path, pieces=source == "pipe")  # fmt: skip
        assert (status, output(out)) == (1, expected), chunk


def parsed(data: bytes, name: str) -> Iterator[str]:
    """parse's output from the library's parse on each line's text, one final \\r
    removed."""
    for number, raw in enumerate(data.split(b"\n")[:-1], 1):
        text = raw.removesuffix(b"\r").decode("utf-8", "surrogateescape")
        try:
            yield line_of(describe(Epin.parse(text)))
        except ParseError as exc:
            yield f"{name}:{number}: {escaped(text)}: {exc.reason}"


@pytest.mark.parametrize("command", ["parse", "tokenize"])
def test_parse_and_tokenize_read_crlf_the_same_whatever_the_reads(
    command: str, tmp_path: Path
) -> None:
    data = lines_text(12, 1500)
    lines = tokenized(data, STDIN, Epin) if command == "tokenize" else parsed(data, STDIN)
    expected = list(lines)
    for chunk in (1, 2, 3, 7, 65, 1 << 20):
        command_line = small_reads(CHUNK=chunk, PIECE=97)
        status, out = run(command_line, [command], data, "pipe", tmp_path, pieces=True)
        assert (status, output(out)) == (1, expected), chunk


# -- the compiled road -----------------------------------------------------------------------


def naive_faults(data: bytes) -> tuple[int, list[tuple[int, int, int]], bytes]:
    """line_faults as its docstring says it, a line at a time."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    faults, clean, start = [], bytearray(data), 0
    for index, line in enumerate(lines):
        body = line.removesuffix(b"\r")
        if not body or any(byte in b" \t\n\r\x0b\x0c" for byte in body):
            faults.append((index, start, start + len(line)))
            clean[start : start + len(line)] = b" " * len(line)
        start += len(line) + 1
    return len(lines), faults, bytes(clean)


def test_line_faults_read_lines_as_the_naive_reading(bytes_core: ModuleType) -> None:
    rng = random.Random(13)
    parts = [b"K", b"q^", b"+p'", b"\r", b"\n", b"\r\n", b"\r\n", b" ", b"\t", b"\x0b",
             b"\x0c", b"x", b"\xff", b"\x85", b"\xa0", b"\x1c", b"K" * 70]  # fmt: skip
    cases = [b"", b"\n", b"\r", b"\r\n", b"\n\n", b"K", b"K\r", b"K\r\r", b"\rK", b" "]
    for _ in range(20000):
        cases.append(b"".join(rng.choice(parts) for _ in range(rng.randrange(60))))
    # a fault and a line end on each side of every 64-byte block's edge
    for at in range(56, 72):
        for fault in (b" ", b"\r", b"\n", b"\r\n", b"\n\n", b"\n\r\n"):
            cases.append(b"K\n" * (at // 2) + b"K" * (at % 2) + fault + b"q\r\n" * 40)
    for data in cases:
        assert bytes_core.line_faults(data) == naive_faults(data), data


def test_line_faults_copies_nothing_for_clean_lines(core: ModuleType) -> None:
    data = b"K^\r\n+p'\r\nq\n" * 1000 + b"K^\r"
    lines, faults, clean = core.line_faults(data)
    assert (lines, faults) == (3001, [])
    assert clean is data  # parse_many reads the lines where they are
    assert len(Epin.parse_many(clean)) == lines


def test_line_faults_takes_bytes_only(core: ModuleType) -> None:
    for wrong in (bytearray(b"K\n"), "K\n", memoryview(b"K\n")):
        with pytest.raises(TypeError, match="line_faults takes bytes, not"):
            core.line_faults(wrong)
