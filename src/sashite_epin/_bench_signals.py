"""The bench rows of the signal checks between pieces (Ctrl-C stops a long call): each
long path with pieces sixteen times smaller than the default, so sixteen times the
checks, beside the same call read in one piece (no check at all).  At the default size
a call on a million tokens makes one check or none; these rows bound what the checks
cost where a call makes many.  Compiled core only: the twin stops between bytecodes."""

from __future__ import annotations

import functools
from collections.abc import Callable

from . import Epin
from ._core import core

Row = tuple[str, Callable[[], object], str, Callable[[], object]]

WHOLE = 1 << 62  # bytes: one piece, whatever the input


def in_pieces(size: int, work: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        was = core.use_piece_size(size)
        try:
            return work()
        finally:
            core.use_piece_size(was)

    return run


def signal_rows(tokens: list[str]) -> list[Row]:
    """Each path with sixteen times the default checks, beside no check."""
    if getattr(core, "IMPLEMENTATION", "") != "cython":
        return []
    default = core.use_piece_size(WHOLE)  # the core's own size, put back at once
    core.use_piece_size(default)
    small = default // 16
    result = Epin.parse_many(tokens)
    works: dict[str, Callable[[], object]] = {
        "joined bytes -> result": functools.partial(Epin.parse_many, "\n".join(tokens).encode()),
        "list of str -> result": functools.partial(Epin.parse_many, tokens),
        "result -> tokens()": result.tokens,
        "result -> joined bytes": result.to_bytes,
        "result -> Arrow export": result.__arrow_c_array__,
    }
    try:
        import numpy
        import pyarrow
    except ImportError:
        pass
    else:
        works["numpy U4 -> result"] = functools.partial(Epin.parse_many, numpy.array(tokens, "U4"))
        works["pyarrow column -> result"] = functools.partial(
            Epin.parse_many, pyarrow.array(tokens)
        )
        works["numpy codes -> from_codes"] = functools.partial(
            Epin.from_codes, numpy.asarray(result.codes())
        )
    return [
        (f"{name}, 16x the signal checks", in_pieces(small, work),
         "no signal check", in_pieces(WHOLE, work))
        for name, work in works.items()
    ]  # fmt: skip
