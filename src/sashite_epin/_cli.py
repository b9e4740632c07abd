"""The command line: ``sashite-epin`` / ``python -m sashite_epin``.

It behaves like grep, ruff and jq: findings on stdout (``FILE:LINE: 'token': reason``, or
one JSON object per line with ``--json``), the summary and every failure on stderr, exit 0
when all is valid, 1 when something is invalid, 2 for a usage or I/O error (missing file,
directory, permission, a closed or full output) with a one-line message, 130 on Ctrl-C;
never a traceback, whichever standard stream is closed.  A reader that goes away (``| head``)
ends the command quietly.

Input lines are split on ``\\n`` only, so line numbers agree with ``grep -n`` and ``wc -l``;
one final ``\\r`` is removed (CRLF files); any other character is part of the token.
Tokens are shown escaped (``'\\u212a'``, ``'\\xff'`` for a byte that is not UTF-8), never
echoed raw, and cut to a readable length.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import BinaryIO, TextIO

from . import IMPLEMENTATION, Epin, ParseError, Pin, __version__

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
CHUNK = 1 << 20  # bytes read at a time
LONGEST_KEPT = 1 << 20  # a longer line is judged by its first MiB (no token is that long)


class UsageError(Exception):
    """A failure the user caused: reported as one line on stderr, exit status 2."""


class OutputError(UsageError):
    """Standard output refused what was written (closed, full disk): the command's own
    output, never blamed on the input being read."""


class Output:
    """Standard output as the commands write to it: a write that fails for any reason but
    a reader going away (BrokenPipeError, main's to report) is an OutputError; a closed
    stdout (``>&-``: sys.stdout is None) fails only when written to, so ``-q`` still runs."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if self.stream is None:
            raise OutputError("standard output is closed")
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"standard output: {exc.strerror or exc}") from None

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"standard output: {exc.strerror or exc}") from None


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


def escaped(token: str) -> str:
    """The token quoted, printable ASCII as itself and everything else escaped.

    Non-ASCII code points are ``\\uXXXX`` (a look-alike such as the Kelvin sign must not
    pass for ``K``); bytes that were not UTF-8 (surrogate escapes) are ``\\xNN``.  At most
    SHOWN characters, then ``...``.
    """
    out = []
    for char in token[:SHOWN]:
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
    return "'" + "".join(out) + "'" + ("..." if len(token) > SHOWN else "")


def json_text(token: str) -> str:
    """The token for JSON: valid UTF-8 always, bytes that were not UTF-8 as ``\\xNN`` text."""
    return token.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# -- reading lines ---------------------------------------------------------------------------


def lines_of(stream: BinaryIO) -> Iterator[list[str]]:
    """Batches of lines, split on b"\\n" only, a final b"\\r" removed, decoded as UTF-8 with
    surrogate escapes.  A trailing b"\\n" ends the last line rather than starting one."""
    pending = b""
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            break
        parts = (pending + chunk).split(b"\n")
        pending = parts.pop()
        if len(pending) > LONGEST_KEPT:  # never a token: keep a bounded head, drop the rest
            pending = pending[:LONGEST_KEPT]
        if parts:
            yield decoded(parts)
    if pending:
        yield decoded([pending])


def decoded(parts: list[bytes]) -> list[str]:
    text = b"\n".join(parts).decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if "\r" in text:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return lines


def with_stdin(arguments: list[str]) -> Iterator[str]:
    """The arguments in order, each ``-`` replaced by the lines of standard input."""
    for argument in arguments:
        if argument == "-":
            for batch in lines_of(standard_input()):
                yield from batch
        else:
            yield argument


def open_input(name: str) -> BinaryIO:
    if name == "-":
        return standard_input()
    try:
        if os.path.isdir(name):
            raise UsageError(f"{name}: is a directory")
        return open(name, "rb")
    except OSError as exc:
        raise UsageError(f"{name}: {exc.strerror or exc}") from None


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


def parse_command(args: argparse.Namespace, out: TextIO) -> int:
    """Each token's attributes; ``-`` reads tokens from stdin, one per line."""
    kind = Pin if args.pin else Epin
    status = 0

    for token in with_stdin(args.tokens):
        try:
            fields = describe(kind.parse(token))
        except ParseError as exc:
            status = 1
            if args.json:
                out.write(json.dumps({"token": json_text(token), "error": str(exc.reason)}) + "\n")
            else:
                out.write(f"{escaped(token)}: {exc.reason}\n")
            continue
        out.write((json.dumps(fields) if args.json else line_of(fields)) + "\n")
    return status


def validate_command(args: argparse.Namespace, out: TextIO) -> int:
    """One token per line of each FILE (stdin without one); every invalid one reported."""
    kind = Pin if args.pin else Epin
    total = invalid = 0
    failed = False
    for name in args.files or ["-"]:
        shown_name = STDIN_NAME if name == "-" else name
        try:
            stream = open_input(name)
        except UsageError as exc:
            report(exc)
            failed = True
            continue
        try:
            line = 0
            for batch in lines_of(stream):
                result = kind.parse_many(batch, errors="mark")
                for error in result.errors():
                    invalid += 1
                    if args.quiet:
                        continue
                    token = str(error.token)
                    number = line + int(error.index or 0) + 1
                    if args.json:
                        finding = {
                            "file": shown_name,
                            "line": number,
                            "token": json_text(token[:SHOWN]),
                            "length": len(token.encode("utf-8", "surrogateescape")),
                            "reason": str(error.reason),
                        }
                        out.write(json.dumps(finding) + "\n")
                    else:
                        out.write(f"{shown_name}:{number}: {escaped(token)}: {error.reason}\n")
                line += len(batch)
            total += line
        except OSError as exc:  # a failed read (a failed write is an OutputError)
            if isinstance(exc, BrokenPipeError):
                raise  # our output, not this input: main() ends quietly
            report(UsageError(f"{name}: {exc.strerror or exc}"))
            failed = True
        finally:
            if name != "-":
                stream.close()
    if not args.quiet:
        out.flush()
        say(f"{total - invalid} valid, {invalid} invalid")
    return 2 if failed else 1 if invalid else 0


