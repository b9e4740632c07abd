"""Columns from the data libraries into parse_many, on both cores: Arrow string data of
every layout (through the PyCapsule interface, from pyarrow, polars, pandas, DuckDB and
nanoarrow), numpy object and StringDType arrays, pandas object Series; missing values;
malformed Arrow data; what a result keeps of its invalid entries and what it can be
cut into or built from.  Every path must give what the plain list path gives."""

from __future__ import annotations

import gc
import io
import itertools
import math
import pickle
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any

import nanoarrow
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import CORES, TRICKY, optional

from sashite_epin import Epin, ParseError, Pin
from sashite_epin._arrow_py import ArrowArray, _GetPointer
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS, with_invalid

# Libraries without a free-threaded wheel: their tests skip where missing.
duckdb: Any = optional("duckdb")
pl: Any = optional("polars")

# Valid tokens, near misses (non-ASCII, over-long, out-of-line string views) and gaps.
ODD = ["K", "é", "+K^é", "x" * 40, "K" * 13, "Ｋ", "K\n", "", "-p^'", "K''"]
ENTRIES: list[str | None] = [*with_invalid(400), *ODD, None, *EPIN_TOKENS[::13], None]


def expected(core: ModuleType, entries: list[object]) -> tuple[bytes, list[int], list[object]]:
    """What the list path gives: records, marked indices, (token, reason) per mark."""
    return summary(core.parse_many(list(entries), True, errors="mark"))


def summary(r: object) -> tuple[bytes, list[int], list[object]]:
    # A missing value is None here whatever a library made of it (NaN, pandas.NA).
    return (
        records(r),
        list(r.invalid),  # type: ignore[attr-defined]
        [(e.token if e.reason != "missing value" else None, e.reason) for e in r.errors()],  # type: ignore[attr-defined]
    )


def records(result: object) -> bytes:
    return np.asarray(result).tobytes()


def same_as_list(core: ModuleType, column: object, entries: list[object]) -> None:
    assert summary(core.parse_many(column, True, errors="mark")) == expected(core, entries)


ARROW_KINDS = {
    "utf8": lambda e: pa.array(e, pa.string()),
    "large_utf8": lambda e: pa.array(e, pa.large_string()),
    "string_view": lambda e: pa.array(e, pa.string_view()),
    "dictionary": lambda e: pa.array(e, pa.string()).dictionary_encode(),
    "dictionary int8 of views": lambda e: pa.array(e, pa.string_view()).dictionary_encode(),
    "chunked": lambda e: pa.chunked_array([e[:100], e[100:101], [], e[101:]], pa.string()),
    "sliced": lambda e: pa.array(["x1", None, *e, "K"], pa.string())[2:-1],
    "sliced views": lambda e: pa.array(["x1", *e, "K"], pa.string_view())[1:-1],
    "table": lambda e: pa.table({"piece": e}),
    "sliced table": lambda e: pa.table({"piece": ["x", *e]}).slice(1),
    "record batch": lambda e: pa.record_batch({"piece": pa.array(e, pa.string())}),
    "polars": lambda e: pl.Series("piece", e),
    "pandas str": lambda e: pd.Series(e, dtype="str"),
    "pandas arrow": lambda e: pd.Series(e, dtype="string[pyarrow]"),
    "nanoarrow": lambda e: nanoarrow.Array(pa.array(e, pa.string())),
}


@pytest.mark.parametrize("kind", ARROW_KINDS, ids=str)
def test_arrow_columns_read_as_the_list_of_their_entries(core: ModuleType, kind: str) -> None:
    same_as_list(core, ARROW_KINDS[kind](ENTRIES), ENTRIES)


@pytest.mark.parametrize("kind", ARROW_KINDS, ids=str)
def test_empty_and_all_null_arrow_columns(core: ModuleType, kind: str) -> None:
    for entries in ([], [None], [None] * 70):
        same_as_list(core, ARROW_KINDS[kind](entries), entries)


def outcome(core: ModuleType, column: object, errors: str) -> object:
    try:
        return summary(core.parse_many(column, True, errors=errors))
    except ParseError as error:
        return ("error", error.token, error.reason, error.index)


def struct_rows(entries: list[str | None]) -> object:
    """A one-column struct column with null rows, sliced."""
    rows = [None if i % 7 == 3 else {"piece": x} for i, x in enumerate(entries)]
    return pa.array([None, *rows], pa.struct([("piece", pa.string())]))[1:]


