"""The command line: ``sashite-epin`` / ``python -m sashite_epin``.

It behaves like grep, ruff and jq: findings on stdout (``FILE:LINE: 'token': reason``, or
one JSON object per line with ``--json``), the summary and every failure on stderr, exit 0
when all is valid, 1 when something is invalid, 2 for a usage or I/O error (missing file,
directory, permission, a closed or full output) with a one-line message, 130 on Ctrl-C;
never a traceback, whichever standard stream is closed.  A reader that goes away (``| head``)
ends the command quietly.

Input lines are split on ``\\n`` only, so line numbers agree with ``grep -n`` and ``wc -l``;
a line's one final ``\\r`` is its line end (CRLF files; the last line's too, with no
``\\n`` after it); any other character, ``\\r`` included, is part of the token.
Tokens are shown escaped (``'\\u212a'``, ``'\\xff'`` for a byte that is not UTF-8), never
echoed raw, and cut to a readable length.
"""

from __future__ import annotations

import argparse
import bisect
import codecs
import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from operator import itemgetter
from typing import BinaryIO, NamedTuple, TextIO

from . import IMPLEMENTATION, Epin, ParseError, Pin, TokenArray, __version__
from ._core import core

DEMO_TOKENS = (
    # chess, shōgi, xiangqi, makruk, and a cross-style match (native vs derived)
    "K^",
    "k^",
    "Q",
    "+P",
    "-p",
    "+r",
    "G",
    "s'",
    "C^'",
    "-R",
    "n'",
    # invalid on purpose: the spec's own examples
    "",
    "K''",
    "^K",
    "K'^",
    "++K",
    "K^^",
    "1",
    "K ",
    "K\n",
    "\u212a",
)

STDIN_NAME = "(standard input)"  # as grep names it
SHOWN = 40  # characters of a token a finding shows
CHUNK = 1 << 20  # bytes read at a time at most (a pipe or a terminal gives what it has)
LONGEST_KEPT = 1 << 20  # a longer line is judged by its first MiB (no token is that long)
PIECE = 1 << 16  # characters of a text tokenize scans at a time: its output stays small
BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark, which Windows editors write first
SEPARATORS = b" \t\n\r\x0b\x0c"  # bytes.split()'s whitespace: what --split reads between
# validate: past one invalid line in this many, a batch's lines are split to find them
# (40 ns a line) rather than asked of the library's errors (6 us an error object)
MANY_INVALID = 128


class UsageError(Exception):
    """A failure the user caused: reported as one line on stderr, exit status 2."""


class OutputError(UsageError):
    """Standard output refused what was written (closed, full disk): the command's own
    output, never blamed on the input being read; worded as grep words it."""


