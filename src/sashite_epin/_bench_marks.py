"""The bench rows of real-shaped data: columns half of whose entries are missing or
invalid (``errors="mark"``) beside the clean column of the same kind, results into
frames beside the parse that made them, and the command line's ``validate`` of a file
with CRLF line ends beside ``validate --split`` of it.  Each row is (path, work,
baseline, baseline work) over the same number of entries; a row whose library is not
installed is left out."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence

from . import Epin

Row = tuple[str, Callable[[], object], str, Callable[[], object]]

# What stands in every other entry of a dirty column: near misses of every kind.
TYPOS = ("K^^", "+", "KQ", "", "k'^", "--p", "Q''", "x")


def parse(entries: object) -> Callable[[], object]:
    return functools.partial(Epin.parse_many, entries, errors="mark")


def half_missing(tokens: list[str]) -> list[str | None]:
    return [None if i % 2 else t for i, t in enumerate(tokens)]


def half_invalid(tokens: list[str]) -> list[str]:
    return [TYPOS[i % len(TYPOS)] if i % 2 else t for i, t in enumerate(tokens)]


def kinds(entries: Sequence[str | None]) -> Iterator[tuple[str, object]]:
    """The same entries in each container parse_many reads (missing ones only where
    the container can hold them)."""
    missing = any(e is None for e in entries[:2])
    yield "list", entries
    yield "tuple", tuple(entries)
    if not missing:
        yield "joined bytes", "\n".join(entries).encode()  # type: ignore[arg-type]
    try:
        import numpy
    except ImportError:
        return
    yield "numpy object", numpy.array(entries, dtype=object)
    if not missing:
        yield "numpy U4", numpy.array(entries, dtype="U4")
        yield "numpy S4", numpy.array([e.encode() for e in entries], dtype="S4")  # type: ignore[union-attr]
    string_dtype = getattr(getattr(numpy, "dtypes", None), "StringDType", None)
    if string_dtype is not None:
        yield "numpy StringDType", numpy.array(entries, dtype=string_dtype(na_object=None))
    try:
        import pyarrow
    except ImportError:
        return
    column = pyarrow.array(entries, pyarrow.string())
    yield "pyarrow utf8", column
    yield "pyarrow large_utf8", column.cast(pyarrow.large_string())
    # Built, not cast: pyarrow 24 crashes exporting a string_view cast from a column
    # with nulls
    yield "pyarrow string_view", pyarrow.array(entries, pyarrow.string_view())
    yield "pyarrow dictionary", column.dictionary_encode()
    chunks = [column.slice(i, 50_000) for i in range(0, len(column), 50_000)]
    yield "pyarrow chunked", pyarrow.chunked_array(chunks, pyarrow.string())
    try:
        import pandas
    except ImportError:
        return
    yield "pandas str Series", pandas.Series(entries, dtype="str")
    yield "pandas object Series", pandas.Series(entries, dtype=object)
    yield "pandas string[python] Series", pandas.Series(entries, dtype="string[python]")
    yield "pandas string[pyarrow] Series", pandas.Series(entries, dtype="string[pyarrow]")
    yield (
        "pandas large_string[pyarrow] Series",
        pandas.Series(entries, dtype=pandas.ArrowDtype(pyarrow.large_string())),
    )
    yield "pandas category Series", pandas.Series(entries, dtype="category")


def marked_rows(tokens: list[str]) -> list[Row]:
    """Each container half missing, and half invalid, beside its clean twin: a marked
    entry should cost about what a valid one does (within 2x)."""
    clean = dict(kinds(tokens))
    rows: list[Row] = []
    dirty: list[tuple[str, Sequence[str | None]]] = [
        ("half missing", half_missing(tokens)),
        ("half invalid", half_invalid(tokens)),
    ]
    for label, entries in dirty:
        for kind, values in kinds(entries):
            rows.append((f"{label}, {kind} -> result", parse(values), "clean", parse(clean[kind])))
        # an iterator is read once: a new one each call, over the list
        rows.append((f"{label}, iterator -> result", _parse_iterator(entries), "clean",
                     _parse_iterator(tokens)))  # fmt: skip
    return rows


def _parse_iterator(entries: Sequence[str | None]) -> Callable[[], object]:
    return lambda: Epin.parse_many(iter(entries), errors="mark")


def tokenize_many_rows(placements: list[str]) -> list[Row]:
    """Placements half missing, and half refused (at their end, in their middle, at
    their start), beside all valid."""
    missing = [None if i % 2 else p for i, p in enumerate(placements)]
    refused = [p + "^^" if i % 2 else p for i, p in enumerate(placements)]
    middle = [p[:30] + "^^" + p[30:] if i % 2 else p for i, p in enumerate(placements)]
    start = ["++" + p if i % 2 else p for i, p in enumerate(placements)]

    def rows_of(texts: object) -> Callable[[], object]:
        return functools.partial(Epin.tokenize_many, texts, errors="mark")

    return [
        ("tokenize_many, half the rows missing", rows_of(missing), "all valid",
         rows_of(placements)),
        ("tokenize_many, half the rows refused", rows_of(refused), "all valid",
         rows_of(placements)),
        ("tokenize_many, half the rows refused in their middle", rows_of(middle),
         "all valid", rows_of(placements)),
        ("tokenize_many, half the rows refused at their start", rows_of(start), "all valid",
         rows_of(placements)),
    ]  # fmt: skip


def frame_rows(tokens: list[str]) -> list[Row]:
    """A result into pandas and polars beside the parse that made it (within 3x): of an
    Arrow column, of a list half invalid (its marked items the input's objects) and of
    a numpy U4 array half invalid (its marks code units, each written as UTF-8)."""
    try:
        import numpy
        import pyarrow
    except ImportError:
        return []
    inputs = {
        "": pyarrow.array(tokens, pyarrow.string()),
        ", a list half invalid": half_invalid(tokens),
        ", numpy U4 half invalid": numpy.array(half_invalid(tokens), dtype="U4"),
    }
    rows: list[Row] = []
    for kind, entries in inputs.items():
        result = Epin.parse_many(entries, errors="mark")
        for name, library in (("to_pandas", "pandas"), ("to_polars", "polars")):
            try:
                __import__(library)
            except ImportError:
                continue
            rows.append((f"result -> {name}(){kind}", getattr(result, name), "the parse",
                         parse(entries)))  # fmt: skip
    return rows


def cli_row(tokens: list[str], cli: Callable[..., int], prog: str) -> list[Row]:
    """``validate`` of a file with CRLF line ends beside ``validate --split`` of the
    same file (within 1.5x), in this process, the output thrown away: cli is the
    command's own main (the command hands it in: the bench imports nothing of it)."""
    handle, path = tempfile.mkstemp(suffix=".txt")
    atexit.register(os.unlink, path)
    with os.fdopen(handle, "wb") as out:
        out.write(("\r\n".join(tokens) + "\r\n").encode())

    def validate(*options: str) -> Callable[[], object]:
        def work() -> object:
            # Under the name the running command has (main sets it for its messages)
            with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
                return cli(["validate", *options, path], prog=prog)

        return work

    return [("validate, CRLF lines", validate(), "validate --split", validate("--split"))]