@pytest.mark.parametrize("kind", [*ARROW_KINDS, "struct rows"], ids=str)
def test_arrow_columns_read_in_pieces_give_what_they_give_whole(kind: str) -> None:
    """Arrow chunks are read a piece of entries at a time (signal checks between): every
    piece size gives the whole read's records, marks and first error."""
    compiled = [c for c in CORES if c.IMPLEMENTATION == "cython"]
    if not compiled:
        pytest.skip("no compiled core")
    core = compiled[0]
    make = ARROW_KINDS.get(kind, struct_rows)
    columns = [make(ENTRIES), make(ENTRIES[:3]), make([]), make(EPIN_TOKENS[:50])]
    whole = [outcome(core, c, e) for c in columns for e in ("raise", "mark")]
    for size in (4, 8, 12, 28, 400):  # 1, 2, 3, 7 and 100 entries a piece
        was = core.use_piece_size(size)
        try:
            pieces = [outcome(core, c, e) for c in columns for e in ("raise", "mark")]
        finally:
            core.use_piece_size(was)
        assert pieces == whole, size


def test_null_type_columns_are_all_missing(core: ModuleType) -> None:
    result = core.parse_many(pa.array([None, None]), True, errors="mark")
    assert list(result) == [None, None]
    assert [e.reason for e in result.errors()] == ["missing value"] * 2


def test_duckdb_results_are_read_as_one_column(core: ModuleType) -> None:
    relation = duckdb.sql("SELECT piece FROM (VALUES ('K^'), (NULL), ('x1'), ('+p''')) t(piece)")
    same_as_list(core, relation, ["K^", None, "x1", "+p'"])


def test_null_rows_of_a_one_column_struct_are_missing(core: ModuleType) -> None:
    rows = pa.StructArray.from_arrays(
        [pa.array(["K", "x1", "q", "Q"])],
        names=["piece"],
        mask=pa.array([False, True, False, True]),
    )
    same_as_list(core, rows, ["K", None, "q", None])
    same_as_list(core, rows[1:3], [None, "q"])


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.array(ENTRIES, dtype=object),
        lambda: np.array([x for e in ENTRIES for x in (e, 3)], dtype=object)[::2],
        lambda: pd.Series(ENTRIES, dtype=object),
        lambda: pd.Index(ENTRIES, dtype=object),
        lambda: pd.Series(ENTRIES, dtype="string[python]"),
    ],
    ids=["numpy object", "strided object", "pandas object", "pandas index", "pandas python str"],
)
def test_object_columns_read_in_place(core: ModuleType, make: object) -> None:
    same_as_list(core, make(), ENTRIES)  # type: ignore[operator]


def test_numpy_string_dtype(core: ModuleType) -> None:
    dtype = np.dtypes.StringDType(na_object=None)
    entries = ENTRIES * 200  # over one conversion chunk
    same_as_list(core, np.array(entries, dtype=dtype), entries)
    plain = [e for e in ENTRIES if e is not None]
    same_as_list(core, np.array(plain, dtype=np.dtypes.StringDType()), plain)


def string_dtype_entries() -> list[object]:
    """Every kind of StringDType element, among runs of tokens the lanes read: short
    inline strings of each length, a NUL inside or last, non-ASCII text, the empty
    string, strings that live outside the element, missing values."""
    odd = ["K\0", "\0K", "k\0\0", "\u00e9", "+K\u0301", "", "KKKKK", "x" * 15, "+" * 16,
           "q" * 300, None, "K ", "\x7f", "'K", "+k^'", "-Z^", "a'"]  # fmt: skip
    tokens = ["K", "+k^'", "-Z^", "a'", "Q", "r^"]
    out: list[object] = []
    for i, e in enumerate(odd):
        out += tokens * (i + 1) + [e]  # at every position of an eight-element group
    return out


@pytest.mark.parametrize("step", [1, 2, -1])
def test_string_dtype_elements_of_every_kind_read_as_the_list(core: ModuleType, step: int) -> None:
    entries = string_dtype_entries()[::step]
    array = np.array(entries, dtype=np.dtypes.StringDType(na_object=None))
    same_as_list(core, array, entries)
    plain = [e for e in entries if e is not None]
    same_as_list(core, np.array(plain, dtype=np.dtypes.StringDType()), plain)


def test_string_dtype_errors_name_their_index_past_the_first_chunk(core: ModuleType) -> None:
    array = np.array(["K"] * 70_000 + ["KK", "q"], dtype=np.dtypes.StringDType())
    with pytest.raises(ParseError) as caught:
        core.parse_many(array, True)
    assert (caught.value.index, caught.value.token) == (70_000, "KK")
    marked = core.parse_many(array, True, errors="mark")
    assert list(marked.invalid) == [70_000]
    assert [e.index for e in marked.errors()] == [70_000]
    array[5] = "x" * 40  # a string outside the element, early on
    with pytest.raises(ParseError) as caught:
        core.parse_many(array, True)
    assert (caught.value.index, caught.value.token) == (5, "x" * 40)