class Output:
    """Standard output as the commands write to it: a write that fails for any reason but
    a reader going away (BrokenPipeError, main's to report) is an OutputError; a closed
    stdout (``>&-``: sys.stdout is None) fails only when written to, so ``-q`` still runs."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if self.stream is None:
            raise OutputError("write error: Bad file descriptor")
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"write error: {exc.strerror or exc}") from None

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"write error: {exc.strerror or exc}") from None


def say(text: str) -> None:
    """A line on stderr, unless stderr is closed (then there is nowhere to say it)."""
    if sys.stderr is not None:
        try:
            print(text, file=sys.stderr, flush=True)
        except OSError:
            pass  # stderr itself failing: the exit status still tells


def standard_input() -> BinaryIO:
    if sys.stdin is None:
        raise UsageError("standard input is closed")
    return sys.stdin.buffer


# -- showing a token -------------------------------------------------------------------------

_ESCAPES = {"\\": "\\\\", "'": "\\'", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escaped(token: str, shown: int = SHOWN) -> str:
    """The token quoted, printable ASCII as itself and everything else escaped.

    Non-ASCII code points are ``\\uXXXX`` (a look-alike such as the Kelvin sign must not
    pass for ``K``); bytes that were not UTF-8 (surrogate escapes) are ``\\xNN``.  At most
    ``shown`` characters, then ``...``.
    """
    out = []
    for char in token[:shown]:
        point = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0x20 <= point < 0x7F:
            out.append(char)
        elif 0xDC80 <= point <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{point - 0xDC00:02x}")
        elif point < 0x100:
            out.append(f"\\x{point:02x}" if point < 0x20 or point == 0x7F else f"\\u{point:04x}")
        elif point < 0x10000:
            out.append(f"\\u{point:04x}")
        else:
            out.append(f"\\U{point:08x}")
    return "'" + "".join(out) + "'" + ("..." if len(token) > shown else "")


def shown_name(name: str) -> str:
    """A file name as findings show it: as it is when every character is printable, else
    escaped like a token (a name must not reach the terminal as an escape sequence)."""
    if name == "-":
        return STDIN_NAME
    return name if name.isprintable() else escaped(name, len(name))[1:-1]


def json_token(token: str) -> dict[str, object]:
    """The JSON fields of a token or text: ``token``, valid UTF-8 always; where the input
    held bytes that were not UTF-8, they read as U+FFFD there, ``utf8`` is false and
    ``hex`` has the bytes (so ``\\xff`` typed as four characters is told apart)."""
    raw = token.encode("utf-8", "surrogateescape")
    try:
        return {"token": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"token": raw.decode("utf-8", "replace"), "utf8": False, "hex": raw.hex()}


# -- reading lines ---------------------------------------------------------------------------


def chunks_of(stream: BinaryIO) -> Iterator[bytes]:
    """The stream's bytes as they arrive: one read each (read1), so a pipe or a terminal
    hands over what it has without waiting for more, a file a MiB at a time.  A UTF-8
    BOM at the very start is not data; anywhere else it is."""
    read = getattr(stream, "read1", stream.read)
    head = b""
    while len(head) < len(BOM) and BOM.startswith(head):  # the start, until it tells
        chunk = read(CHUNK)
        if not chunk:
            break
        head += chunk
    else:
        chunk = head  # the start is read: go on reading (an ended stream is not read again)
    if head.startswith(BOM):
        head = head[len(BOM) :]
    if head:
        yield head
    while chunk:
        chunk = read(CHUNK)
        if chunk:
            yield chunk


class Lines(NamedTuple):
    """Complete lines of a batch, and the byte lengths of those longer than LONGEST_KEPT
    (by index), which hold only their first LONGEST_KEPT bytes."""

    lines: list[str]
    cut: dict[int, int]


def lines_of(stream: BinaryIO) -> Iterator[Lines]:
    """Batches of the complete lines read so far, split on b"\\n" only, a final b"\\r"
    removed, decoded as UTF-8 with surrogate escapes.  A trailing b"\\n" ends the last
    line rather than starting one.  A line past LONGEST_KEPT keeps its head and its
    length; the rest is not held in memory."""
    pending = b""
    dropped = 0  # bytes of the pending line past LONGEST_KEPT, not kept
    last = b""  # the last of them
    for chunk in chunks_of(stream):
        head_end = chunk.find(b"\n")
        parts = (pending + chunk).split(b"\n")
        pending = parts.pop()
        cut = {}
        if head_end >= 0 and dropped:  # the long line ends in this chunk
            line_end = chunk[:head_end][-1:] or last
            cut[0] = len(parts[0]) + dropped - (line_end == b"\r")
            dropped = 0
        if len(pending) > LONGEST_KEPT:  # never a token: keep a bounded head, drop the rest
            dropped += len(pending) - LONGEST_KEPT
            last = pending[-1:]
            pending = pending[:LONGEST_KEPT]
        if parts:
            yield decoded(parts, cut)
    if pending or dropped:
        yield decoded([pending], {0: len(pending) + dropped - (last == b"\r")} if dropped else {})


def decoded(parts: list[bytes], cut: dict[int, int]) -> Lines:
    """Whole lines as text, each without its one final "\\r": the "\\r\\n" pairs of the
    joined text at C speed (no line is looked at from Python), the last line's apart."""
    text = b"\n".join(parts).decode("utf-8", "surrogateescape")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[-1].endswith("\r"):
        lines[-1] = lines[-1][:-1]
    return Lines(lines, cut)


class Batch(NamedTuple):
    """Whole lines for validate, as bytes read: ``data`` ends at a b"\\n" (or at the
    input's end); or, where ``length`` is not None, one line longer than LONGEST_KEPT
    bytes, ``data`` its first LONGEST_KEPT bytes and ``length`` all of its bytes (a
    final b"\\r" not counted)."""

    data: bytes
    length: int | None


def batches_of(stream: BinaryIO) -> Iterator[Batch]:
    """The stream's whole lines in batches, as they arrive; a line past LONGEST_KEPT
    (never a token) comes alone as its head and its length, the rest of it read and
    counted, not held.  What a batch holds never depends on where the reads end."""
    pending = b""  # the line begun and not ended yet
    dropped = 0  # bytes of the pending line past LONGEST_KEPT, not kept
    last = b""  # the last of them
    for chunk in chunks_of(stream):
        if dropped:  # a long line is being read past its head
            end = chunk.find(b"\n")
            if end < 0:
                dropped, last = dropped + len(chunk), chunk[-1:]
                continue
            tail = chunk[:end]
            length = len(pending) + dropped + len(tail) - ((tail[-1:] or last) == b"\r")
            yield Batch(pending, length)
            pending, dropped, chunk = b"", 0, chunk[end + 1 :]
        data = pending + chunk if pending else chunk
        end = data.rfind(b"\n") + 1
        if end:
            yield Batch(data[:end], None)
        pending = data[end:]
        if len(pending) > LONGEST_KEPT:
            dropped, last = len(pending) - LONGEST_KEPT, pending[-1:]
            pending = pending[:LONGEST_KEPT]
    if dropped:
        yield Batch(pending, len(pending) + dropped - (last == b"\r"))
    elif pending:
        yield Batch(pending, None)


