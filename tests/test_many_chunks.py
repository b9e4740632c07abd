"""Arrow columns of any number of chunks, from every producer: a chunked array, a
Parquet file of many row groups, polars, DuckDB, a table of many batches.  Each is read
whole by parse_many and tokenize_many on both cores, as the same texts in one list."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import CORES, optional

from sashite_epin import ParseError

pd = optional("pandas")
pl = optional("polars")
duckdb = optional("duckdb")

# Past every size a chunk list was grown by (8, then 24, 56, ...), and far past it.
COUNTS = (1, 8, 9, 25, 100, 10_000)
ROW = ["K^/8/+p", None, "q'"]


def records(result: object) -> bytes:
    return np.asarray(result).tobytes()


def rows_of(chunks: int) -> list[str | None]:
    return ROW * chunks


def chunked(chunks: int) -> pa.ChunkedArray:
    return pa.chunked_array([pa.array(ROW)] * chunks, pa.string())


def same(core: ModuleType, column: object, rows: list[str | None], epin: bool) -> None:
    got = core.tokenize_many(column, epin, "mark")
    want = core.tokenize_many(rows, epin, "mark")
    assert records(got) == records(want)
    assert (list(got.offsets), list(got.row_offsets), list(got.missing_rows)) == (
        list(want.offsets), list(want.row_offsets), list(want.missing_rows))  # fmt: skip


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("chunks", COUNTS)
def test_a_chunked_array_of_any_number_of_chunks(core: ModuleType, chunks: int) -> None:
    column = chunked(chunks)
    assert column.num_chunks == chunks
    for epin in (True, False):
        same(core, column, rows_of(chunks), epin)
    tokens = pa.chunked_array([pa.array(["K", None, "q'"])] * chunks)
    parsed = core.parse_many(tokens, True, "mark")
    assert records(parsed) == records(core.parse_many(["K", None, "q'"] * chunks, True, "mark"))
    assert list(parsed.invalid) == [3 * c + 1 for c in range(chunks)]


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
@pytest.mark.parametrize("batches", (9, 12, 100))
def test_a_table_of_many_batches(core: ModuleType, batches: int) -> None:
    batch = pa.record_batch([pa.array(ROW)], names=["c"])
    table = pa.Table.from_batches([batch] * batches)
    assert len(table.to_batches()) == batches
    same(core, table, rows_of(batches), True)
    reader = pa.RecordBatchReader.from_batches(batch.schema, [batch] * batches)
    same(core, reader, rows_of(batches), True)


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_parquet_file_of_many_row_groups(core: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "placements.parquet"
    pq.write_table(pa.table({"c": chunked(20)}), path, row_group_size=len(ROW))
    assert pq.ParquetFile(path).num_row_groups == 20
    same(core, pq.read_table(path)["c"], rows_of(20), True)
    same(core, pd.read_parquet(path)["c"].array.__arrow_array__(), rows_of(20), True)


@pytest.mark.parametrize("chunks", (9, 20, 1000))
def test_pandas_and_polars_columns_of_many_chunks(chunks: int, tmp_path: Path) -> None:
    from sashite_epin import Epin

    want = Epin.tokenize_many(rows_of(chunks))
    path = tmp_path / "placements.parquet"
    pq.write_table(pa.table({"c": chunked(chunks)}), path, row_group_size=len(ROW))
    series = pd.read_parquet(path)["c"]
    assert records(Epin.tokenize_many(series)) == records(want)
    concatenated = pl.concat([pl.Series("c", ROW)] * chunks, rechunk=False)
    assert concatenated.n_chunks() == chunks
    assert records(Epin.tokenize_many(concatenated)) == records(want)
    tokens = pl.concat([pl.Series(["K", None])] * chunks, rechunk=False)
    assert list(Epin.parse_many(tokens, errors="mark").invalid) == list(range(1, 2 * chunks, 2))


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_duckdb_results_of_many_batches(core: ModuleType) -> None:
    relation = duckdb.connect().sql("select 'K^/8/+p' as c from range(2000)")
    same(core, relation.to_arrow_reader(100), ["K^/8/+p"] * 2000, True)  # 20 batches
    if core.IMPLEMENTATION == "cython":  # the twin reads 10 batches of 131,072 rows slowly
        rows = 10 * 131_072 + 5  # what DuckDB hands over as 11 batches
        relation = duckdb.connect().sql(f"select 'K^/8/+p' as c from range({rows})")
        result = core.tokenize_many(relation, True)
        assert len(result) == 2 * rows
        assert len(result.row_offsets) == rows + 1


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_chunks_that_share_one_dictionary(core: ModuleType) -> None:
    """A dictionary many chunks share (unify_dictionaries, a categorical's) is read as
    its strings are, and checked once: 2,000 chunks of a 40,000-entry dictionary (the
    twin, which decodes each chunk's dictionary, 100 of 2,000)."""
    count = 2000 if core.IMPLEMENTATION == "cython" else 100
    batches = [
        pa.record_batch([pa.array([f"K^+p/{b}/{i}" for i in range(20)]).dictionary_encode()], ["p"])
        for b in range(count)
    ]
    column = pa.Table.from_batches(batches).unify_dictionaries().column(0)
    assert column.num_chunks == count and len(column.chunk(0).dictionary) == 20 * count
    plain = column.cast(pa.string())
    for epin in (True, False):
        assert records(core.tokenize_many(column, epin)) == records(core.tokenize_many(plain, epin))
    broken = pa.chunked_array([pa.DictionaryArray.from_arrays([0, 1], ["K", "K^^"])] * 50)
    with pytest.raises(ParseError) as info:
        core.tokenize_many(broken, True)
    assert (info.value.index, info.value.position) == (1, 2)