@pytest.mark.parametrize("missing", [None, math.nan, np.nan, np.float64("nan"), pd.NA])
def test_missing_values_are_invalid_entries_with_their_own_reason(
    core: ModuleType, missing: object
) -> None:
    result = core.parse_many(["K", missing, "q"], True, errors="mark")
    assert list(result.invalid) == [1]
    [error] = result.errors()
    assert (error.token is missing, error.reason, error.index) == (True, "missing value", 1)
    with pytest.raises(ParseError, match="at index 1: missing value") as info:
        core.parse_many(["K", missing], True)
    assert info.value.token is missing and info.value.index == 1


def test_arrow_nulls_raise_with_their_index(core: ModuleType) -> None:
    with pytest.raises(ParseError, match="at index 2: missing value") as info:
        core.parse_many(pa.chunked_array([["K"], ["q", None]]), True)
    assert info.value.index == 2 and info.value.token is None


def test_the_first_bad_arrow_entry_raises_with_its_text_and_index(core: ModuleType) -> None:
    column = pa.chunked_array([["K", "q"], ["+P", "K'^é"]], pa.large_string())
    with pytest.raises(ParseError) as info:
        core.parse_many(column, True)
    assert (info.value.token, info.value.index) == ("K'^é", 3)


@pytest.mark.parametrize(
    ("column", "match"),
    [
        (lambda: pa.array([1, 2]), "Int64Array has type int64; expected utf8"),
        (lambda: pa.array([1.5]), "DoubleArray has type double; expected utf8"),
        (lambda: pa.array([1, 2]).dictionary_encode(), "type dictionary<values=int64"),
        (lambda: pa.array([["K"]]), "ListArray has type list<"),
        (lambda: pa.table({"a": ["K"], "b": ["q"]}), "one column; this table has 2"),
        (lambda: pl.Series([1, 2]), "polars Series has dtype Int64; expected dtype String"),
    ],
    ids=["int", "float", "dictionary of int", "list", "two columns", "polars int"],
)
def test_non_string_arrow_data_is_a_type_error(
    core: ModuleType, column: Callable[[], object], match: str
) -> None:
    made = column()  # made in the test: a library that is not installed skips it
    with pytest.raises(TypeError, match=match):
        core.parse_many(made, True)


class Patched:
    """An Arrow exporter whose array's offsets (or views) buffer is replaced after
    pyarrow exported it: malformed data pyarrow itself would refuse to build."""

    def __init__(self, array: pa.Array, buffer: np.ndarray) -> None:
        self.array, self.buffer = array, buffer  # the buffer outlives every export

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        schema, array = self.array.__arrow_c_array__()
        exported = ArrowArray.from_address(_GetPointer(array, b"arrow_array"))
        exported.buffers[1] = self.buffer.ctypes.data
        return schema, array


def offsets(values: list[int], large: bool = False) -> Patched:
    dtype = pa.large_string() if large else pa.string()
    like = pa.array(["K" * 8] * (len(values) - 1), dtype)
    return Patched(like, np.array(values, np.int64 if large else np.int32))


def views(values: list[tuple[int, int, int]]) -> Patched:
    like = pa.array(["K" * 20] * len(values), pa.string_view())  # one 20-byte data buffer
    raw = np.array([(n, 0x4B4B4B4B, b, at) for n, b, at in values], "<i4")
    return Patched(like, raw)


LONG = 64  # entries: several of the SIMD kernels' groups of 8 before and after the break


@pytest.mark.parametrize(
    "column",
    [
        offsets([0, 1, 0, 2]),  # backwards
        offsets([0, 1, -1, 2]),  # below zero
        offsets([-4, 1]),
        offsets([2, 1], large=True),
        views([(1, 0, 0), (13, 0, 100)]),  # "K" inline, then past its data buffer
        views([(13, 3, 0)]),  # a data buffer that is not there
        views([(-1, 0, 0)]),
        offsets([*range(LONG), 10, *range(LONG + 1, 2 * LONG + 1)]),
        offsets([*range(LONG), -8, *range(LONG + 1, 2 * LONG + 1)]),
        offsets([*range(LONG), 2**31 - 1, *range(LONG + 1, 2 * LONG + 1)]),  # past the data
        # a last offset below 3: no entry has 4 bytes to read, however far the others
        # point (a test of start < end - 3 must not wrap): a read there would crash
        offsets([0, *range(2**31 - 2 * LONG - 1, 2**31 - 1), 2]),
        offsets([0, *range(2**40, 2**40 + 2 * LONG), 2], large=True),
        # lengths whose low 32 bits are 1: a group must not read them as 1
        offsets([*range(LONG), 2**32 + LONG, *range(LONG + 1, 2 * LONG + 1)], large=True),
        offsets([*range(LONG), -(2**32) + LONG, *range(LONG + 1, 2 * LONG + 1)], large=True),
        views([(1, 0, 0)] * LONG + [(-1, 0, 0)] + [(1, 0, 0)] * LONG),
        views([(1, 0, 0)] * LONG + [(13, 0, 10**6)] + [(1, 0, 0)] * LONG),
    ],
    ids=[
        "backwards",
        "negative",
        "negative first",
        "large backwards",
        "view past data",
        "view buffer",
        "view length",
        "backwards among many",
        "negative among many",
        "past the data among many",
        "last offset below 3",
        "large last offset below 3",
        "large 2**32 among many",
        "large below zero among many",
        "view length among many",
        "view past data among many",
    ],
)
def test_malformed_arrow_data_is_a_clear_error_and_read_no_further(
    bytes_core: ModuleType, column: Patched
) -> None:
    for errors in ("raise", "mark"):
        with pytest.raises(ValueError, match="Arrow"):
            bytes_core.parse_many(column, True, errors=errors)