class Words(NamedTuple):
    """A batch of whole words for validate --split, and where its first byte stands: its
    line (from 1) and its column in that line (characters, from 0)."""

    data: bytes
    line: int
    column: int


_SEPARATOR = re.compile(b"[" + re.escape(SEPARATORS) + b"]")


def words_of(stream: BinaryIO) -> Iterator[Words]:
    """The stream's bytes in batches that end at a separator (no token crosses two), as
    they arrive, each with the line and column it starts at, whatever the reads were; a
    run of more than LONGEST_KEPT bytes without a separator is judged by its head (it is
    no token), the rest of it read and counted, not held."""
    pending = b""
    line, column = 1, 0  # where pending starts
    rest = None  # while a long word's rest is skipped: a decoder counting its characters
    for chunk in chunks_of(stream):
        if rest is not None:
            found = _SEPARATOR.search(chunk)
            if found is None:
                column += len(rest.decode(chunk))
                continue
            column += len(rest.decode(chunk[: found.start()], True))
            rest, chunk = None, chunk[found.start() :]
        data = pending + chunk
        end = max(data.rfind(separator) for separator in SEPARATORS)
        pending = data[end + 1 :]
        if end >= 0:
            batch = Words(data[: end + 1], line, column)
            yield batch
            line, column = after(batch)
        if len(pending) > LONGEST_KEPT:  # never a token: judge its head, count the rest
            yield Words(pending[:LONGEST_KEPT], line, column)
            rest = codecs.getincrementaldecoder("utf-8")("surrogateescape")
            column += len(rest.decode(pending))
            pending = b""
    if rest is not None:
        column += len(rest.decode(b"", True))
    if pending:
        yield Words(pending, line, column)


def after(batch: Words) -> tuple[int, int]:
    """The line and column right after a batch (it ends at a separator, an ASCII byte,
    so its bytes decode alone as they do in the stream)."""
    newlines = batch.data.count(b"\n")
    if newlines:
        start = batch.data.rfind(b"\n") + 1
        return batch.line + newlines, characters(batch.data[start:])
    return batch.line, batch.column + characters(batch.data)


def characters(data: bytes) -> int:
    return len(data.decode("utf-8", "surrogateescape"))


def pieces_of(stream: BinaryIO) -> Iterator[list[tuple[str, bool]]]:
    """Each read's text as pieces of lines, ``(text, ends)``, ``ends`` true on a line's
    last piece, whatever the line's length: split on "\\n" only, one final "\\r"
    removed, decoded as UTF-8 with surrogate escapes.  A read's end may cut a line (and a
    character: the decoder keeps its first bytes for the next read); a "\\r" there is
    kept back, since the line may end right after it."""
    decode = codecs.getincrementaldecoder("utf-8")("surrogateescape").decode
    kept = ""  # a "\r" kept back from the end of the last read
    open_line = False  # whether the last read left a line begun
    for chunk in chunks_of(stream):
        text = kept + decode(chunk)
        kept = "\r" if text.endswith("\r") else ""
        if kept:
            text = text[:-1]
        if "\r" in text:  # each line's final "\r", at C speed
            text = text.replace("\r\n", "\n")
        *whole, last = text.split("\n")
        batch = [(line, True) for line in whole]
        if last:
            batch.append((last, False))
        open_line = bool(last or kept) or (open_line and not whole)
        if batch:
            yield batch
    last = kept + decode(b"", True)
    if last or open_line:
        yield [(last[:-1] if last.endswith("\r") else last, True)]


def open_input(name: str) -> BinaryIO:
    if name == "-":
        return standard_input()
    try:
        if os.path.isdir(name):
            raise UsageError(f"{shown_name(name)}: is a directory")
        return open(name, "rb")
    except OSError as exc:
        raise UsageError(f"{shown_name(name)}: {exc.strerror or exc}") from None


class Source(NamedTuple):
    """Where a token or text came from: an argument (its number, from 1) or a line of a
    file or of standard input (the file's shown name and the line, from 1)."""

    argument: int | None
    file: str | None
    line: int | None

    def fields(self) -> dict[str, object]:
        if self.argument is not None:
            return {"argument": self.argument}
        return {"file": self.file, "line": self.line}

    def prefix(self) -> str:
        """How a text finding starts: ``N:`` for an argument, ``FILE:LINE:`` otherwise."""
        if self.argument is not None:
            return f"{self.argument}:"
        return f"{self.file}:{self.line}:"


def texts_of(arguments: list[str], files: list[str], out: Output) -> Iterator[tuple[Source, str]]:
    """The arguments in order, each ``-`` replaced by the lines of standard input, then
    the lines of each --file; the output is flushed after each batch of lines, so a pipe
    or a terminal gets each answer as its line arrives."""
    for number, argument in enumerate(arguments, 1):
        if argument == "-":
            yield from lines_from("-", out)
        else:
            yield Source(number, None, None), argument
    for name in files:
        yield from lines_from(name, out)


def lines_from(name: str, out: Output) -> Iterator[tuple[Source, str]]:
    stream = open_input(name)
    shown, line = shown_name(name), 0
    with reading(name, shown, stream):
        for batch in lines_of(stream):
            for text in batch.lines:
                line += 1
                yield Source(None, shown, line), text
            out.flush()


