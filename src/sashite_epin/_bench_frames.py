"""The bench rows of the frames' namespaces (the goals of benchmarks/test_bench_frames.py,
at the bench's size): the polars namespace beside ``replace_strict`` with a dict of the
624 tokens, a category column beside the same column as strings, the pandas accessor's
``parse()`` beside ``parse_many(s).to_pandas()``; on the clean corpus and on a mixed one
made from it (half valid tokens, two fifths near misses, a tenth missing).  Each row is
(path, work, baseline, baseline work); a row whose library is not installed is left
out."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import Any

from . import Epin
from ._corpora import EPIN_TOKENS

Row = tuple[str, Callable[[], object], str, Callable[[], object]]

MISSES = ["", "KK", "K+", "^K", "++K", "K^^", "K''", "1", "K ", "x1", "\u212a", "+K^'X"]


def mixed(tokens: list[str], seed: int = 5) -> list[str | None]:
    """The tokens, half of them kept, two fifths made near misses, a tenth missing."""
    rng = random.Random(seed)
    out: list[str | None] = []
    for token in tokens:
        roll = rng.random()
        out.append(token if roll < 0.5 else None if roll >= 0.9 else rng.choice(MISSES))
    return out


def _call(owner: object, method: str, *args: object) -> Callable[[], object]:
    def work() -> object:
        return getattr(owner, method)(*args)

    return work


def polars_rows(tokens: Sequence[str | None]) -> list[Row]:
    """reason() within 0.5x and parse() within 1.0x of replace_strict; a Categorical and
    an Enum column's parse() within 1.2x of the String column's."""
    try:
        import numpy  # noqa: F401 (the namespace's categories need it)
        import polars

        from . import polars as _namespace  # noqa: F401 (registers .epin)
    except ImportError:
        return []
    series: Any = polars.Series("token", tokens, polars.String)  # .epin: registered
    table = {t: Epin.parse(t).code for t in EPIN_TOKENS}
    replace = functools.partial(
        series.replace_strict, table, default=None, return_dtype=polars.UInt16
    )
    words = sorted({t for t in tokens if t is not None})
    rows: list[Row] = [
        ("polars s.epin.reason()", series.epin.reason, "replace_strict(dict)", replace),
        ("polars s.epin.parse('mark')", _call(series.epin, "parse", "mark"),
         "replace_strict(dict)", replace),
    ]  # fmt: skip
    kinds: dict[str, Any] = {
        "Categorical": series.cast(polars.Categorical),
        "Enum": series.cast(polars.Enum(words)),
    }
    for kind, values in kinds.items():
        rows.append((f"polars {kind} .epin.parse('mark')", _call(values.epin, "parse", "mark"),
                     "the String column", _call(series.epin, "parse", "mark")))  # fmt: skip
    return rows


def pandas_rows(tokens: Sequence[str | None]) -> list[Row]:
    """The accessor's parse() within 1.2x of parse_many(s).to_pandas(); a category
    Series' within 1.2x of the str Series'."""
    try:
        import pandas
        import pyarrow  # noqa: F401 (to_pandas needs it)

        from . import pandas as _accessor  # noqa: F401 (registers .epin)
    except ImportError:
        return []
    series = pandas.Series(tokens, dtype="str")
    category = series.astype("category")

    def parse_then_frame() -> object:
        return Epin.parse_many(series, errors="mark").to_pandas()

    return [
        ("pandas s.epin.parse('mark')", _call(series.epin, "parse", "mark"),
         "parse_many(s).to_pandas()", parse_then_frame),
        ("pandas category .epin.parse('mark')", _call(category.epin, "parse", "mark"),
         "the str Series", _call(series.epin, "parse", "mark")),
    ]  # fmt: skip