@pytest.mark.parametrize(
    "column",
    [
        offsets([0, 0, 1, 0, 2]),  # an empty entry, then offsets going backwards
        offsets([*range(LONG + 1), LONG, 3, *range(LONG + 3, 2 * LONG + 1)]),
        views([(1, 0, 0)] * 3 + [(0, 0, 0)] + [(-1, 0, 0)]),
        views([(1, 0, 0)] * LONG + [(0, 0, 0)] + [(13, 0, 10**6)] + [(1, 0, 0)] * LONG),
    ],
    ids=["offsets", "offsets among many", "views", "views among many"],
)
def test_an_invalid_token_before_malformed_data_is_reported_first(
    bytes_core: ModuleType, column: Patched
) -> None:
    # Entries are read in order: under errors="raise" the empty token before the
    # malformed entry is the error; marked, the malformed entry still is.
    with pytest.raises(ParseError) as caught:
        bytes_core.parse_many(column, True)
    assert caught.value.reason.name == "EMPTY"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="Arrow"):
        bytes_core.parse_many(column, True, errors="mark")


# The compiled core's AVX2 and AVX-512 kernels read utf8, large_utf8 and string_view
# columns 8 entries at a time and write a group only when all 8 are tokens
# (_columns.h); any other group goes to the exact loop.  So a string shows what a kernel
# accepts only
# among 7 tokens: each one below is put at each position of such a group.
LAYOUTS = {"utf8": pa.string(), "large_utf8": pa.large_string(), "string_view": pa.string_view()}


def among_tokens(strings: list[str | None], epin: bool) -> list[str | None]:
    tokens = EPIN_TOKENS if epin else PIN_TOKENS
    entries: list[str | None] = []
    for i, s in enumerate(strings):
        group: list[str | None] = [tokens[(7 * i + j) % len(tokens)] for j in range(8)]
        group[i % 8] = s
        entries += group
    return entries


def kernel_strings() -> list[str | None]:
    """Every string of up to 3 characters over the tricky alphabet, those of 4 over the
    grammar's characters and a few others, longer ones, every token, and gaps."""
    out: list[str | None] = [None]
    for n in range(4):
        out += ["".join(p) for p in itertools.product(TRICKY, repeat=n)]
    out += ["".join(p) for p in itertools.product("+-^'Kk1\u00c9", repeat=4)]
    return [*out, "+K^'x", "KKKKK", "+K^''", "K" * 13, *EPIN_TOKENS]


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_every_short_string_among_tokens_reads_as_the_list_does(
    bytes_core: ModuleType, layout: str, epin: bool
) -> None:
    entries = among_tokens(kernel_strings(), epin)
    if bytes_core.IMPLEMENTATION != "cython":
        entries = entries[::5]  # the twin has no kernel: a sample shows it agrees
    want = summary(bytes_core.parse_many(entries, epin, errors="mark"))
    # Sliced: the groups start at every offset of the offsets and the validity bitmap,
    # and the column's last bytes (fewer than 4 after a start) end every slice.
    for cut in (0, 1, 3, 7):
        column = pa.array(["K^'"] * cut + entries, LAYOUTS[layout])[cut:]
        assert summary(bytes_core.parse_many(column, epin, errors="mark")) == want, cut


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_the_first_invalid_entry_of_a_long_column_raises_at_its_index(
    bytes_core: ModuleType, layout: str
) -> None:
    for where in (0, 7, 8, 9, 1023, 2048, 4094, 4095):
        entries: list[str | None] = list(EPIN_TOKENS * 7)[:4096]
        entries[where] = "K1" if where % 2 else None
        with pytest.raises(ParseError) as info:
            bytes_core.parse_many(pa.array(entries, LAYOUTS[layout]), True)
        assert (info.value.index, info.value.token) == (where, entries[where])