@contextlib.contextmanager
def reading(name: str, shown: str, stream: BinaryIO) -> Iterator[None]:
    """A named input while it is read: a failed read is a UsageError naming it (a failed
    write is an OutputError, a reader gone away main()'s to end quietly), and the
    stream is closed after, unless it is standard input."""
    try:
        yield
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise  # our output, not this input: main() ends quietly
        raise UsageError(f"{shown}: {exc.strerror or exc}") from None
    finally:
        if name != "-":
            stream.close()


# -- commands --------------------------------------------------------------------------------


def describe(token: Pin | Epin) -> dict[str, object]:
    pin = token.pin if isinstance(token, Epin) else token
    fields: dict[str, object] = {
        "token": str(token),
        "abbr": pin.abbr,
        "side": str(pin.side),
        "state": str(pin.state),
        "terminal": pin.is_terminal,
    }
    if isinstance(token, Epin):
        fields["derived"] = token.is_derived
    fields["code"] = token.code
    return fields


def line_of(fields: dict[str, object]) -> str:
    rest = " ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}"
        for k, v in fields.items()
        if k != "token"
    )
    return f"{fields['token']:<5} {rest}"


def parse_command(args: argparse.Namespace, out: Output) -> int:
    """Each token's attributes; ``-`` reads tokens from stdin, --file from a file, one
    per line."""
    kind = Pin if args.pin else Epin
    status = 0
    for source, token in texts_of(args.tokens, args.file, out):
        try:
            fields = describe(kind.parse(token))
        except ParseError as exc:
            status = 1
            if args.json:
                finding = {**source.fields(), **json_token(token), "reason": str(exc.reason)}
                out.write(json.dumps(finding) + "\n")
            elif source.argument is not None:
                out.write(f"{escaped(token)}: {exc.reason}\n")
            else:
                out.write(f"{source.prefix()} {escaped(token)}: {exc.reason}\n")
            continue
        out.write(json.dumps({**source.fields(), **fields}) if args.json else line_of(fields))
        out.write("\n")
    return status


def validate_command(args: argparse.Namespace, out: Output) -> int:
    """One token per line of each FILE (stdin without one), or with --split any number
    of whitespace-separated tokens; every invalid one reported."""
    kind = Pin if args.pin else Epin
    total = invalid = 0
    failed = False
    counts = []
    for name in args.files or ["-"]:
        shown = shown_name(name)
        try:
            stream = open_input(name)
        except UsageError as exc:
            report(exc)
            failed = True
            continue
        try:
            judge = judge_words if args.split else judge_lines
            valid, bad = judge(stream, kind, shown, args, out)
            total, invalid = total + valid + bad, invalid + bad
            counts.append((shown, valid, bad))
        except OSError as exc:  # a failed read (a failed write is an OutputError)
            if isinstance(exc, BrokenPipeError):
                raise  # our output, not this input: main() ends quietly
            report(UsageError(f"{shown}: {exc.strerror or exc}"))
            failed = True
        finally:
            if name != "-":
                stream.close()
    if args.count:
        for shown, valid, bad in counts:
            if args.json:
                out.write(json.dumps({"file": shown, "valid": valid, "invalid": bad}) + "\n")
            else:
                named = f"{shown}: " if len(args.files) > 1 else ""
                out.write(f"{named}{valid} valid, {bad} invalid\n")
    elif not args.quiet:
        out.flush()
        say(f"{total - invalid} valid, {invalid} invalid")
    return 2 if failed else 1 if invalid else 0


def judge_lines(
    stream: BinaryIO, kind: type[Pin] | type[Epin], shown: str, args: argparse.Namespace,
    out: Output,
) -> tuple[int, int]:  # fmt: skip
    """validate's findings for one token a line; (valid, invalid) counts.

    The lines are read as --split reads words, by the bulk bytes path: core.line_faults
    finds, in compiled code, the lines that path would not read as one token (an empty
    one, or one with whitespace besides its final "\\r") and blanks them; every other
    line is one token, its final "\\r" a separator.  Python sees a line only when it is
    invalid.  A finding's reason is the one the line's text gets (``kind.parse``), so
    what a line says does not depend on how it was read."""
    line = invalid = 0
    show = not (args.quiet or args.count)
    said = Findings(kind, shown, args.json)
    for batch in batches_of(stream):
        if batch.length is not None:  # a line past LONGEST_KEPT, judged by its head
            invalid += 1
            if show:
                out.write(said.line(line + 1, batch.data, batch.length))
                out.flush()
            line += 1
            continue
        data = batch.data
        lines, faults, clean = core.line_faults(data)
        result = kind.parse_many(clean, errors="mark")
        if not show:
            invalid += len(faults) + len(result.invalid)
            line += lines
            continue
        found: list[tuple[int, bytes, object]] = [
            (index, data[start:end].removesuffix(b"\r"), None) for index, start, end in faults
        ]
        marked = result.invalid
        if marked and len(marked) * MANY_INVALID <= lines:  # a few: the errors say where
            for error in result.errors():
                raw = error.token
                assert isinstance(raw, bytes)  # bytes input: its tokens are bytes
                # ASCII bytes are judged as their text is; other bytes are judged by
                # their characters (the bytes path counts bytes).
                reason = error.reason if raw.isascii() else None
                found.append((int(error.line or 1) - 1, raw, reason))
            found.sort(key=itemgetter(0))
        elif marked:  # many: each line's bytes from one split, no error object made
            rows, faulty, found, at = data.split(b"\n"), found, [], 0
            for k in marked:  # the token of the k-th line that is no fault
                while at < len(faulty) and faulty[at][0] <= k + at:
                    found.append(faulty[at])
                    at += 1
                found.append((k + at, rows[k + at].removesuffix(b"\r"), None))
            found += faulty[at:]
        if found:
            out.write("".join([said.line(line + index + 1, raw, len(raw), reason)
                               for index, raw, reason in found]))  # fmt: skip
            out.flush()  # each batch's findings as its lines arrive
        invalid += len(found)
        line += lines
    return line - invalid, invalid


