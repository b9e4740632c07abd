"""parse_many over Arrow string data, pure Python: the twin of ``_arrow_c.pxi``.

The same reading of the Arrow C Data Interface structs, through ctypes instead of C: the
capsules an ``__arrow_c_array__`` / ``__arrow_c_stream__`` exporter hands over are
opened, the buffers read in place, every string checked against the same rules
(offsets, views, dictionary indices) and scanned by the twin's scanner.  No pyarrow.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Generator
from itertools import compress, islice
from typing import Any, NamedTuple

from ._inputs import (
    ARROW_MAX_EXTENT,
    MALFORMED_BUFFERS,
    MALFORMED_INDEX,
    MALFORMED_OFFSETS,
    MALFORMED_VIEW,
    arrow_array_lie,
    arrow_lie,
    arrow_type_name,
    check_fits,
    not_one_column,
    not_strings,
)
from ._lanes_py import read_stream, read_views
from ._layout import RECORD_SIZE

_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_GetPointer.restype = ctypes.c_void_p
_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]
ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p),
]
ArrowArrayStream._fields_ = [
    (
        "get_schema",
        ctypes.CFUNCTYPE(
            ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema)
        ),
    ),
    (
        "get_next",
        ctypes.CFUNCTYPE(
            ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray)
        ),
    ),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]

_INDEX_TYPES = {
    "c": ctypes.c_int8,
    "C": ctypes.c_uint8,
    "s": ctypes.c_int16,
    "S": ctypes.c_uint16,
    "i": ctypes.c_int32,
    "I": ctypes.c_uint32,
    "l": ctypes.c_int64,
    "L": ctypes.c_int64,
}  # fmt: skip  (uint64 read as int64: an index above 2**63 is out of range either way)
# Each string format's layout; the binary types share them (their tokens are bytes).
_STRINGS = {"u": "u", "U": "U", "vu": "vu", "n": "n", "z": "u", "Z": "U", "vz": "vu"}
_BINARY = ("z", "Z", "vz")


class ColumnType(NamedTuple):
    layout: str  # "u", "U", "vu" or "n"
    index: Any  # the ctypes type of a dictionary's indices, or None
    in_struct: bool  # a one-column table: the strings are the struct's only child
    binary: bool = False  # binary, large_binary, binary_view: entries are bytes


def column_type(schema: ArrowSchema, caller: str = "parse_many") -> ColumnType:
    """The column a schema describes; what it states that cannot be is a ValueError
    naming the field, a type caller (the function called: parse_many, tokenize_many,
    which reads no binary column) does not read a TypeError.  Nothing recurses: a
    table's one column is read by _value_type, which takes no table."""
    if not schema.release:
        raise ValueError(arrow_lie("schema", "released (release is NULL)"))
    _check_schema(schema, "schema")
    if schema.format == b"+s":
        if schema.n_children != 1:
            raise not_one_column(caller, schema.n_children)
        if not schema.children or not schema.children[0]:
            problem = "children is NULL" if not schema.children else "child 0 is NULL"
            raise ValueError(arrow_lie("schema", problem))
        child = schema.children[0].contents
        _check_schema(child, "schema's child")
        return _value_type(child, "schema's child", caller)._replace(in_struct=True)
    return _value_type(schema, "schema", caller)


def _check_schema(schema: ArrowSchema, name: str) -> None:
    if schema.format is None:
        raise ValueError(arrow_lie(name, "format is NULL"))
    if schema.n_children < 0:
        raise ValueError(arrow_lie(name, f"n_children {schema.n_children}"))


def _no_children(schema: ArrowSchema, name: str) -> None:
    if schema.n_children != 0:
        fmt = arrow_type_name(schema.format.decode("utf-8", "replace"))
        raise ValueError(arrow_lie(name, f"n_children {schema.n_children} ({fmt} has 0)"))


def _value_type(schema: ArrowSchema, name: str, caller: str) -> ColumnType:
    fmt = schema.format.decode("utf-8", "replace")
    if schema.dictionary:
        values = schema.dictionary.contents
        _check_schema(values, f"{name}'s dictionary")
        value = values.format.decode("utf-8", "replace")
        binary = value in _BINARY
        if (
            fmt not in _INDEX_TYPES
            or value not in _STRINGS
            or value == "n"
            or values.dictionary
            or (binary and caller != "parse_many")
        ):
            kind = f"dictionary of {arrow_type_name(value)}"
            raise not_strings(caller, "Arrow column", kind, "Arrow")
        _no_children(schema, name)
        _no_children(values, f"{name}'s dictionary")
        return ColumnType(_STRINGS[value], _INDEX_TYPES[fmt], False, binary)
    if fmt not in _STRINGS or (fmt in _BINARY and caller != "parse_many"):
        raise not_strings(caller, "Arrow column", arrow_type_name(fmt), "Arrow")
    _no_children(schema, name)
    return ColumnType(_STRINGS[fmt], None, False, fmt in _BINARY)