def test_a_dictionary_index_outside_the_dictionary_is_a_clear_error(core: ModuleType) -> None:
    indices = pa.array([0, 5], pa.int8())
    column = pa.DictionaryArray.from_arrays(indices, pa.array(["K"]), safe=False)
    with pytest.raises(ValueError, match="dictionary index"):
        core.parse_many(column, True, errors="mark")


def test_arrow_chunks_are_released_once_read(core: ModuleType) -> None:
    column = pa.chunked_array([EPIN_TOKENS] * 50)
    gc.collect()  # an earlier test's garbage, freed inside the loop, would count as ours
    before = pa.total_allocated_bytes()
    for _ in range(5):
        core.parse_many(column, True)
        core.parse_many(pl.Series(EPIN_TOKENS * 50), True)
    assert pa.total_allocated_bytes() == before


def test_a_text_file_is_a_type_error_that_says_what_to_pass(core: ModuleType) -> None:
    for stream in (io.StringIO("K\nq\n"), io.BytesIO(b"K\nq\n")):
        with pytest.raises(TypeError, match=r"open\(path, 'rb'\)\.read\(\)"):
            core.parse_many(stream, True)


def test_an_endless_iterable_fails_on_its_first_wrong_item(core: ModuleType) -> None:
    endless = itertools.chain(["K", b"q"], itertools.repeat("K"))
    with pytest.raises(TypeError, match="item 1 is bytes"):
        core.parse_many(endless, True)


def test_bytes_errors_carry_the_byte_offset_and_the_line(core: ModuleType) -> None:
    data = b"K q\r\nx1 +P\n\n  K'' r\n"
    with pytest.raises(ParseError) as info:
        core.parse_many(data, True)
    assert (info.value.token, info.value.index, info.value.position, info.value.line) == (
        b"x1",
        2,
        5,
        2,
    )
    assert "line 2, byte 5" in str(info.value)
    marked = core.parse_many(data, True, errors="mark")
    assert [(e.token, e.index, e.position, e.line) for e in marked.errors()] == [
        (b"x1", 2, 5, 2),
        (b"K''", 4, 14, 4),
    ]


def test_marked_entries_keep_their_text(core: ModuleType) -> None:
    for column, bad in [
        (["K", "x1", None], ["x1", None]),
        (np.array(["K", "x1", "é"]), ["x1", "é"]),
        (np.array([b"K", b"x1"]), [b"x1"]),
        (pa.array(["K", "x1", None, "é"], pa.string_view()), ["x1", None, "é"]),
    ]:
        result = core.parse_many(column, True, errors="mark")
        assert [e.token for e in result.errors()] == bad


def test_results_are_cut_masked_and_joined_with_their_marks(core: ModuleType) -> None:
    entries = ["K", "x1", "q", None, "+P^'", "KK"]
    result = core.parse_many(entries, True, errors="mark")
    other = core.parse_many(["R", "bad!"], True, errors="mark")

    def summary(r: object) -> tuple[list[object], list[int], list[object]]:
        return (
            [None if e is None else str(e) for e in r],  # type: ignore[attr-defined]
            list(r.invalid),  # type: ignore[attr-defined]
            [(e.token, e.index) for e in r.errors()],  # type: ignore[attr-defined]
        )

    assert summary(result.valid()) == (["K", "q", "+P^'"], [], [])
    mask = np.array([False, True, True, False, False, True])
    assert summary(result[mask]) == ([None, "q", None], [0, 2], [("x1", 0), ("KK", 2)])
    assert summary(result[[5, 0, -3]]) == ([None, "K", None], [0, 2], [("KK", 0), (None, 2)])
    assert summary(result[np.array([1, 1])]) == ([None, None], [0, 1], [("x1", 0), ("x1", 1)])
    assert summary(result[1:3]) == ([None, "q"], [0], [("x1", 0)])
    joined = result + other
    assert summary(joined)[1:] == ([1, 3, 5, 7], [("x1", 1), (None, 3), ("KK", 5), ("bad!", 7)])
    again = pickle.loads(pickle.dumps(joined))
    assert summary(again) == summary(joined)
    with pytest.raises(IndexError):
        result[[6]]
    with pytest.raises(IndexError):
        result[[True, False]]
    with pytest.raises(TypeError):
        result + core.parse_many(["K"], False)


