"""Differential fuzzing of the bytes kernels: every kernel this build runs on this CPU
against the portable one, and the portable one against the pure-Python twin, on random
inputs near the grammar.

    python reliability/kernels_fuzz.py                 # 60 s
    python reliability/kernels_fuzz.py --seconds 600 --seed 7

Needs no fuzzing engine, so it runs wherever the compiled core does, under emulation
too (reliability/aarch64.sh runs it on the NEON kernel under qemu, where atheris has no
wheel).  Each input is read by each kernel through every road a kernel serves:
``parse_many`` over the bytes (errors raised and marked, both notations), over the same
tokens as a list of str, as Arrow binary, large_binary and binary_view columns and as
numpy S, U and StringDType arrays where those are installed, ``tokenize`` over the
bytes as text (scan_many's block loop) and ``tokenize_many`` over its lines (the rows
loop); and what a kernel writes back, ``to_bytes()`` and the Arrow export.  The
outcomes (records, marked indexes, the error's token, reason, index, byte offset and
line, the outputs) must be equal; and the portable kernel (which
has a fast road of its own before the exact scanner) must read the bytes as the twin
does.  A difference prints the input and fails the run.  Inputs: tokens with separators
of every kind, sized to cross 64-byte block edges, then mutated byte by byte with the
grammar's bytes, their neighbours, separators and bytes that are none of these.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from sashite_epin import Epin, ParseError, Pin, _core_c, _core_py
from sashite_epin._corpora import EPIN_TOKENS

SEPARATORS = [b" ", b"\n", b"\t", b"\r\n", b"\x0b", b"\x0c", b"  "]
NOISE = b" \t\n\r+-^'KkAZaz@[`{19/\x00\x7f\x80\x85\xa0\xff"


def arrow_kinds(pyarrow: Any) -> list[Any]:
    """The Arrow layouts a kernel reads: 32-bit and 64-bit offsets, and views."""
    return [pyarrow.binary(), pyarrow.large_binary(), pyarrow.binary_view()]


def written(result: Any, pyarrow: Any) -> object:
    """What a kernel writes back from a result: its joined tokens (when every entry is
    valid) and its Arrow export, read through the PyCapsule interface (pyarrow: the
    module, or None)."""
    joined = result.to_bytes() if not result.invalid else None
    schema, array = result.__arrow_c_array__()
    if pyarrow is None:
        return joined
    exported = pyarrow.Array._import_from_c_capsule(schema, array)
    return joined, [None if b is None else b.to_pybytes() for b in exported.buffers()]


def make_input(rng: random.Random) -> bytes:
    """Tokens and separators, up to a few blocks long, then a few bytes changed."""
    count = rng.choice([rng.randint(0, 8), rng.randint(8, 40), rng.randint(40, 300)])
    data = bytearray()
    for token in rng.choices(EPIN_TOKENS, k=count):
        data += token.encode() + rng.choice(SEPARATORS)
    if rng.random() < 0.3 and data:  # a FEEN-like run: tokens back to back
        data = data.replace(b" ", b"")
    for _ in range(rng.choice([0, 0, 1, 2, 5])):
        if data:
            data[rng.randrange(len(data))] = rng.choice(NOISE)
    if rng.random() < 0.2:
        data[rng.randrange(len(data) + 1) : 0] = bytes(rng.choices(NOISE, k=rng.randint(1, 4)))
    return bytes(data)


def bytes_outcomes(core: Any, data: bytes) -> list[object]:
    """What a core makes of the bytes, in both notations and errors modes: the codes and
    marked indexes, or the error."""
    said: list[object] = []
    for epin in (True, False):
        for errors in ("raise", "mark"):
            try:
                result = core.parse_many(data, epin, errors)
                said.append(("ok", list(result.codes()), list(result.invalid)))
            except ParseError as e:
                said.append(("error", e.token, e.reason, e.index, e.position, e.line))
    return said


def outcomes(data: bytes, columns: list[Any], pyarrow: Any) -> list[object]:
    """What the running kernel makes of data on every road: the buffer, and the same
    tokens as each column (Arrow binary layouts, a list of str)."""
    said: list[object] = []
    for epin in (True, False):
        for errors in ("raise", "mark"):
            for source in (data, *columns):
                try:
                    result = _core_c.parse_many(source, epin, errors)
                    said.append(("ok", bytes(memoryview(result)), list(result.invalid)))
                except ParseError as e:
                    said.append(("error", e.token, e.reason, e.index, e.position, e.line))
                    continue
                if source is data:  # the outputs the kernel writes
                    said.append(written(result, pyarrow))
        text = data.decode("latin-1")
        try:
            said.append(("text", (Epin if epin else Pin).tokenize(text)))
        except ParseError as e:
            said.append(("text error", e.reason, e.position))
        said += rows_outcomes(text, epin)
    return said


def rows_outcomes(text: str, epin: bool) -> list[object]:
    """tokenize_many over the text's lines and its "/"-separated parts as columns (the
    kernel's rows loop, rows ending all over its blocks): records, offsets, rows and
    marks, or the error."""
    said: list[object] = []
    for column in (text.split("\n"), text.split("/")):
        for errors in ("raise", "mark"):
            try:
                result = _core_c.tokenize_many(column, epin, errors)
            except ParseError as e:
                said.append(("rows error", e.token, e.reason, e.index, e.position))
                continue
            said.append(
                ("rows", bytes(memoryview(result)), list(result.offsets),
                 list(result.row_offsets), [(e.index, e.position) for e in result.errors()])
            )  # fmt: skip
    return said


def differ(data: bytes, got: tuple[str, list[object]], want: tuple[str, list[object]]) -> bool:
    """Whether two readers' outcomes on data differ (each: its name, its outcomes);
    prints the differences if so."""
    if got[1] == want[1]:
        return False
    print(f"{got[0]} differs from {want[0]} on {data!r}:")
    for g, w in zip(got[1], want[1], strict=True):
        if g != w:
            print(f"  {got[0]}: {g!r}\n  {want[0]}: {w!r}")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    try:
        import pyarrow
    except ImportError:
        pyarrow = None
    try:
        import numpy
    except ImportError:
        numpy = None
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    kernels = [k for k in _core_c.KERNELS if k != "portable"]
    print(
        f"kernels {', '.join(kernels) or '(none)'} against portable, portable against "
        f"the twin, seed {seed}, {args.seconds:g} s"
    )
    before = _core_c.use_bytes_kernel("portable")
    deadline = time.monotonic() + args.seconds
    runs = 0
    try:
        while time.monotonic() < deadline:
            data = make_input(rng)
            parts = data.split()
            columns: list[Any] = [[part.decode("latin-1") for part in parts]]
            if pyarrow is not None:
                columns += [pyarrow.array(parts, kind) for kind in arrow_kinds(pyarrow)]
            if numpy is not None and parts:
                texts = columns[0]
                columns += [
                    numpy.array(parts, "S"),
                    numpy.array(texts, "U"),
                    numpy.array(texts, numpy.dtypes.StringDType()),
                ]
            _core_c.use_bytes_kernel("portable")
            want = outcomes(data, columns, pyarrow)
            portable, twin = bytes_outcomes(_core_c, data), bytes_outcomes(_core_py, data)
            if differ(data, ("portable", portable), ("twin", twin)):
                return 1
            for kernel in kernels:
                _core_c.use_bytes_kernel(kernel)
                if differ(data, (kernel, outcomes(data, columns, pyarrow)), ("portable", want)):
                    return 1
            runs += 1
    finally:
        _core_c.use_bytes_kernel(before)
    print(f"{runs} inputs, every kernel as the portable one, and it as the twin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