class Findings:
    """validate's findings, one a line: ``FILE:LINE: 'token': reason``, or its JSON
    object.  What follows the line's number is made once for each short line's bytes
    (a file's invalid lines are mostly the same few), never more than REMEMBERED."""

    REMEMBERED = 1 << 16  # lines' endings kept (then forgotten all at once)
    SHORT = 64  # bytes of a line whose ending is kept

    def __init__(self, kind: type[Pin] | type[Epin], shown: str, as_json: bool) -> None:
        self.kind, self.as_json = kind, as_json
        self.head = json.dumps({"file": shown, "line": 0})[:-2] if as_json else f"{shown}:"
        self.endings: dict[bytes, str] = {}

    def line(self, number: int, raw: bytes, length: int, reason: object = None) -> str:
        """The finding for line ``number``, whose bytes are ``raw`` (its head, for a
        line past LONGEST_KEPT) and ``length`` (a final "\\r" not counted); ``reason``
        when known, else the text's as the library judges it."""
        ending = self.endings.get(raw)
        if ending is None:
            token = raw.decode("utf-8", "surrogateescape")
            reason = reason or why(self.kind, token)
            if self.as_json:
                fields = {**json_token(token[:SHOWN]), "length": length, "reason": str(reason)}
                ending = ", " + json.dumps(fields)[1:] + "\n"
            else:
                ending = f": {escaped(token)}: {reason}\n"
            if len(raw) <= self.SHORT and len(raw) == length:
                if len(self.endings) >= self.REMEMBERED:
                    self.endings.clear()
                self.endings[raw] = ending
        return f"{self.head}{number}{ending}"


def why(kind: type[Pin] | type[Epin], text: str) -> object:
    """The library's reason the text of a line is no token."""
    try:
        kind.parse(text)
    except ParseError as exc:
        return exc.reason
    raise AssertionError(f"{text!a} was read as invalid")


def judge_words(
    stream: BinaryIO, kind: type[Pin] | type[Epin], shown: str, args: argparse.Namespace,
    out: Output,
) -> tuple[int, int]:  # fmt: skip
    """validate --split: whitespace-separated tokens, read by the bulk bytes path; a
    finding names the line and the position in it (characters, from 0)."""
    total = invalid = 0
    for batch in words_of(stream):
        data = batch.data
        result = kind.parse_many(data, errors="mark")
        errors = result.errors()
        total += len(result)
        invalid += len(errors)
        if not (args.quiet or args.count):
            for error in errors:
                at = int(error.position or 0)
                start = data.rfind(b"\n", 0, at) + 1
                position = characters(data[start:at]) + (batch.column if start == 0 else 0)
                number = batch.line + int(error.line or 1) - 1
                raw = error.token
                assert isinstance(raw, bytes)  # bytes input: its tokens are bytes
                token = raw.decode("utf-8", "surrogateescape")
                if args.json:
                    finding = {
                        "file": shown, "line": number, "position": position,
                        **json_token(token[:SHOWN]), "reason": str(error.reason),
                    }  # fmt: skip
                    out.write(json.dumps(finding) + "\n")
                else:
                    out.write(f"{shown}:{number}:{position}: {escaped(token)}: {error.reason}\n")
            out.flush()
    return total - invalid, invalid


def tokenize_command(args: argparse.Namespace, out: Output) -> int:
    """The tokens of back-to-back text (FEEN) with their positions, one per line; a text
    of any length, read in pieces."""
    status = 0
    text: Tokens | None = None
    described: dict[str, str] = {}  # --json: each token's fields, written once
    for source, piece, ends in pieces_from(args.texts, args.file, out):
        if text is None:
            text = Tokens(Pin if args.pin else Epin, source, args.json, described, out, args.strict)
        text.add(piece, ends)
        if ends:
            status = max(status, text.status)
            text = None
    return status