def test_a_result_is_built_from_codes(core: ModuleType) -> None:
    result = core.parse_many(ENTRIES, True, errors="mark")
    again = core.from_codes(result.codes(), True)
    assert records(again) == records(result) and list(again.invalid) == list(result.invalid)
    assert records(core.from_codes(np.asarray(result.codes()), True)) == records(result)
    pins = core.parse_many(["K", "+q^"], False)
    assert records(core.from_codes([c for c in pins.codes()], False)) == records(pins)
    with pytest.raises(ValueError, match="no PIN token's code"):
        core.from_codes([1], False)  # derived: EPIN only
    with pytest.raises(ValueError):
        core.from_codes([12], True)  # rank 3: no token
    with pytest.raises(TypeError):
        core.from_codes(["K"], True)


def from_codes_outcome(core: ModuleType, codes: object, epin: bool) -> object:
    try:
        result = core.from_codes(codes, epin)
    except (ValueError, TypeError) as error:
        return (type(error), str(error))
    return (records(result), list(result.invalid), [e.reason for e in result.errors()])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])  # fmt: skip
def test_integer_arrays_of_codes_read_as_lists_of_them(core: ModuleType, dtype: str) -> None:
    """An integer array is read in place (a piece at a time in the compiled core): the
    same records, marks and errors as the list of its values, strided or not."""
    rng = random.Random(23)
    top = np.iinfo(dtype).max
    odd = [0xFFFF, -1, 12, 1, 1023, 1024, top, 2**40]
    for epin in (True, False):
        valid = [c for c in range(1024) if c & 3 != 3 and (epin or not c & 1)]
        for _ in range(40):
            values = rng.choices(valid, k=rng.randint(0, 60))
            if values and rng.random() < 0.5:
                values[rng.randrange(len(values))] = rng.choice(odd)
            fits = [v for v in values if np.iinfo(dtype).min <= v <= top]
            array = np.array(fits, dtype=dtype)
            want = from_codes_outcome(core, fits, epin)
            strided = np.repeat(array, 2)[::2]
            for size in (None, 4, 12):  # pieces of 1 and 3 entries too
                was = core.use_piece_size(size) if size else None
                try:
                    assert from_codes_outcome(core, array, epin) == want, (dtype, fits)
                    assert from_codes_outcome(core, strided, epin) == want
                finally:
                    if was:
                        core.use_piece_size(was)


def expected_table(entries: list[str | None], epin: bool) -> pa.Table:
    """The export built from the facade's objects, one row per entry (None: null)."""
    kind = Epin if epin else Pin
    objects = [kind.safe_parse(e) if isinstance(e, str) else None for e in entries]
    pins = [o.pin if isinstance(o, Epin) else o for o in objects]

    columns = {
        # an invalid entry keeps its text as read; only a missing one is null
        "token": pa.array([e if isinstance(e, str) else None for e in entries], pa.string()),
        "abbr": [None if p is None else p.abbr for p in pins],
        "side": [None if p is None else str(p.side) for p in pins],
        "state": [None if p is None else str(p.state) for p in pins],
        "terminal": pa.array([None if p is None else p.is_terminal for p in pins], pa.bool_()),
    }
    if epin:
        columns["derived"] = pa.array(
            [None if o is None else o.is_derived for o in objects], pa.bool_()
        )
    columns["valid"] = pa.array([o is not None for o in objects], pa.bool_())
    columns["reason"] = [None if o is not None else reason_name(kind, e) for o, e in
                         zip(objects, entries, strict=True)]  # fmt: skip
    return pa.table(columns)


def reason_name(kind: type, entry: object) -> str:
    """The Reason name the facade gives an invalid entry (MISSING for a missing one)."""
    if not isinstance(entry, str):
        return "MISSING"
    with pytest.raises(ParseError) as caught:
        kind.parse(entry)  # type: ignore[attr-defined]
    return caught.value.reason.name  # type: ignore[union-attr]


def as_python(table: pa.Table) -> dict[str, list[object]]:
    return {name: table.column(name).to_pylist() for name in table.column_names}


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_results_export_readable_arrow_columns(core: ModuleType, epin: bool) -> None:
    entries = [*ENTRIES, "K", "-q^"]
    result = core.parse_many(entries, epin, errors="mark")
    table = pa.table(result)
    table.validate(full=True)
    assert as_python(table) == as_python(expected_table(entries, epin))
    fields = {f.name: f.type for f in table.schema}
    words = pa.dictionary(pa.int8(), pa.string())
    assert fields["abbr"] == fields["side"] == fields["state"] == words
    assert fields["token"] == pa.string()
    assert fields["terminal"] == pa.bool_() and ("derived" in fields) is epin
    struct = pa.array(result)
    struct.validate(full=True)
    assert struct.type == pa.struct(list(table.schema))
    assert pa.schema(result) == table.schema  # __arrow_c_schema__


