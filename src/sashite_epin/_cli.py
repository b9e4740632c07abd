"""The command line: ``python -m sashite_epin [parse|validate] ...``.

With no arguments it shows a demo on built-in tokens.  ``parse TOKEN...`` prints each
token's attributes (``--json`` for JSON lines); ``validate FILE`` (``-`` for stdin)
checks one token per line and reports every invalid one; both exit 1 on any invalid
token.  ``bench`` times the bulk paths against pure-Python baselines.  ``--pin``
switches both to the PIN grammar.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from typing import TextIO

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


def parse_tokens(tokens: Iterable[str], pin: bool, as_json: bool, out: TextIO) -> int:
    kind = Pin if pin else Epin
    status = 0
    for token in tokens:
        try:
            fields = describe(kind.parse(token))
        except ParseError as exc:
            status = 1
            if as_json:
                print(json.dumps({"token": token, "error": exc.reason}), file=out)
            else:
                print(f"{token!a}: {exc.reason}", file=out)
            continue
        print(json.dumps(fields) if as_json else line_of(fields), file=out)
    return status


def validate(stream: TextIO, pin: bool, out: TextIO) -> int:
    """One token per line (universal newlines); each invalid one reported with its line."""
    kind = Pin if pin else Epin
    bad = total = 0
    for number, line in enumerate(stream, 1):
        token = line[:-1] if line.endswith("\n") else line
        total += 1
        try:
            kind.parse(token)
        except ParseError as exc:
            bad += 1
            print(f"line {number}: {token!a}: {exc.reason}", file=out)
    print(f"{total - bad} valid, {bad} invalid", file=out)
    return 1 if bad else 0


def demo(out: TextIO) -> int:
    print(f"sashite-epin {__version__} ({IMPLEMENTATION} core): built-in tokens\n", file=out)
    parse_tokens(DEMO_TOKENS, pin=False, as_json=False, out=out)
    k = Epin.parse("K^")
    print(
        f"\n{k!r}.derive() -> {k.derive()!r}; .pin.flip() -> {k.pin.flip()!r}; "
        f"Epin.parse('K^') is Epin(Pin('K', terminal=True)) -> "
        f"{Epin.parse('K^') is Epin(Pin('K', terminal=True))}",
        file=out,
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sashite_epin",
        description="PIN / EPIN piece identifiers. With no command: a demo.",
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command")
    p = commands.add_parser("parse", help="print each token's attributes")
    p.add_argument("tokens", nargs="+", metavar="TOKEN")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--pin", action="store_true", help="use the PIN grammar")
    v = commands.add_parser("validate", help="check one token per line of FILE")
    v.add_argument("file", metavar="FILE", help="a path, or - for standard input")
    v.add_argument("--pin", action="store_true", help="use the PIN grammar")
    b = commands.add_parser("bench", help="time the bulk paths against pure-Python baselines")
    b.add_argument("--tokens", type=int, default=1_000_000, help="corpus size (1,000,000)")
    b.add_argument("--repeat", type=int, default=5, help="runs per figure, best kept (5)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = sys.stdout
    if args.command == "parse":
        return parse_tokens(args.tokens, args.pin, args.json, out)
    if args.command == "validate":
        if args.file == "-":
            stream = open(
                sys.stdin.fileno(), encoding="utf-8", errors="surrogateescape", closefd=False
            )
            return validate(stream, args.pin, out)
        with open(args.file, encoding="utf-8", errors="surrogateescape") as stream:
            return validate(stream, args.pin, out)
    if args.command == "bench":
        from ._bench import run

        return run(args.tokens, args.repeat, out)
    return demo(out)