def pieces_from(
    arguments: list[str], files: list[str], out: Output
) -> Iterator[tuple[Source, str, bool]]:
    """texts_of's texts, each as pieces ``(source, piece, ends)``: an argument whole, a
    line of standard input or of a --file as its reads cut it; the output flushed after
    each read, so a pipe or a terminal gets each answer as its line arrives."""
    for number, argument in enumerate(arguments, 1):
        if argument == "-":
            yield from line_pieces_from("-", out)
        else:
            yield Source(number, None, None), argument, True
    for name in files:
        yield from line_pieces_from(name, out)


def line_pieces_from(name: str, out: Output) -> Iterator[tuple[Source, str, bool]]:
    stream = open_input(name)
    shown, line = shown_name(name), 1
    with reading(name, shown, stream):
        for batch in pieces_of(stream):
            for piece, ends in batch:
                yield Source(None, shown, line), piece, ends
                line += ends
            out.flush()


def placed(found: TokenArray) -> tuple[list[str], Sequence[int]]:
    """A tokenize_many result's tokens and their offsets in the text."""
    offsets = found.offsets
    assert offsets is not None  # tokenize_many's results have them
    return found.tokens(), offsets


class Tokens:
    """tokenize's output for one text given in pieces: its tokens written as they are
    found, up to the first token character that starts no token (then its finding).

    The library scans; this only chooses where a piece may be cut.  What a piece's end
    may change is kept for the next piece: the last token when it ends the piece (a
    "^" or "'" after it would belong to it, or be judged with it), and from a failure
    near the end (the failure may vanish: "+" then "K").  Everything before is exactly
    what tokenizing the whole text gives, so the memory held is a piece's.
    """

    # Characters after a failure that make sure the piece's end did not cause it: a
    # token is at most 4 characters, and scanning judges at most 8 where none starts.
    # A PIECE is longer by more than a token, so a failure near its end still moves on.
    MARGIN = 64

    def __init__(self, kind: type[Pin] | type[Epin], source: Source, as_json: bool,
                 described: dict[str, str], out: Output, strict: bool = False) -> None:  # fmt: skip
        self.kind, self.source, self.as_json, self.out = kind, source, as_json, out
        self.strict = strict  # --strict: what FEEN does not allow between tokens fails
        self.described = described  # --json: a token's fields after its position
        self.held = ""  # the text not written yet
        self.base = 0  # the position of held[0] in the text
        self.status = 0  # 1 once a token character started no token: the rest is skipped
        if as_json:  # json.dumps of the fields, built from parts that do not change
            self.head = json.dumps({**source.fields(), "position": 0})[:-2]
        else:
            self.head = source.prefix()

    def add(self, piece: str, ends: bool) -> None:
        """The text's next piece; ``ends`` when it is the last."""
        if self.status:
            return
        held = self.held + piece
        start = 0  # where in held the next scan starts
        while start < len(held) or ends:
            done = self.scan(held, start, ends)
            if done is None:
                return  # the finding is written
            if done == start:
                if ends and start < len(held):  # a piece past the margin moves on
                    raise AssertionError(f"tokenize stopped at {self.base + start}")
                break  # the rest waits for the next piece
            start = done
            if start == len(held) and ends:
                break
        self.base += start
        self.held = held[start:]

    def scan(self, held: str, start: int, ends: bool) -> int | None:
        """Write the tokens of ``held[start:]`` that no later character can change, a
        piece at most; returns where they end in held (None once the finding is out)."""
        text = held[start : start + max(PIECE, 4 * self.MARGIN)]  # past the margin
        whole = start + len(text) == len(held)  # the piece holds all that is here
        try:
            found = self.kind.tokenize_many([text], strict=self.strict)
        except ParseError as exc:
            at = int(exc.position or 0)
            # A failure far enough from the piece's end is the text's too; what stands
            # there is judged with what follows, up to LONGEST_KEPT characters.
            certain = (whole and ends) or at + self.MARGIN < len(text)
            if certain and (ends or len(held) - (start + at) >= LONGEST_KEPT):
                self.fail(held, start, start + at)
                return None
            # Wait: the next piece may complete what stands at the failure, or judge it.
            tokens, offsets = self.tokens_of(text[:at])
            done = at
            if tokens and offsets[-1] + len(tokens[-1]) == at:
                done = offsets[-1]  # a "^" or "'" right after a token is judged with it
        else:
            tokens, offsets = placed(found)
            done = len(text)
            if not (whole and ends) and tokens and offsets[-1] + len(tokens[-1]) == done:
                done = offsets[-1]  # the next piece may extend it, or start with a marker
        self.write(tokens, offsets, start, done)
        return start + done

    def tokens_of(self, text: str) -> tuple[list[str], Sequence[int]]:
        return placed(self.kind.tokenize_many([text], strict=self.strict))

    def write(self, tokens: list[str], offsets: Sequence[int], start: int, end: int) -> None:
        """Write the tokens at offsets before ``end``, offsets counted from held[start]."""
        count = bisect.bisect_left(offsets, end)
        pairs = zip(offsets[:count], tokens[:count], strict=True)
        base, head = self.base + start, self.head
        if self.as_json:
            described = self.described
            for token in set(tokens[:count]) - described.keys():
                described[token] = ", " + json.dumps(describe(self.kind.parse(token)))[1:]
            lines = [f"{head}{base + at}{described[token]}\n" for at, token in pairs]
        else:
            lines = [f"{head}{base + at}\t{token}\n" for at, token in pairs]
        self.out.write("".join(lines))

    def fail(self, held: str, start: int, at: int) -> None:
        """The finding where no token starts, at held[at]: what stands there judged by
        the library with the text up to LONGEST_KEPT characters past it (a run of markers
        longer than that is judged by its head), the tokens before it written first."""
        judged = held[start : at + LONGEST_KEPT]
        try:
            self.kind.tokenize(judged, strict=self.strict)
        except ParseError as exc:
            position, reason = int(exc.position or 0), exc.reason
        else:  # cannot be: the failure at `at` was read with enough text after it
            raise AssertionError(f"no failure at {self.base + at}")
        tokens, offsets = self.tokens_of(judged[:position])
        self.write(tokens, offsets, start, position)
        token = judged[position:]
        position += self.base + start
        self.status = 1
        if self.as_json:
            finding = {**self.source.fields(), "position": position,
                       **json_token(token[:SHOWN]), "reason": str(reason)}  # fmt: skip
            self.out.write(json.dumps(finding) + "\n")
        else:
            self.out.write(f"{self.source.prefix()}{position}: {escaped(token)}: {reason}\n")