_LAYOUT_NAMES = {"n": "null", "u": "strings", "U": "strings", "vu": "views"}


def _check_header(array: ArrowArray, name: str, layout: str) -> None:
    lie = arrow_array_lie(
        name,
        layout,
        array.length,
        array.null_count,
        array.offset,
        array.n_buffers,
        bool(array.buffers),
        array.n_children,
    )
    if lie is not None:
        raise ValueError(lie)


def check_chunk(array: ArrowArray, t: ColumnType) -> None:
    """Everything a chunk's structs state, checked before any buffer is read (as the
    compiled core's check_chunk)."""
    values, name = array, "array"
    values_layout = "indices" if t.index is not None else _LAYOUT_NAMES[t.layout]
    if t.in_struct:
        _check_header(array, "array", "struct")
        if not array.children or not array.children[0]:
            problem = "children is NULL" if not array.children else "child 0 is NULL"
            raise ValueError(arrow_lie("array", problem))
        values, name = array.children[0].contents, "array's child"
        _check_header(values, name, values_layout)
        if values.length < array.offset + array.length:
            raise ValueError(
                arrow_lie(
                    name,
                    f"length {values.length} short of the table's offset + length "
                    f"{array.offset + array.length}",
                )
            )
        if values.offset > ARROW_MAX_EXTENT - array.offset - array.length:
            raise ValueError(
                arrow_lie(
                    name, f"offset {values.offset} + the table's offset + length is too large"
                )
            )
    else:
        _check_header(array, name, values_layout)
    if t.index is not None:
        if not values.dictionary:
            raise ValueError(arrow_lie(name, "dictionary is NULL"))
        _check_header(values.dictionary.contents, f"{name}'s dictionary", _LAYOUT_NAMES[t.layout])


def _read(address: int | None, ctype: Any, index: int) -> int:
    if not address:
        raise ValueError(MALFORMED_BUFFERS)
    return int(ctype.from_address(address + ctypes.sizeof(ctype) * index).value)


def _texts(array: ArrowArray, layout: str) -> Callable[[int], bytes]:
    """A reader of entry i's bytes, the array's buffers checked first."""
    if layout == "n" or array.length == 0:
        return lambda i: b""
    if array.n_buffers < 3 or not array.buffers[1]:
        raise ValueError(MALFORMED_BUFFERS)
    if layout == "vu":
        n_data = array.n_buffers - 3
        sizes = array.buffers[array.n_buffers - 1]
        if n_data and not sizes:
            raise ValueError(MALFORMED_BUFFERS)

        def view(i: int) -> bytes:
            at = array.buffers[1] + 16 * (array.offset + i)
            n = ctypes.c_int32.from_address(at).value
            if n < 0:
                raise ValueError(MALFORMED_VIEW)
            if n <= 12:
                return ctypes.string_at(at + 4, n)
            buffer = ctypes.c_int32.from_address(at + 8).value
            start = ctypes.c_int32.from_address(at + 12).value
            if (
                not 0 <= buffer < n_data
                or start < 0
                or start + n > _read(sizes, ctypes.c_int64, buffer)
            ):
                raise ValueError(MALFORMED_VIEW)
            return ctypes.string_at(array.buffers[2 + buffer] + start, n)

        return view
    ctype = ctypes.c_int32 if layout == "u" else ctypes.c_int64
    offsets = array.buffers[1]
    first = _read(offsets, ctype, array.offset)
    end = _read(offsets, ctype, array.offset + array.length)
    if first < 0 or end < first or end > ARROW_MAX_EXTENT:
        raise ValueError(MALFORMED_OFFSETS)
    if end > 0 and not array.buffers[2]:
        raise ValueError(MALFORMED_BUFFERS)

    def between_offsets(i: int) -> bytes:
        start = _read(offsets, ctype, array.offset + i)
        stop = _read(offsets, ctype, array.offset + i + 1)
        if start < 0 or stop < start or stop > end:
            raise ValueError(MALFORMED_OFFSETS)
        return ctypes.string_at(array.buffers[2] + start, stop - start)

    return between_offsets


