"""The command line on lines longer than a read: every token kept, every finding at its
true line and column, the memory held a read's, whatever the reads' sizes.

The command runs as users run it (``python -m sashite_epin``), from a file and from a
pipe, and its output is compared with the library run on the whole text in this
process.  Where the reads must be tiny, the command's own read size is set small in
the child (``_cli.CHUNK``) before it runs.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import cache
from itertools import islice, zip_longest
from pathlib import Path
from typing import IO

import pytest

from sashite_epin import IMPLEMENTATION, Epin, ParseError, Pin
from sashite_epin._cli import CHUNK, LONGEST_KEPT, escaped

COMMAND = [sys.executable, "-m", "sashite_epin"]
STDIN = "(standard input)"

# Tokens back to back, a run, a character of three bytes (positions count characters).
UNIT = "+P^'k-r" + "8" * 56 + "\u212a/"


def small_reads(**sizes: int) -> list[str]:
    """The command with _cli's sizes (CHUNK, PIECE, LONGEST_KEPT) set in the child."""
    settings = "".join(f"_cli.{name} = {value}; " for name, value in sizes.items())
    code = f"import sys; from sashite_epin import _cli; {settings}sys.exit(_cli.main())"
    return [sys.executable, "-c", code]


def run(command: list[str], args: list[str], data: bytes, source: str, tmp_path: Path,
        pieces: bool = False) -> tuple[int, Path]:  # fmt: skip
    """Run the command on data (from a file, or from a pipe, written in irregular
    pieces with pauses when ``pieces``), the file or ``-`` after ``args``; its stdout
    goes to a file, returned."""
    out = tmp_path / "out.txt"
    if source == "file":
        path = tmp_path / "in.txt"
        path.write_bytes(data)
        named = ["--file", str(path)] if args[0] == "tokenize" else [str(path)]
        with open(out, "wb") as stdout:
            done = subprocess.run([*command, *args, *named], stdout=stdout, check=False)
        return done.returncode, out
    with open(out, "wb") as stdout:
        child = subprocess.Popen(
            [*command, *args, "-"], stdin=subprocess.PIPE, stdout=stdout
        )  # fmt: skip
        assert child.stdin is not None
        writer = threading.Thread(target=feed, args=(child.stdin, data, pieces))
        writer.start()
        status = child.wait()
        writer.join()
    return status, out


def feed(stdin: IO[bytes], data: bytes, pieces: bool) -> None:
    """Write data to the child, in pieces of random sizes with pauses when asked (so its
    reads end at places no one chose)."""
    rng = random.Random(len(data))
    at = 0
    try:
        while at < len(data):
            size = rng.choice([1, 2, 3, 7, 100, 4099, 65537, 300_001]) if pieces else CHUNK
            stdin.write(data[at : at + size])
            if pieces:
                stdin.flush()
                if rng.random() < 0.05:
                    time.sleep(0.002)
            at += size
    finally:
        stdin.close()


def same_lines(out: Path, expected: Iterator[str]) -> None:
    """The command's output is the expected lines (compared a block at a time: millions
    of lines)."""
    with open(out, encoding="utf-8", newline="\n") as got:
        first = 1  # the block's first line
        while block := list(islice(expected, 1 << 16)):
            want = "".join(line + "\n" for line in block)
            have = got.read(len(want))
            if have != want:  # name the first line that differs
                for number, (line, wanted) in enumerate(
                    zip_longest(have.splitlines(), block), first
                ):
                    assert line == wanted, f"output line {number}"
            first += len(block)
        assert got.read() == "", f"output past line {first - 1}"


# -- tokenize ------------------------------------------------------------------------------