def test_the_export_is_read_by_every_library(core: ModuleType) -> None:
    result = core.parse_many(["K^", "x1", "+p'", None], True, errors="mark")
    rows = [("K^", "K", "first", "normal", True, False, True, None),
            ("x1", *(None,) * 5, False, "OTHER_CHARACTER"),
            ("+p'", "P", "second", "enhanced", False, True, True, None),
            (*(None,) * 6, False, "MISSING")]  # fmt: skip
    frame = pl.DataFrame(result)
    assert frame.rows() == rows and frame.schema["side"] == pl.Categorical
    assert result.to_polars().rows() == rows
    assert duckdb.sql("SELECT * FROM result").fetchall() == rows
    pandas = result.to_pandas()
    assert str(pandas["state"].dtype) == "category" and pandas["token"].tolist()[0] == "K^"
    assert result.to_arrow().equals(pa.table(result))


def test_empty_and_all_invalid_results_export(core: ModuleType) -> None:
    assert pa.table(core.parse_many([], True)).num_rows == 0
    table = pa.table(core.parse_many([None, "x1"], True, errors="mark"))
    nulls = {name: table.column(name).null_count for name in table.column_names}
    assert nulls == {"token": 1, "abbr": 2, "side": 2, "state": 2, "terminal": 2,
                     "derived": 2, "valid": 0, "reason": 0}  # fmt: skip


def export_cases(epin: bool) -> list[list[str | None]]:
    """Entries for the AVX2 kernel's export (_formats.h), which writes 16 records
    at a time and packs the bytes of four tokens by one shuffle chosen by their lengths:
    every token at each position of a block, every four lengths at each position of a
    group, a marked entry at each position of a block, and every count of a last
    partial block."""
    tokens = EPIN_TOKENS if epin else PIN_TOKENS
    by_length: dict[int, list[str]] = {}
    for token in tokens:
        by_length.setdefault(len(token), []).append(token)
    cases = [list(tokens[shift:] + tokens[:shift]) for shift in range(16)]
    lengths = list(itertools.product(sorted(by_length), repeat=4))
    grouped = [by_length[n][(7 * i + j) % len(by_length[n])]
               for i, four in enumerate(lengths) for j, n in enumerate(four)]  # fmt: skip
    cases += [grouped[shift:] for shift in range(4)]
    for where in range(16):
        entries: list[str | None] = list(tokens[where : where + 48])
        entries[16 + where] = "x1" if where % 2 else None
        cases.append(entries)
    cases += [list(tokens[:count]) for count in range(41)]
    return cases


def token_offsets(table: pa.Table) -> list[int]:
    column = table.column("token").combine_chunks()
    raw = np.frombuffer(column.buffers()[1], np.int32)
    return raw[column.offset : column.offset + len(column) + 1].tolist()  # type: ignore[no-any-return]


@pytest.mark.parametrize("epin", [True, False], ids=["EPIN", "PIN"])
def test_every_kernel_exports_the_same_columns(bytes_core: ModuleType, epin: bool) -> None:
    for entries in export_cases(epin):
        result = bytes_core.parse_many(entries, epin, errors="mark")
        table = pa.table(result)
        table.validate(full=True)
        want = expected_table(entries, epin)
        assert as_python(table) == as_python(want), entries
        # and a marked entry takes its text's bytes, under every kernel
        assert token_offsets(table) == token_offsets(want), entries


def test_unread_exports_are_released(core: ModuleType) -> None:
    result = core.parse_many(EPIN_TOKENS * 2, True)
    for _ in range(50):  # capsules dropped unread: their destructors release them
        result.__arrow_c_array__()
        result.__arrow_c_stream__()
        result.__arrow_c_schema__()
    stream = result.__arrow_c_stream__()
    reader = pa.RecordBatchReader._import_from_c_capsule(stream)
    assert reader.read_all().num_rows == len(result)


def marked_arrow_columns() -> list[tuple[str, Any]]:
    """Columns half of whose entries are marked: invalid texts (bytes that are not
    UTF-8 among them), nulls, in every layout a reader takes."""
    texts: list[bytes | None] = []
    rng = random.Random(53)
    for i in range(5_000):
        roll = i % 4
        if roll == 0:
            texts.append(rng.choice(EPIN_TOKENS).encode())
        elif roll == 1:
            texts.append(None)
        elif roll == 2:
            texts.append(rng.choice([b"K^^", b"+", b"", b"KQ", b"\xff", b"K\xe2\x84\xaa", b"k' "]))
        else:
            texts.append(rng.choice(EPIN_TOKENS).encode() + b"^^")
    binary = pa.array(texts, pa.binary())
    decoded = [None if t is None else t.decode("utf-8", "replace") for t in texts]
    utf8 = pa.Array.from_buffers(  # the same bytes, not all UTF-8
        pa.string(), len(binary), binary.buffers(), binary.null_count
    )
    return [
        ("utf8", utf8),
        ("large_utf8", utf8.cast(pa.large_string(), safe=False)),
        # built from str (pyarrow 24 crashes exporting a string_view cast from this)
        ("string_view", pa.array(decoded, pa.string_view())),
        ("binary", binary),
        ("dictionary", binary.dictionary_encode()),
        ("chunked", pa.chunked_array([utf8.slice(0, 1_234), utf8.slice(1_234)])),
        ("table", pa.table({"c": utf8})),
    ]