def _validity(array: ArrowArray) -> int | None:
    """The validity bitmap as an int, bit i set where entry i is valid; None when the
    array has no nulls."""
    if array.n_buffers < 1 or not array.buffers[0] or array.null_count == 0 or not array.length:
        return None
    first: int = array.offset
    length: int = array.length
    raw = ctypes.string_at(array.buffers[0] + (first >> 3), ((first & 7) + length + 7) >> 3)
    return int.from_bytes(raw, "little") >> (first & 7)


def _bits(valid: int | None, length: int) -> str | None:
    """A validity int as one character per entry, '1' valid, '0' null (a string's
    find() then locates the nulls at C speed); None when all are valid."""
    if valid is None:
        return None
    bits: str = format(valid, "b")[::-1]
    return (bits + "0" * length)[:length]


def _with_nulls(entries: list[Any], bits: str | None) -> list[Any]:
    """None at each null among the entries read (the list may stop short)."""
    at = -1 if bits is None else bits.find("0", 0, len(entries))
    while at >= 0:
        entries[at] = None
        at = bits.find("0", at + 1, len(entries))  # type: ignore[union-attr]
    return entries


# What a reader gives: the entries read, and the error to raise after them when it
# stopped at a malformed one.  The compiled core reads in order: an invalid token
# before a malformed entry is reported first, so the twin judges what it read, then
# raises.
Read = tuple[list[Any], "ValueError | None"]


def _strings(array: ArrowArray, layout: str, bits: str | None, epin: bool | None = None) -> Read:
    """The entries' bytes up to the first valid one whose buffers lie (a null's are not
    read: b"" stands there), the buffers checked first: a whole buffer read at once,
    the entries sliced from it.  With epin given, a column without nulls whose entries
    are all tokens comes back as their records (bytes) instead, read without a Python
    object per entry."""
    n = array.length
    if layout == "n" or n == 0:
        return [b""] * n, None
    if array.n_buffers < 3 or not array.buffers[1]:
        raise ValueError(MALFORMED_BUFFERS)

    def null(i: int) -> bool:
        return bits is not None and bits[i] == "0"

    if layout == "vu":
        read = _texts(array, layout)
        views = ctypes.string_at(array.buffers[1] + 16 * array.offset, 16 * n)
        if epin is not None and bits is None and sys.byteorder == "little":
            records = read_views(views, epin)
            if records is not None:
                return records, None  # type: ignore[return-value]
        lengths = memoryview(views).cast("i")[::4].tolist()
        if max(lengths) <= 12 and min(lengths) >= 0:  # every string inline in its view
            starts = range(4, 16 * n, 16)
            ends = map(int.__add__, starts, lengths)
            return list(map(views.__getitem__, map(slice, starts, ends))), None
        entries: list[Any] = []
        for i in range(n):
            try:
                entries.append(b"" if null(i) else read(i))
            except ValueError as error:
                return entries, error
        return entries, None
    size = 4 if layout == "u" else 8
    raw = ctypes.string_at(array.buffers[1] + size * array.offset, size * (n + 1))
    first = int.from_bytes(raw[:size], sys.byteorder, signed=True)
    end = int.from_bytes(raw[-size:], sys.byteorder, signed=True)
    if first < 0 or end < first or end > ARROW_MAX_EXTENT:
        raise ValueError(MALFORMED_OFFSETS)
    if end > 0 and not array.buffers[2]:
        raise ValueError(MALFORMED_BUFFERS)
    if epin is not None and bits is None and sys.byteorder == "little":
        used = ctypes.string_at(array.buffers[2] + first, end - first) if end > first else b""
        records = read_stream(used, raw, size, epin)
        if records is not None:
            return records, None  # type: ignore[return-value]
    offsets = memoryview(raw).cast("i" if size == 4 else "q").tolist()
    data = ctypes.string_at(array.buffers[2], end) if end else b""
    entries = list(map(data.__getitem__, map(slice, offsets, islice(offsets, 1, None))))
    # sorted() of sorted data is one C pass (a single run): then no offset goes back
    if offsets == sorted(offsets):
        return entries, None
    for i in range(n):
        start, stop = offsets[i], offsets[i + 1]
        if (start < 0 or stop < start or stop > end) and not null(i):
            return entries[:i], ValueError(MALFORMED_OFFSETS)
    return entries, None