def tokenized(
    data: bytes, name: str, kind: type[Pin] | type[Epin], strict: bool = False
) -> Iterator[str]:
    """tokenize's output, from the library's tokenize on each whole line: its tokens,
    and where one fails, those before it and the finding (``strict``: --strict's)."""
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if lines[-1] == "":
        lines.pop()  # a final newline ends the last line
    for number, line in enumerate(lines, 1):
        line = line.removesuffix("\r")
        failure = None
        try:
            items = kind.tokenize(line, strict=strict)
        except ParseError as exc:
            failure = exc
            items = kind.tokenize(line[: exc.position], strict=strict)
        position = 0
        for item in items:
            if not isinstance(item, str):
                yield f"{name}:{number}:{position}\t{item}"
            position += len(str(item))
        if failure is not None:
            at = int(failure.position or 0)
            yield f"{name}:{number}:{at}: {escaped(line[at:])}: {failure.reason}"


@cache
def long_lines() -> bytes:
    """Lines past one read and past several, as text of characters of several sizes."""
    # 3.1 MB (the twin, seven times slower a character: 1.3 MB, past a file's read and
    # twenty of a pipe's)
    first = UNIT * (47_000 if IMPLEMENTATION == "cython" else 20_000)
    lines = [
        first,  # tokens cut by the reads' ends, every way
        "/^" + UNIT * 16_500,  # fails at once, judged with the MiB after it
        UNIT * 17_000 + "K^^" + UNIT * 3 + "\r",  # fails past a read: the tokens before
        # markers after a token judged with it, the last ones reads later
        "K^" + "^" * 300_000 + "''" + UNIT,
        "-",  # a lone modifier at the end of the input, no final newline
    ]
    return "\n".join(lines).encode()


@pytest.mark.parametrize("source", ["file", "pipe"])
def test_tokenize_keeps_every_token_of_a_line_past_several_reads(
    source: str, tmp_path: Path
) -> None:
    data = long_lines()
    status, out = run(COMMAND, ["tokenize"], data, source, tmp_path)
    assert status == 1
    name = str(tmp_path / "in.txt") if source == "file" else STDIN
    same_lines(out, tokenized(data, name, Epin))


@pytest.mark.skipif(IMPLEMENTATION == "python", reason="the twin scans 7 us a token")
@pytest.mark.parametrize("source", ["file", "pipe"])
def test_tokenize_keeps_every_token_of_a_line_of_tokens_only(source: str, tmp_path: Path) -> None:
    data = b"K" * ((2 << 20) + 1) + b"\n" + b"+p^'" * 100_000 + b"K^"
    status, out = run(COMMAND, ["tokenize"], data, source, tmp_path)
    assert status == 0
    name = str(tmp_path / "in.txt") if source == "file" else STDIN
    same_lines(out, tokenized(data, name, Epin))


def mixed(seed: int, count: int) -> bytes:
    """Text of tokens, stray markers, runs, line ends, CRs and characters of one to four
    bytes, bytes that are not UTF-8 among them."""
    rng = random.Random(seed)
    parts = ["K", "k^", "+P'", "-r^'", "^", "'", "+", "-", "/", "8", "\r", "\n", "\n",
             "\u212a", "\U0001d542", " ", "x"]  # fmt: skip
    text = "".join(rng.choice(parts) for _ in range(count)) + "K^" * 300
    return text.encode().replace(b"x", b"\xff")


@pytest.mark.parametrize("pin", [False, True], ids=["epin", "pin"])
@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_tokenize_is_the_same_whatever_the_reads(
    pin: bool, json_output: bool, tmp_path: Path
) -> None:
    data = mixed(7, 6000) + b"\n" + b"K^" * 500 + b"/" + b"-" * 400 + b"\n" + b"K'" * 700
    kind = Pin if pin else Epin
    args = ["tokenize", *(["--pin"] if pin else []), *(["--json"] if json_output else [])]
    whole_status, whole = run(COMMAND, args, data, "file", tmp_path)
    expected = whole.read_text()
    if not json_output:
        same_lines(whole, tokenized(data, str(tmp_path / "in.txt"), kind))
    # Reads of 7 bytes and pieces of 97 characters: every cut a read can make.
    status, out = run(small_reads(CHUNK=7, PIECE=97), args, data, "file", tmp_path)
    assert (status, out.read_text()) == (whole_status, expected)


