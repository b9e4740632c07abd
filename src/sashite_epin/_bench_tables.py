"""The bench rows of the data paths around the core: every pandas container beside
``parse_many(series)``, dirty inputs beside clean ones, a ten-times-larger input beside
the usual size, a result's errors, and the pure-Python twin beside the obvious code.
Each row is (path, work, baseline, baseline work), timed per token of ``count``; a row
whose library is not installed is left out."""

from __future__ import annotations

import functools
from collections.abc import Callable

from . import Epin
from ._corpora import EPIN_TOKENS

Row = tuple[str, Callable[[], object], str, Callable[[], object]]

# Every thousandth entry replaced by a near miss: 0.1 % invalid, as in real records.
DIRTY_EVERY = 1000


def dirty(tokens: list[str]) -> list[str]:
    return [("K+" if i % DIRTY_EVERY == 0 else t) for i, t in enumerate(tokens)]


def parse(tokens: object) -> Callable[[], object]:
    return functools.partial(Epin.parse_many, tokens, errors="mark")


def container_rows(tokens: list[str]) -> list[Row]:
    """Each pandas container and numpy StringDType within 1.5x of the Series."""
    try:
        import numpy
        import pandas
    except ImportError:
        return []
    series = pandas.Series(tokens, dtype="str")
    category = series.astype("category")
    python = series.astype("string[python]")
    containers = {
        "pandas Series.values": series.values,
        "pandas Series.array": series.array,
        "pandas Index": pandas.Index(series),
        "pandas category Series": category,
        "pandas Categorical": category.values,
        "numpy StringDType array": numpy.array(tokens, dtype=numpy.dtypes.StringDType()),
    }
    rows = [
        (f"{name} -> result", parse(values), "pandas str Series -> result", parse(series))
        for name, values in containers.items()
    ]
    rows.append(
        (
            "pandas python-string .array -> result",
            parse(python.array),
            "its Series -> result",
            parse(python),
        )
    )
    try:
        import pyarrow
    except ImportError:
        return rows
    column = pyarrow.array(tokens)
    rows.append(
        (
            "Arrow dictionary column -> result",
            parse(column.dictionary_encode()),
            "pyarrow column -> result",
            parse(column),
        )
    )
    return rows


def dirty_rows(tokens: list[str]) -> list[Row]:
    """0.1 % invalid entries (marked) within 1.3x of a clean input, per path."""
    bad = dirty(tokens)
    rows: list[Row] = [
        ("0.1 % invalid, list -> result", parse(bad), "clean list", parse(tokens)),
        (
            "0.1 % invalid, joined bytes -> result",
            parse("\n".join(bad).encode()),
            "clean bytes",
            parse("\n".join(tokens).encode()),
        ),
    ]
    try:
        import numpy
        import pyarrow
    except ImportError:
        return rows
    rows.append(
        ("0.1 % invalid, pyarrow column", parse(pyarrow.array(bad)), "clean column",
         parse(pyarrow.array(tokens)))
    )  # fmt: skip
    rows.append(
        ("0.1 % invalid, numpy U4", parse(numpy.array(bad, "U4")), "clean U4",
         parse(numpy.array(tokens, "U4")))
    )  # fmt: skip
    return rows


def large_row(tokens: list[str], scale: int) -> tuple[str, Callable[[], object], int]:
    """Bytes input ``scale`` times larger, timed per token of the larger input: its
    result's memory is what page faults cost."""
    joined = "\n".join(tokens * scale).encode()
    return (f"joined bytes, {scale}x the tokens", parse(joined), len(tokens) * scale)


def errors_row(count: int) -> Row:
    """errors() of a result whose every other entry is invalid: how many, and the
    first hundred, against list() of them all."""
    half = ["K+" if i % 2 else "K" for i in range(count)]
    result = Epin.parse_many(half, errors="mark")

    def first_hundred() -> object:
        errors = result.errors()
        return len(errors), errors[:100]

    return (
        "errors(): count and first 100 (50 % invalid)",
        first_hundred,
        "list(errors())",
        lambda: list(result.errors()),
    )


def twin_rows(tokens: list[str]) -> list[Row]:
    """The pure-Python twin beside the obvious pure-Python code for the same input."""
    from . import _core_py

    table = {t: Epin.parse(t) for t in EPIN_TOKENS}
    by_bytes = {t.encode(): v for t, v in table.items()}
    joined = "\n".join(tokens).encode()

    def twin(data: object) -> Callable[[], object]:
        return functools.partial(_core_py.parse_many, data, True)

    rows: list[Row] = [
        ("twin: list -> result", twin(tokens), "[table[t] for t in tokens]",
         lambda: [table[t] for t in tokens]),
        ("twin: joined bytes -> result", twin(joined), "[table[t] for t in data.split()]",
         lambda: [by_bytes[t] for t in joined.split()]),
    ]  # fmt: skip
    try:
        import numpy
        import pyarrow
    except ImportError:
        return rows
    column = pyarrow.array(tokens)
    u4 = numpy.array(tokens, "U4")
    rows.append(
        ("twin: pyarrow column -> result", twin(column), "[table[t] for t in to_pylist()]",
         lambda: [table[t] for t in column.to_pylist()])
    )  # fmt: skip
    rows.append(
        ("twin: numpy U4 -> result", twin(u4), "[table[t] for t in tolist()]",
         lambda: [table[t] for t in u4.tolist()])
    )  # fmt: skip
    return rows