def _entries(array: ArrowArray, t: ColumnType, rows: ArrowArray | None, epin: bool | None) -> Read:
    """Each entry of a chunk: its bytes, or None when missing (the struct's row or the
    entry null); or, given epin, the records of a chunk that is all tokens."""
    n = array.length
    valid = _validity(array)
    if rows is not None:
        row_valid = _validity(rows)
        if row_valid is not None:
            valid = row_valid if valid is None else valid & row_valid
    bits = _bits(valid, n)
    if t.index is None:
        if t.layout == "n":
            return [None] * n, None
        entries, error = _strings(array, t.layout, bits, epin)
        return _with_nulls(entries, bits), error
    if not array.dictionary or (n and not array.buffers[1]):
        raise ValueError(MALFORMED_BUFFERS)
    values = array.dictionary.contents
    value_bits = _bits(_validity(values), values.length)
    words, error = _strings(values, t.layout, value_bits)
    if error is not None:  # the dictionary is read whole before any entry
        raise error
    _with_nulls(words, value_bits)
    raw = ctypes.string_at(array.buffers[1] + ctypes.sizeof(t.index) * array.offset,
                           ctypes.sizeof(t.index) * n) if n else b""  # fmt: skip
    indices = (t.index * n).from_buffer_copy(raw)[:] if n else []
    # a null's index is not read: only the valid entries' are checked
    live = indices if bits is None else list(compress(indices, bits.encode().translate(_ONES)))
    if live and (min(live) < 0 or max(live) >= len(words)):
        stop = next(
            i
            for i, k in enumerate(indices)
            if not 0 <= k < len(words) and (bits is None or bits[i] == "1")
        )
        return _take(words, indices[:stop], bits), ValueError(MALFORMED_INDEX)
    return _take(words, indices, bits), None


_ONES = bytes.maketrans(b"01", b"\x00\x01")  # a bits string as 0/1 selectors


def _take(words: list[Any], indices: list[int], bits: str | None) -> list[Any]:
    """The words the indices pick, None at each null."""
    if bits is None:
        return list(map(words.__getitem__, indices))
    return [words[k] if b == "1" else None for k, b in zip(indices, bits, strict=False)]


def _chunk_entries(chunk: ArrowArray, t: ColumnType, epin: bool | None) -> Read:
    if not t.in_struct:
        return _entries(chunk, t, None, epin)
    if chunk.n_children != 1 or not chunk.children or not chunk.children[0]:
        raise ValueError(MALFORMED_BUFFERS)
    child = ArrowArray.from_buffer_copy(chunk.children[0].contents)
    if child.length < chunk.offset + chunk.length:
        raise ValueError(MALFORMED_BUFFERS)
    child.offset += chunk.offset
    child.length = chunk.length
    return _entries(child, t, chunk, epin)


def _check_fits(entries: int) -> None:
    """A MemoryError for a column whose records alone would pass this machine's memory
    (check_fits)."""
    check_fits(entries, RECORD_SIZE)


def arrow_chunks(
    exporter: object, epin: bool | None = None
) -> Generator[tuple[list[bytes | None] | bytes, bool, ValueError | None], None, None]:
    """The entries of an Arrow string column, a list per chunk (None where missing),
    each with whether the column is binary (its tokens bytes, not str) and the error
    of a malformed entry the list stops before (to raise once the list is judged).
    Given epin, a chunk that is all tokens of the notation comes as their records."""
    if hasattr(type(exporter), "__arrow_c_array__"):
        schema_capsule, array_capsule = exporter.__arrow_c_array__()  # type: ignore[attr-defined]
        schema = ArrowSchema.from_address(_GetPointer(schema_capsule, b"arrow_schema"))
        array = ArrowArray.from_address(_GetPointer(array_capsule, b"arrow_array"))
        t = column_type(schema)
        if not array.release:
            raise ValueError(arrow_lie("array", "released (release is NULL)"))
        check_chunk(array, t)
        _check_fits(array.length)
        entries, error = _chunk_entries(array, t, epin)
        yield entries, t.binary, error
        return  # the capsules release the structs when they are collected
    _capsule, stream, schema = _open_stream(exporter)  # the capsule held while read
    try:
        t = column_type(schema)
        total = 0
        while True:
            chunk = ArrowArray()
            if stream.get_next(ctypes.byref(stream), ctypes.byref(chunk)) != 0:
                raise ValueError(f"the Arrow stream failed: {_stream_error(stream)}")
            if not chunk.release:
                break
            try:
                check_chunk(chunk, t)
                total += chunk.length
                _check_fits(total)
                entries, error = _chunk_entries(chunk, t, epin)
            finally:
                chunk.release(ctypes.byref(chunk))
            yield entries, t.binary, error
            if error is not None:
                return
    finally:
        if schema.release:
            schema.release(ctypes.byref(schema))
        _release_stream(stream)