@pytest.mark.skipif(len(CORES) < 2, reason="the compiled core is not loaded in this run")
@pytest.mark.parametrize("kind", [k for k, _ in marked_arrow_columns()])
def test_marked_arrow_entries_are_the_twins(kind: str) -> None:
    """The compiled core keeps an Arrow column's marked entries as columns (their bytes
    copied once, tokens made when the errors are read): every output is the twin's."""
    column = dict(marked_arrow_columns())[kind]
    ours, twin = (core.parse_many(column, True, "mark") for core in CORES)
    assert list(ours.invalid) == list(twin.invalid)
    assert [(e.token, e.reason, e.index, e.position, e.line) for e in ours.errors()] == [
        (e.token, e.reason, e.index, e.position, e.line) for e in twin.errors()]  # fmt: skip
    assert list(ours.reason_codes()) == list(twin.reason_codes())
    assert pa.table(ours).equals(pa.table(twin))
    again = pickle.loads(pickle.dumps(ours))
    assert [(e.token, e.reason) for e in again.errors()] == [
        (e.token, e.reason) for e in ours.errors()]  # fmt: skip
    picked, twin_picked = ours[np.arange(0, len(ours), 3)], twin[np.arange(0, len(twin), 3)]
    assert [(e.token, e.index) for e in picked.errors()] == [
        (e.token, e.index) for e in twin_picked.errors()]  # fmt: skip
    assert list(picked.reason_codes()) == list(twin_picked.reason_codes())
    again = picked[np.arange(len(picked) - 1, -1, -2)]  # a selection of a selection
    twin_again = twin_picked[np.arange(len(twin_picked) - 1, -1, -2)]
    assert [(e.token, e.reason, e.index) for e in again.errors()] == [
        (e.token, e.reason, e.index) for e in twin_again.errors()]  # fmt: skip
    assert list(again.reason_codes()) == list(twin_again.reason_codes())
    assert pa.table(again).equals(pa.table(twin_again))
    assert [(e.token, e.reason) for e in pickle.loads(pickle.dumps(again)).errors()] == [
        (e.token, e.reason) for e in again.errors()]  # fmt: skip


# Bytes that make UTF-8 ill-formed in each way Unicode's table 3-7 names: lone and extra
# continuations, overlong leads (C0, E0 80, F0 80), a surrogate (ED A0), past U+10FFFF
# (F4 90, F5), bytes never used (FF); and token characters between them.
ILL_FORMED = [
    bytes([b]) for b in b"Kq^'\x80\x8f\x90\x9f\xa0\xbf\xc0\xc2\xe0\xe2\xed\xf0\xf4\xf5\xff"
]


@pytest.mark.parametrize("epin", [True, False], ids=["epin", "pin"])
def test_ill_formed_utf8_counts_as_its_replaced_text(core: ModuleType, epin: bool) -> None:
    """An Arrow entry that is not UTF-8 is judged as its text decoded with "replace"
    (the text its error names): one U+FFFD per maximal ill-formed subpart, so
    b"q\\xed\\xa0\\x80" is 4 characters (too long for PIN), not "q" and one code point."""
    entries = [
        b"".join(chars)
        for n in range(1, 5)
        for chars in itertools.product(ILL_FORMED[:14] if n == 4 else ILL_FORMED, repeat=n)
    ]
    entries += [
        b"q\xed\xa0\x80\x80",
        b"K\xff\x80\x80\x80",
        b"K\xc0\x80\xc0\x80",
        b"\xf0\x80\x80\x80K",
    ]
    decoded = [entry.decode("utf-8", "replace") for entry in entries]
    want = [(e.index, e.reason) for e in core.parse_many(decoded, epin, "mark").errors()]
    binary = pa.array(entries, pa.binary())
    utf8 = pa.Array.from_buffers(pa.string(), len(binary), binary.buffers())
    for column in (utf8, binary):
        got = core.parse_many(column, epin, "mark").errors()
        assert [(e.index, e.reason) for e in got] == want