def bench_command(args: argparse.Namespace, out: Output) -> int:
    from ._bench import run

    # Progress goes to stderr; with stderr closed, nowhere.
    progress = sys.stderr if sys.stderr is not None else open(os.devnull, "w")
    # The command's own main for the bench's row of it (the bench imports no CLI).
    return run(args.tokens, args.repeat, out, progress, (main, PROG))  # type: ignore[arg-type]


def demo(out: Output) -> int:
    out.write(f"sashite-epin {__version__} ({IMPLEMENTATION} core): built-in tokens\n\n")
    args = argparse.Namespace(tokens=list(DEMO_TOKENS), file=[], pin=False, json=False)
    parse_command(args, out)
    k = Epin.parse("K^")
    out.write(
        f"\n{k!r}.derive() -> {k.derive()!r}; .pin.flip() -> {k.pin.flip()!r}; "
        f"Epin.parse('K^') is Epin(Pin('K', terminal=True)) -> "
        f"{Epin.parse('K^') is Epin(Pin('K', terminal=True))}\n"
    )
    return 0


# -- arguments -------------------------------------------------------------------------------

_COUNT = re.compile(r"[0-9]+(?:[_,][0-9]+)*|[0-9]+(?:\.[0-9]*)?[eE]\+?[0-9]+")


def count(text: str) -> int:
    """A whole number >= 1: ``1000000``, ``1_000_000``, ``1,000,000`` or ``1e6``."""
    if not _COUNT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    value = float(text) if text[-1:].isdigit() and "e" in text.lower() else None
    number = int(value) if value is not None else int(text.replace(",", "").replace("_", ""))
    if value is not None and value != number:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return number