def tokenize_command(args: argparse.Namespace, out: TextIO) -> int:
    """The tokens of back-to-back text (FEEN) with their positions, one per line."""
    kind = Pin if args.pin else Epin
    status = 0

    for number, text in enumerate(with_stdin(args.texts), 1):
        try:
            items = kind.tokenize(text)
        except ParseError as exc:
            status = 1
            position = exc.position or 0
            rest = text[position:]
            if args.json:
                failure = {"text": number, "position": position, "error": str(exc.reason)}
                out.write(json.dumps({**failure, "at": json_text(rest[:SHOWN])}) + "\n")
            else:
                out.write(f"{number}:{position}: {escaped(rest)}: {exc.reason}\n")
            continue
        position = 0
        for item in items:
            if isinstance(item, str):
                position += len(item)
                continue
            written = str(item)
            if args.json:
                out.write(json.dumps({"text": number, "position": position, **describe(item)}))
                out.write("\n")
            else:
                out.write(f"{number}:{position}\t{written}\n")
            position += len(written)
    return status


def bench_command(args: argparse.Namespace, out: TextIO) -> int:
    from ._bench import run

    # Progress goes to stderr; with stderr closed, nowhere.
    progress = sys.stderr if sys.stderr is not None else open(os.devnull, "w")
    return run(args.tokens, args.repeat, out, progress)


def demo(out: TextIO) -> int:
    print(f"sashite-epin {__version__} ({IMPLEMENTATION} core): built-in tokens\n", file=out)
    args = argparse.Namespace(tokens=DEMO_TOKENS, pin=False, json=False)
    parse_command(args, out)
    k = Epin.parse("K^")
    print(
        f"\n{k!r}.derive() -> {k.derive()!r}; .pin.flip() -> {k.pin.flip()!r}; "
        f"Epin.parse('K^') is Epin(Pin('K', terminal=True)) -> "
        f"{Epin.parse('K^') is Epin(Pin('K', terminal=True))}",
        file=out,
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
        epilog="Exit status: 0 all valid, 1 some token invalid, 2 usage or I/O error.",
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", parser_class=Parser)
    p = commands.add_parser(
        "parse",
        help="print each token's attributes",
        description="Print each TOKEN's attributes. A TOKEN may start with '-' (-p is a "
        "token); '-' reads tokens from stdin, one per line.",
    )
    p.add_argument("tokens", nargs="+", metavar="TOKEN")
    v = commands.add_parser(
        "validate",
        help="check one token per line of each FILE",
        description="Check one token per line of each FILE (stdin when none, or '-'). Lines "
        "are split on \\n only; one final \\r is removed (CRLF files). Each invalid token "
        "is reported as FILE:LINE: 'token': reason on stdout; the counts go to stderr.",
    )
    v.add_argument("files", nargs="*", metavar="FILE")
    v.add_argument("-q", "--quiet", action="store_true", help="print nothing: the exit status")
    t = commands.add_parser(
        "tokenize",
        help="split back-to-back text (FEEN) into tokens with their positions",
        description="Print the tokens of each TEXT ('-': stdin, one text per line) as "
        "TEXT:POSITION<tab>TOKEN, TEXT counted from 1, POSITION from 0; other characters "
        "(digits, '/') are skipped.",
    )
    t.add_argument("texts", nargs="+", metavar="TEXT")
    for sub in (p, v, t):
        sub.add_argument("--json", action="store_true", help="one JSON object per line")
        sub.add_argument("--pin", action="store_true", help="use the PIN grammar")
    b = commands.add_parser("bench", help="time the bulk paths against pure-Python baselines")
    b.add_argument("--tokens", type=count, default=1_000_000, help="corpus size (1e6)")
    b.add_argument("--repeat", type=count, default=5, help="runs per figure, best kept (5)")
    return parser


_OPTIONS = {"--json", "--pin", "-q", "--quiet", "-h", "--help"}


def with_tokens_last(argv: list[str]) -> list[str]:
    """For parse / tokenize, every argument that is not one of their options is a token
    (tokens start with '-': ``-p``): options first, then ``--``, then the tokens."""
    for at, word in enumerate(argv):
        if word in ("parse", "tokenize"):
            head, rest = argv[: at + 1], argv[at + 1 :]
            options, tokens, ended = [], [], False
            for arg in rest:
                if not ended and arg == "--":
                    ended = True
                elif not ended and arg in _OPTIONS:
                    options.append(arg)
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
            args = build_parser(prog).parse_args(with_tokens_last(arguments))
            command = COMMANDS.get(args.command)
            status = command(args, out) if command else demo(out)  # type: ignore[arg-type]
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
