"""The bench rows of string containers: each container of the same entries beside the
fastest input of them, an Arrow column of many chunks beside one chunk, and small Arrow
batches parsed and exported (what an SQL engine or Spark hands a UDF) beside one call
over all their rows.  Each row is (path, work, baseline, baseline work), both sides
over the same entries, so their times compare directly; a row whose library is not
installed is left out."""

from __future__ import annotations

import functools
from collections.abc import Callable

from . import Epin

Row = tuple[str, Callable[[], object], str, Callable[[], object]]

# What an engine hands a UDF at a time (DuckDB's and Spark's Arrow batch size).
BATCH_ROWS = 2048
CHUNK_ROWS = 50_000


def parse(tokens: object) -> Callable[[], object]:
    return functools.partial(Epin.parse_many, tokens, errors="mark")


def container_rows(tokens: list[str]) -> list[Row]:
    """Each pandas string container beside the one-chunk pyarrow column of the same
    entries (the fastest input of them); the containers of Python str objects also
    beside a list of the same objects (their fastest input: the objects are where they
    are, each read where it lies)."""
    try:
        import pandas
        import pyarrow
    except ImportError:
        return []
    column = pyarrow.array(tokens)
    series = pandas.Series(column, dtype=pandas.ArrowDtype(pyarrow.string()))
    python = pandas.Series(tokens, dtype="str").astype("string[python]")
    objects = pandas.Series(tokens, dtype="str").astype(object)
    containers = {
        "pandas str Series": pandas.Series(tokens, dtype="str"),
        "pandas string[pyarrow] Series": pandas.Series(tokens, dtype="string[pyarrow]"),
        "pandas string[python] Series": python,
        "pandas ArrowDtype(string) Series": series,
        "pandas ArrowDtype(large_string) Series": pandas.Series(
            column.cast(pyarrow.large_string()), dtype=pandas.ArrowDtype(pyarrow.large_string())
        ),
        "pandas object Series": objects,
    }
    rows: list[Row] = [
        (
            f"{name} -> result, beside Arrow",
            parse(values),
            "pyarrow column -> result",
            parse(column),
        )
        for name, values in containers.items()
    ]
    for name, values in (
        ("pandas string[python] Series", python),
        ("pandas object Series", objects),
    ):
        same = values.tolist()  # the very objects the Series holds
        rows.append((f"{name} -> result, beside a list", parse(values),
                     "a list of its str objects", parse(same)))  # fmt: skip
    return rows


def chunk_rows(tokens: list[str]) -> list[Row]:
    """An Arrow column of chunks of CHUNK_ROWS entries beside the same entries in one
    chunk; and a pandas str Series over those chunks beside its one-chunk twin."""
    try:
        import pyarrow
    except ImportError:
        return []
    column = pyarrow.array(tokens)
    chunked = pyarrow.chunked_array(
        [column.slice(i, CHUNK_ROWS) for i in range(0, len(column), CHUNK_ROWS)]
    )
    chunks = chunked.num_chunks
    rows: list[Row] = [
        (f"pyarrow column of {chunks} chunks -> result", parse(chunked),
         "one chunk -> result", parse(column)),
    ]  # fmt: skip
    try:
        import pandas
    except ImportError:
        return rows
    large = chunked.cast(pyarrow.large_string())
    whole = pandas.Series(pandas.arrays.ArrowStringArray(large.combine_chunks()))
    many = pandas.Series(pandas.arrays.ArrowStringArray(large))
    rows.append(
        (f"pandas str Series of {chunks} chunks -> result", parse(many),
         "one chunk -> result", parse(whole))
    )  # fmt: skip
    return rows


# The near misses a real column holds now and then (typos), and how often: one entry in
# MISSING_EVERY missing, one in TYPO_EVERY a typo, the rest the corpus's tokens.
TYPOS = ("KK", "K+", "^K", "K^^", "K''", "1", "K ", "")
MISSING_EVERY = 97
TYPO_EVERY = 89


def real_column(tokens: list[str]) -> list[str | None]:
    """The tokens as a real column holds them: now and then missing (None) or a typo."""
    column: list[str | None] = list(tokens)
    column[::MISSING_EVERY] = [None] * len(column[::MISSING_EVERY])
    column[1::TYPO_EVERY] = [TYPOS[k % len(TYPOS)] for k in range(len(column[1::TYPO_EVERY]))]
    return column


# How each small batch's result is exported: pyarrow reading the stream capsule
# (pa.table), the array capsule (pa.record_batch), or the result's own to_arrow().
EXPORTS = ("pa.table(result)", "pa.record_batch(result)", "result.to_arrow()")


def batch_row(tokens: list[str], export: str = "pa.table(result)") -> tuple[Row, int]:
    """Record batches of BATCH_ROWS rows of ``real_column(tokens)``, each parsed (marked)
    and exported (``export``, one of EXPORTS), beside one batch of all their rows parsed
    and exported the same way; and the rows both sides read (a whole number of
    batches), to give the time per row."""
    import pyarrow

    count = len(tokens) // BATCH_ROWS * BATCH_ROWS
    column = pyarrow.array(real_column(tokens[:count]), pyarrow.string())
    whole = pyarrow.record_batch([column], names=["token"])
    batches = [whole.slice(i, BATCH_ROWS) for i in range(0, count, BATCH_ROWS)]
    table = {
        "pa.table(result)": pyarrow.table,
        "pa.record_batch(result)": pyarrow.record_batch,
        "result.to_arrow()": _to_arrow,
    }[export]

    def each_batch() -> object:
        last = None
        for batch in batches:
            last = table(Epin.parse_many(batch, errors="mark"))
        return last

    def one_call() -> object:
        return table(Epin.parse_many(whole, errors="mark"))

    return (
        (
            f"{BATCH_ROWS:,}-row Arrow batches (1% missing, 1% typos), parse + {export}",
            each_batch,
            "one batch of all the rows",
            one_call,
        ),
        count,
    )


def batch_rows(tokens: list[str]) -> list[Row]:
    """The small batches exported each way."""
    return [batch_row(tokens, export)[0] for export in EXPORTS]


def _to_arrow(result: object) -> object:
    return result.to_arrow()  # type: ignore[attr-defined]
