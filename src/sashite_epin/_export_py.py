"""TokenArray as Arrow data, pure Python: the twin of ``_export_c.pxi``, built with
pyarrow (the compiled core writes the C structs itself and needs no library).

The same struct column: token (utf8); abbr, side and state (dictionaries over int8 of
the letters and of the spec's words, indexed by the record's numbers); terminal and
derived (bool, derived for EPIN only); valid (bool, never null) and reason (a
dictionary of the Reason names, null where valid).  An entry marked invalid keeps its
text as read in token (null for a missing value) and is null in the token's fields.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import _marks

FIELDS = ("token", "abbr", "side", "state", "terminal", "derived", "valid", "reason")
LETTERS = tuple(chr(c) for c in range(65, 91))
SIDE_WORDS = ("first", "second")
STATE_WORDS = ("normal", "enhanced", "diminished")  # the record's state numbers


def _pyarrow() -> Any:
    try:
        return importlib.import_module("pyarrow")
    except ImportError:
        raise ImportError(
            "the pure-Python core exports Arrow data through pyarrow: "
            "pip install 'sashite-epin[arrow]'"
        ) from None


def struct_array(
    epin: bool, records: bytes, tokens: list[str | None], invalid: Any, rejected: Any
) -> Any:
    """The export of a TokenArray: its records, each entry's token (None if marked), and
    the marked entries' indices and (token, reason, ...) as the result keeps them."""
    pa = _pyarrow()
    rows = [records[5 * i : 5 * i + 5] for i in range(len(tokens))]
    missing = [t is None for t in tokens]
    mask = pa.array(missing, pa.bool_())
    texts: list[str | None] = list(tokens)
    reasons: list[int | None] = [None] * len(tokens)
    for i, (token, reason, _where, _line) in zip(invalid, rejected, strict=True):
        text = _marks.export_text(token, reason)
        texts[i] = None if text is None else text.decode("utf-8")
        reasons[i] = reason - 1

    def column(values: list[Any], kind: Any) -> Any:
        return pa.array([None if m else v for v, m in zip(values, missing, strict=True)], kind)

    def words(field: int, vocabulary: tuple[str, ...], first: int = 0) -> Any:
        numbers = [max(r[field] - first, 0) for r in rows]
        indices = pa.array(numbers, pa.int8(), mask=mask)
        return pa.DictionaryArray.from_arrays(indices, pa.array(vocabulary, pa.string()))

    fields = [
        pa.array(texts, pa.string()),
        words(0, LETTERS, 65),
        words(1, SIDE_WORDS),
        words(2, STATE_WORDS),
        column([bool(r[3]) for r in rows], pa.bool_()),
        column([bool(r[4]) for r in rows], pa.bool_()),
        pa.array([not m for m in missing], pa.bool_()),
        pa.DictionaryArray.from_arrays(
            pa.array(reasons, pa.int8()), pa.array(_marks.reason_names(), pa.string())
        ),
    ]
    names = list(FIELDS) if epin else [f for f in FIELDS if f != "derived"]
    if not epin:
        del fields[5]
    return pa.StructArray.from_arrays(fields, names=names)


def stream(array: Any) -> Any:
    """The struct column as a one-batch stream (what table readers take)."""
    pa = _pyarrow()
    batch = pa.RecordBatch.from_struct_array(array)
    return pa.RecordBatchReader.from_batches(batch.schema, [batch])


def _int64(values: Any) -> Any:
    """An int64 Arrow array over an array('q'), its memory shared."""
    pa = _pyarrow()
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def placed(array: Any, layout: Any, rows: Any) -> Any:
    """tokenize_many's export from the token struct, the result's layout and each
    token's row: row and offset fields after the token's (flat); or, where rows is
    None, one field, tokens, a large_list per input row of the token's fields and
    offset, null where the text was missing."""
    pa = _pyarrow()
    offsets, row_offsets, missing = layout[0], layout[1], layout[2]
    fields = array.flatten()
    names = [field.name for field in array.type]
    if rows is not None:
        return pa.StructArray.from_arrays(
            [*fields, _int64(rows), _int64(offsets)], names=[*names, "row", "offset"]
        )
    tokens = pa.StructArray.from_arrays([*fields, _int64(offsets)], names=[*names, "offset"])
    absent = set(missing)
    mask = pa.array([r in absent for r in range(len(row_offsets) - 1)], pa.bool_())
    lists = pa.LargeListArray.from_arrays(_int64(row_offsets), tokens, mask=mask)
    return pa.StructArray.from_arrays([lists], names=["tokens"])
