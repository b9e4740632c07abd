"""The same entries in every container give the same result: Arrow columns of many
chunks (empty ones, ones with nulls, slices), record batches and tables (whose rows may
be null), small batches parsed and exported, and every pandas string container with
missing values, on both cores, each beside the same entries as a list."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest
from conftest import CORES, optional

from sashite_epin import Epin, ParseError, Pin

pd = optional("pandas")

# Valid tokens, invalid ones (each reason), and missing values.
ENTRIES = ["K", "+k^'", None, "K+", "q'", "", "-P^", "kk", "Ｋ", "z", None, "+S"]


def tokens(n: int, start: int = 0) -> list[str | None]:
    return [ENTRIES[(start + i) % len(ENTRIES)] for i in range(n)]


def records(result: object) -> bytes:
    return np.asarray(result).tobytes()


def marks(result: object) -> list[tuple[object, ...]]:
    # A missing value is named as the container holds it (None, pandas.NA): any is None.
    return [
        (e.token if isinstance(e.token, str) else None, e.reason, e.index)
        for e in result.errors()  # type: ignore[attr-defined]
    ]


def same(got: object, want: object) -> None:
    assert records(got) == records(want)
    assert list(got.invalid) == list(want.invalid)  # type: ignore[attr-defined]
    assert marks(got) == marks(want)


def first_error(parse: object) -> tuple[object, ...]:
    with pytest.raises(ParseError) as caught:
        parse()  # type: ignore[operator]
    e = caught.value
    return (str(e), e.token if isinstance(e.token, str) else None, e.reason, e.index)


def chunks_of(entries: list[str | None], sizes: list[int], kind: pa.DataType) -> pa.ChunkedArray:
    """The entries in chunks of these sizes (0: an empty chunk), each a slice of a
    larger array (an offset into its buffers)."""
    out, at = [], 0
    for size in sizes:
        padded = ["+K"] * 3 + entries[at : at + size] + ["k"] * 2
        out.append(pa.array(padded, kind).slice(3, size))
        at += size
    assert at == len(entries)
    return pa.chunked_array(out, kind)


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("kind", [pa.string(), pa.large_string(), pa.string_view()], ids=str)
@pytest.mark.parametrize(
    "sizes",
    [[0], [0, 0], [5, 0, 7, 0], [1] * 30, [0, 2047, 1, 0, 2049], [50_000, 0, 49_999, 1]],
    ids=lambda s: f"{len(s)}-chunks-{sum(s)}",
)
def test_many_chunks_read_as_one_list(
    core: ModuleType, kind: pa.DataType, sizes: list[int]
) -> None:
    entries = tokens(sum(sizes))
    column = chunks_of(entries, sizes, kind)
    for epin in (True, False):
        same(core.parse_many(column, epin, "mark"), core.parse_many(entries, epin, "mark"))
    if entries:
        assert first_error(lambda: core.parse_many(column, True, "raise")) == first_error(
            lambda: core.parse_many(entries, True, "raise")
        )


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_big_stream_after_a_big_result_and_a_small_one_after_it(core: ModuleType) -> None:
    # Records grown chunk by chunk reuse memory a freed result left; what a smaller
    # stream leaves of a larger block is handed back, and both read what a list reads.
    big = tokens(2_000_000)
    core.parse_many(big, True, "mark")  # a large result (10 MB), freed at once
    for n, size in ((600_000, 20_000), (250_000, 50_000), (3, 1)):
        entries = big[:n]
        column = chunks_of(entries, [size] * (n // size), pa.string())
        same(core.parse_many(column, True, "mark"), core.parse_many(entries, True, "mark"))


def struct_rows(entries: list[str | None], null_rows: list[int]) -> pa.StructArray:
    mask = pa.array([i in null_rows for i in range(len(entries))])
    return pa.StructArray.from_arrays([pa.array(entries)], names=["t"], mask=mask)


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("n", [0, 1, 2047, 2048, 2049])
def test_batches_and_tables_read_as_their_column(core: ModuleType, n: int) -> None:
    entries = tokens(n, 5)
    batch = pa.record_batch([pa.array(entries, pa.string())], names=["t"])
    dictionary = pa.record_batch([pa.array(entries, pa.string()).dictionary_encode()], names=["t"])
    sliced = pa.record_batch([pa.array(["K", *entries, "k"])], names=["t"]).slice(1, n)
    table = pa.Table.from_batches([batch.slice(0, n // 2), batch.slice(n // 2)])
    want = core.parse_many(entries, True, "mark")
    for column in (batch, dictionary, sliced, table):
        same(core.parse_many(column, True, "mark"), want)
        if n:
            assert first_error(lambda c=column: core.parse_many(c, True, "raise")) == (
                first_error(lambda: core.parse_many(entries, True, "raise"))
            )


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_null_rows_of_a_struct_are_missing_whatever_the_column_holds(core: ModuleType) -> None:
    entries = tokens(40)
    nulls = [0, 1, 9, 17, 39]
    rows = struct_rows(entries, nulls)
    want = [None if i in nulls else t for i, t in enumerate(entries)]
    same(core.parse_many(rows, True, "mark"), core.parse_many(want, True, "mark"))
    same(core.parse_many(rows.slice(3, 30), True, "mark"),
         core.parse_many(want[3:33], True, "mark"))  # fmt: skip
    clean = struct_rows(["K"] * 20, [])  # a validity buffer, no nulls
    same(core.parse_many(clean, True, "mark"), core.parse_many(["K"] * 20, True, "mark"))


@pytest.mark.parametrize("n", [0, 1, 2047, 2048, 2049])
@pytest.mark.parametrize("notation", [Epin, Pin], ids=lambda c: c.__name__)
def test_small_batches_parsed_and_exported(n: int, notation: type) -> None:
    entries = tokens(n, 2)
    batch = pa.record_batch([pa.array(entries, pa.string())], names=["t"])
    got = notation.parse_many(batch, errors="mark")  # type: ignore[attr-defined]
    want = notation.parse_many(entries, errors="mark")  # type: ignore[attr-defined]
    same(got, want)
    assert pa.table(got).equals(pa.table(want))
    assert pa.table(got).num_rows == n


def pandas_containers(entries: list[str | None]) -> dict[str, object]:
    arrow = pa.array(entries)
    return {
        "str": pd.Series(entries, dtype="str"),
        "string[pyarrow]": pd.Series(entries, dtype="string[pyarrow]"),
        "string[python]": pd.Series(entries, dtype="string[python]"),
        "string[python] from str": pd.Series(entries, dtype="str").astype("string[python]"),
        "ArrowDtype(string)": pd.Series(arrow, dtype=pd.ArrowDtype(pa.string())),
        "ArrowDtype(large_string)": pd.Series(
            arrow.cast(pa.large_string()), dtype=pd.ArrowDtype(pa.large_string())
        ),
        "object": pd.Series(entries, dtype=object),
        "str of many chunks": pd.Series(
            pd.arrays.ArrowStringArray(
                chunks_of(entries, [0, 7, len(entries) - 7, 0], pa.large_string())
            )
        ),
    }


@pytest.mark.parametrize("name", list(pandas_containers(tokens(8))))
def test_every_pandas_string_container_with_missing_values(name: str) -> None:
    entries = tokens(3000, 1)
    column = pandas_containers(entries)[name]
    same(Epin.parse_many(column, errors="mark"), Epin.parse_many(entries, errors="mark"))
    # (the message names the Series' label too, which a list has not)
    assert (
        first_error(lambda: Epin.parse_many(column))[1:]
        == first_error(lambda: Epin.parse_many(entries))[1:]
    )