def strict_lines() -> bytes:
    """Lines for tokenize --strict: a valid placement past several reads, one whose
    stray space stands past several reads, a CRLF line (its "\r" is the line end), a
    "\r" inside a line, a NUL, a Kelvin sign after a run."""
    size = 1_100_000 if IMPLEMENTATION == "cython" else 150_000
    lines = [
        "K8/" * size,
        "+p^/" * (2 * size // 3) + " q",
        "8/8\r",
        "K\rQ",
        "k\x00",
        "12\u212a",
        "-r^'/" * 1000,
    ]
    return "\n".join(lines).encode()


@pytest.mark.parametrize("source", ["file", "pipe"])
def test_tokenize_strict_names_the_stray_character_past_several_reads(
    source: str, tmp_path: Path
) -> None:
    """--strict: each line's tokens up to its first character a placement does not
    allow, then the finding at its true offset (status 1); without it, no finding."""
    data = strict_lines()
    status, out = run(COMMAND, ["tokenize", "--strict"], data, source, tmp_path)
    assert status == 1
    name = str(tmp_path / "in.txt") if source == "file" else STDIN
    same_lines(out, tokenized(data, name, Epin, strict=True))
    findings = [line for line in out.read_text().splitlines() if "\t" not in line]
    second = 4 * (2 * (1_100_000 if IMPLEMENTATION == "cython" else 150_000) // 3)
    assert findings == [
        f"{name}:2:{second}: ' q': whitespace",
        f"{name}:4:1: '\\rQ': contains a line break",
        f"{name}:5:1: '\\x00': not a letter",
        f"{name}:6:2: '\\u212a': not a letter",
    ]
    status, out = run(COMMAND, ["tokenize"], data, source, tmp_path)
    assert status == 0


@pytest.mark.parametrize("pin", [False, True], ids=["epin", "pin"])
def test_tokenize_strict_is_the_same_whatever_the_reads(pin: bool, tmp_path: Path) -> None:
    data = b"\n".join(mixed(seed, 300) for seed in range(20)) + b"\n" + strict_lines()[:5000]
    kind = Pin if pin else Epin
    args = ["tokenize", "--strict", *(["--pin"] if pin else [])]
    whole_status, whole = run(COMMAND, args, data, "file", tmp_path)
    expected = whole.read_text()
    same_lines(whole, tokenized(data, str(tmp_path / "in.txt"), kind, strict=True))
    status, out = run(small_reads(CHUNK=7, PIECE=97), args, data, "file", tmp_path)
    assert (status, out.read_text()) == (whole_status, expected)


# -- validate --------------------------------------------------------------------------------


def findings(data: bytes, name: str, kind: type[Pin] | type[Epin]) -> Iterator[str]:
    """validate --split's findings, from the library's parse_many on the whole input:
    each at its line and its column in characters."""
    for error in kind.parse_many(data, errors="mark").errors():
        at = int(error.position or 0)
        start = data.rfind(b"\n", 0, at) + 1
        column = len(data[start:at].decode("utf-8", "surrogateescape"))
        token = bytes(error.token or b"").decode("utf-8", "surrogateescape")
        yield f"{name}:{error.line}:{column}: {escaped(token)}: {error.reason}"


def words(seed: int, count: int) -> bytes:
    """Whitespace-separated words, valid and not, of characters of one to four bytes,
    with lines of several MiB among short ones."""
    rng = random.Random(seed)
    choices = ["K", "+p^'", "x1", "K^^", "\u212a", "\U0001d542q", "q" * 300, "\udcff"]
    spaces = [" ", " ", "  ", "\t", "\n", "\r\n", "\x0b"]
    out = []
    for _ in range(count):
        out.append(rng.choice(choices))
        out.append(rng.choice(spaces) if rng.random() < 0.9999 else "\n")
    return "".join(out).encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("source", ["file", "pipe"])
def test_validate_split_names_true_lines_and_columns(source: str, tmp_path: Path) -> None:
    long_line = b"K " * 600_000 + b"x1 " + b"q" * (LONGEST_KEPT + 5) + b" -K^^\t+\n"
    data = long_line + b"K\n\n" + b"+p " * 1_000_000 + b"K^^\r\n" + b"x" * 9 + b"\n"
    status, out = run(COMMAND, ["validate", "--split"], data, source, tmp_path, pieces=True)
    assert status == 1
    name = str(tmp_path / "in.txt") if source == "file" else STDIN
    same_lines(out, findings(data, name, Epin))
    with open(out) as got:  # the cases written out, as a reader checks them
        assert got.readline().startswith(f"{name}:1:1200000: 'x1'")


def test_validate_split_is_the_same_whatever_the_reads(tmp_path: Path) -> None:
    data = words(3, 20_000)
    # Reads of 7 bytes, and a word past 200 bytes judged by its head.
    command = small_reads(CHUNK=7, LONGEST_KEPT=200)
    status, out = run(command, ["validate", "--split"], data, "pipe", tmp_path, pieces=True)
    assert status == 1
    same_lines(out, findings(data, STDIN, Epin))


def test_validate_names_true_lines_of_long_lines_from_a_pipe(tmp_path: Path) -> None:
    lines = [b"K" * 3_000_001, b"x1", b"K" * LONGEST_KEPT + b"\r", b"q",
             b"K" * (LONGEST_KEPT + 1), b"K^", b"K" * 1_500_000 + b"\r"]  # fmt: skip
    data = b"\n".join(lines) + b"\n"
    status, out = run(COMMAND, ["validate", "--json"], data, "pipe", tmp_path, pieces=True)
    assert status == 1
    with open(out) as got:
        found = [(finding["line"], finding["length"]) for finding in map(json.loads, got)]
    assert found == [(1, 3_000_001), (2, 2), (3, LONGEST_KEPT), (5, LONGEST_KEPT + 1),
                     (7, 1_500_000)]  # fmt: skip


# -- memory ----------------------------------------------------------------------------------

# The child's own peak resident memory (VmHWM: the high-water mark of its own address
# space, which getrusage's figure is not: that one keeps the parent's across exec).
PEAK = """
import runpy, sys
from sashite_epin import _cli
for setting in sys.argv[1].split(",") if sys.argv[1] else []:
    name, value = setting.split("=")
    setattr(_cli, name, int(value))
del sys.argv[1]
try:
    runpy.run_module("sashite_epin", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status:
        peak = [line.split()[1] for line in status if line.startswith("VmHWM:")]
    print(peak[0], file=sys.stderr)
"""


def peak_kib(path: Path, source: str, settings: str) -> int:
    """The command's peak memory tokenizing the file, read as a file or from a pipe."""
    named = ["--file", str(path)] if source == "file" else ["-"]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, settings, "tokenize", *named],
        input=path.read_bytes() if source == "pipe" else b"",
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split()[-1])


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="VmHWM is Linux's")
@pytest.mark.parametrize("source", ["file", "pipe"])
def test_tokenize_holds_a_read_not_the_line(source: str, tmp_path: Path) -> None:
    # A line of 64 MiB (the twin, seven times slower a character, reads 64 KiB at a
    # time and gets a line of 4 MiB): holding it whole would take the line's size twice
    # (its bytes and its text) and more a token; the bound is half of it (the twin's
    # own caches and arenas take a MiB of a 4 MiB line).
    size, settings = (64 << 20, "") if IMPLEMENTATION == "cython" else (4 << 20, "CHUNK=65536")
    unit = UNIT.encode().replace(b"8" * 56, b"8" * 250)
    small, line = tmp_path / "small.txt", tmp_path / "line.txt"
    small.write_bytes(unit + b"\n")
    line.write_bytes(unit * (size // len(unit)) + b"\n")
    baseline = peak_kib(small, source, settings)
    assert peak_kib(line, source, settings) - baseline < size // 2 // 1024