def _open_stream(exporter: object) -> tuple[object, ArrowArrayStream, ArrowSchema]:
    """An exporter's Arrow stream, checked, and its schema (the caller releases it):
    the capsule (which releases the stream when collected), the stream, the schema."""
    capsule = exporter.__arrow_c_stream__()  # type: ignore[attr-defined]
    stream = ArrowArrayStream.from_address(_GetPointer(capsule, b"arrow_array_stream"))
    if not stream.release:
        raise ValueError(arrow_lie("stream", "released (release is NULL)"))
    for field in ("get_schema", "get_next", "get_last_error"):
        if not getattr(stream, field):
            raise ValueError(arrow_lie("stream", f"{field} is NULL"))
    schema = ArrowSchema()
    if stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) != 0:
        raise ValueError(f"the Arrow stream failed: {_stream_error(stream)}")
    return capsule, stream, schema


def _release_stream(stream: ArrowArrayStream) -> None:
    """Release a stream once read, or refused, as the compiled core does: its producer
    may hold a resource until then (a DuckDB connection runs no other query), and the
    capsule, which would release it when collected, lives on in any traceback that
    keeps the reading's frame.  The capsule then finds it released and leaves it."""
    if stream.release:
        stream.release(ctypes.byref(stream))


def _stream_error(stream: ArrowArrayStream) -> str:
    message = stream.get_last_error(ctypes.byref(stream)) if stream.get_last_error else None
    return message.decode("utf-8", "replace") if message else "no message"


class NotText:
    """An Arrow row whose bytes are not UTF-8, for tokenize_many: the text before its
    first undecodable byte (the row fails there, as parse_many fails such an entry)."""

    __slots__ = ("before",)

    def __init__(self, before: str) -> None:
        self.before = before


def arrow_texts(exporter: object) -> tuple[list[str | NotText | None], Exception | None]:
    """tokenize_many's rows of an Arrow string column, in the compiled core's order:
    every chunk's structs checked first (a lie there raised at once), then the rows
    read in order, each a str (None where missing, a NotText where not UTF-8).  What
    stops the reading (a malformed entry or buffer) comes back with the rows read
    before it, to raise once those are judged."""
    chunks: list[ArrowArray] = []
    released: list[ArrowArray] = []  # a stream's chunks, ours to release
    keep: tuple[Any, Any] | None = None
    try:
        if hasattr(type(exporter), "__arrow_c_array__"):
            keep = exporter.__arrow_c_array__()  # type: ignore[attr-defined]
            schema_capsule, array_capsule = keep
            schema = ArrowSchema.from_address(_GetPointer(schema_capsule, b"arrow_schema"))
            array = ArrowArray.from_address(_GetPointer(array_capsule, b"arrow_array"))
            t = _texts_type(schema)
            if not array.release:
                raise ValueError(arrow_lie("array", "released (release is NULL)"))
            check_chunk(array, t)
            check_fits(array.length, 8)
            chunks.append(array)
        else:
            t = _stream_chunks(exporter, chunks, released)
        rows: list[str | NotText | None] = []
        for chunk in chunks:
            try:
                entries, error = _chunk_entries(chunk, t, None)
            except ValueError as malformed:
                return rows, malformed
            for entry in entries:
                if entry is None:
                    rows.append(None)
                    continue
                try:
                    rows.append(entry.decode("utf-8"))
                except UnicodeDecodeError as not_text:
                    rows.append(NotText(entry[: not_text.start].decode("utf-8")))
            if error is not None:
                return rows, error
        return rows, None
    finally:
        for chunk in released:
            chunk.release(ctypes.byref(chunk))
        del keep  # the capsules release the array's structs when collected


def _texts_type(schema: ArrowSchema) -> ColumnType:
    t = column_type(schema, "tokenize_many")
    if t.binary:
        raise TypeError("tokenize_many reads texts (str): this Arrow column is binary")
    return t


def _stream_chunks(
    exporter: object, chunks: list[ArrowArray], released: list[ArrowArray]
) -> ColumnType:
    """Every chunk of an Arrow stream, each checked, into chunks (and released, to
    release); the column's type."""
    _capsule, stream, schema = _open_stream(exporter)  # the capsule held while read
    try:
        t = _texts_type(schema)
        rows = 0
        while True:
            chunk = ArrowArray()
            if stream.get_next(ctypes.byref(stream), ctypes.byref(chunk)) != 0:
                raise ValueError(f"the Arrow stream failed: {_stream_error(stream)}")
            if not chunk.release:
                return t
            released.append(chunk)
            check_chunk(chunk, t)
            rows += chunk.length
            check_fits(rows, 8)
            chunks.append(chunk)
    finally:
        if schema.release:
            schema.release(ctypes.byref(schema))
        _release_stream(stream)  # the chunks read live on: their lifetimes are their own