class Parser(argparse.ArgumentParser):
    """argparse with its usage errors as one line on stderr, exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser(prog: str = "sashite-epin") -> argparse.ArgumentParser:
    parser = Parser(
        prog=prog,
        description="PIN / EPIN piece identifiers (Sashité). With no command: a demo.",
        epilog="Exit status: 0 all valid, 1 some token invalid, 2 usage or I/O error, "
        "130 interrupted.",
    )
    # As grep, ruff and pip print theirs: the program's name, then the version.
    parser.add_argument("--version", action="version", version=f"sashite-epin {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=Parser)
    p = commands.add_parser(
        "parse",
        help="print each token's attributes",
        description="Print each TOKEN's attributes. Every argument that is not one of "
        "the long options below is a TOKEN, even one starting with '-' (-p, -q are "
        "tokens); -h is help, '-- -h' the token. '-' reads tokens from stdin, one per "
        "line.",
    )
    p.add_argument("tokens", nargs="*", metavar="TOKEN")
    v = commands.add_parser(
        "validate",
        help="check one token per line of each FILE",
        description="Check one token per line of each FILE (stdin when none, or '-'). Lines "
        "are split on \\n only; a line's one final \\r is its line end (CRLF files), any "
        "other \\r a character of the token; a UTF-8 byte order "
        "mark at the very start is skipped. Each invalid token is reported as "
        "FILE:LINE: 'token': reason on stdout; the counts go to stderr.",
    )
    v.add_argument("files", nargs="*", metavar="FILE")
    v.add_argument("-q", "--quiet", action="store_true", help="print nothing: the exit status")
    v.add_argument(
        "-c", "--count", action="store_true",
        help="print only the counts (per FILE when several), on stdout",
    )  # fmt: skip
    v.add_argument(
        "--split", action="store_true",
        help="read whitespace-separated tokens, any number a line (findings: "
        "FILE:LINE:POSITION: 'token': reason)",
    )  # fmt: skip
    t = commands.add_parser(
        "tokenize",
        help="split back-to-back text (FEEN) into tokens with their positions",
        description="Print the tokens of each TEXT as N:POSITION<tab>TOKEN (N the "
        "argument's number, from 1; POSITION from 0), and of each line of stdin ('-') or "
        "of a --file as FILE:LINE:POSITION<tab>TOKEN; other characters (digits, '/') are "
        "skipped. Every argument that is not a long option below is a TEXT.",
    )
    t.add_argument("texts", nargs="*", metavar="TEXT")
    t.add_argument(
        "--strict", action="store_true",
        help="also refuse, between tokens, any character FEEN's piece placement does not "
        "allow there (all but digits and '/'): whitespace, a tab, a '\\r', a NUL, a "
        "non-ASCII letter",
    )  # fmt: skip
    p.set_defaults(parser=p)  # a missing TOKEN is that command's usage error
    t.set_defaults(parser=t)
    for sub, what in ((p, "token"), (t, "text")):
        sub.add_argument(
            "--file", action="append", default=[], metavar="FILE",
            help=f"also read FILE, one {what} a line (repeatable)",
        )  # fmt: skip
    for sub in (p, v, t):
        sub.add_argument("--json", action="store_true", help="one JSON object per line")
        sub.add_argument("--pin", action="store_true", help="use the PIN grammar")
    b = commands.add_parser(
        "bench",
        help="time the bulk paths against pure-Python baselines",
        description="Time each bulk path (ns a token, best of --repeat runs after a "
        "warm-up run) beside a pure-Python baseline doing the same work in the same "
        "process, on built-in corpora of --tokens tokens; prints a Markdown table, "
        "the progress on stderr. Below 1e5 tokens the figures are mostly overhead.",
    )
    b.add_argument("--tokens", type=count, default=1_000_000, help="corpus size (1e6)")
    b.add_argument("--repeat", type=count, default=5, help="runs per figure, best kept (5)")
    return parser


# The options of parse and tokenize (every other argument is a token or a text): long
# ones only, since every short option letter is also a token; --file takes a value.
_OPTIONS = {"--json", "--pin", "--strict", "-h", "--help"}
_VALUED = {"--file"}


def with_tokens_last(argv: list[str]) -> list[str]:
    """For parse / tokenize, every argument that is not one of their options is a token
    (tokens start with '-': ``-p``): options first, then ``--``, then the tokens."""
    for at, word in enumerate(argv):
        if word in ("parse", "tokenize"):
            head, rest = argv[: at + 1], argv[at + 1 :]
            options, tokens, ended, valued = [], [], False, False
            for arg in rest:
                if valued:
                    options.append(arg)
                    valued = False
                elif not ended and arg == "--":
                    ended = True
                elif not ended and (arg in _OPTIONS or arg.split("=", 1)[0] in _VALUED):
                    options.append(arg)
                    valued = arg in _VALUED
                else:
                    tokens.append(arg)
            return head + options + ["--"] + tokens
        if not word.startswith("-"):
            break
    return argv


def report(exc: BaseException) -> None:
    say(f"{PROG}: {exc}")


PROG = "sashite-epin"
COMMANDS = {
    "parse": parse_command,
    "validate": validate_command,
    "tokenize": tokenize_command,
    "bench": bench_command,
}


def main(argv: Sequence[str] | None = None, prog: str = "sashite-epin") -> int:
    """Run the command line; returns the exit status."""
    global PROG
    PROG = prog
    arguments = list(sys.argv[1:] if argv is None else argv)
    out = Output(sys.stdout)
    try:
        try:
            parser = build_parser(prog)
            args = parser.parse_args(with_tokens_last(arguments))
            if args.command in ("parse", "tokenize"):
                given = args.tokens if args.command == "parse" else args.texts
                if not given and not args.file:
                    what = "TOKEN" if args.command == "parse" else "TEXT"
                    args.parser.error(f"give a {what}, '-' or --file FILE")
            command = COMMANDS.get(args.command)
            status = command(args, out) if command else demo(out)
            out.flush()
            return status
        except UsageError as exc:
            report(exc)
        except BrokenPipeError:
            # The reader went away (| head): nothing to tell it.  Python's own exit-time
            # flush must not raise again on the closed pipe.
            quiet_stdout()
        except OSError as exc:
            report(UsageError(exc.strerror or exc))
        try:  # what the command wrote before it failed, unless stdout is what failed
            out.flush()
        except (OSError, UsageError):
            quiet_stdout()  # else Python's flush at exit fails on it again
        return 2
    except KeyboardInterrupt:
        # Ctrl-C: the shell's convention, 128 + SIGINT, and nothing else.
        quiet_stdout()
        return 130


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so Python's flush at exit has nowhere to fail."""
    try:
        if sys.stdout is not None:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
