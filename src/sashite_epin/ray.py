"""Ray Data: functions for ``Dataset.map_batches(fn, batch_format="pyarrow")``.

    >>> import pyarrow as pa
    >>> import sashite_epin.ray
    >>> fn = sashite_epin.ray.parse("token", prefix="piece_")
    >>> block = fn(pa.table({"square": ["e1", "e8"], "token": ["K^", "x1"]}))
    >>> block.column_names[:4], block.column("piece_reason").to_pylist()
    (['square', 'token', 'piece_abbr', 'piece_side'], [None, 'OTHER_CHARACTER'])

Each function takes a pyarrow Table (one of Ray's blocks) and returns one: the core
reads the column in place and the result's fields are its Arrow export, put beside the
block's own columns, nothing per row in Python.  ``map_batches`` refuses any other
object, so a Table it is, not a TokenArray.  Importing this module needs pyarrow only
(a worker unpickles the function where Ray runs it).

Entries are parsed ``errors="mark"``: an invalid or missing entry is a row with
``valid`` false and its ``reason`` (``MISSING`` for a null), never a failed job.
"""

from __future__ import annotations

from typing import Any, Literal

import pyarrow

from ._epin import Epin
from ._pin import Pin
from ._requested import plain

_FORMS = ("dictionary", "plain")


def _notation(name: str) -> Any:
    if name not in ("epin", "pin"):
        raise ValueError(f"notation must be 'epin' or 'pin', not {name!a}")
    return Epin if name == "epin" else Pin


def _beside(batch: Any, fields: Any, prefix: str) -> Any:
    """The block's columns, then the result's under the prefix."""
    names = [prefix + name for name in fields.column_names]
    clash = sorted(set(names) & set(batch.column_names))
    if clash:
        raise ValueError(f"the block has columns named {clash} already: give another prefix")
    return pyarrow.Table.from_arrays(
        [*batch.columns, *fields.columns], names=[*batch.column_names, *names]
    )


def _exported(result: Any, strings: str) -> Any:
    table = pyarrow.table(result)
    return table.cast(plain(table.schema)) if strings == "plain" else table


class _BatchFunction:
    """What parse and tokens share: the column, the prefix, the notation and the string
    form, checked when the function is made (not in a worker, per block)."""

    __slots__ = ("column", "notation", "prefix", "strings")

    def __init__(
        self,
        column: str,
        *,
        prefix: str = "",
        notation: Literal["epin", "pin"] = "epin",
        strings: Literal["dictionary", "plain"] = "dictionary",
    ) -> None:
        _notation(notation)
        if strings not in _FORMS:
            raise ValueError(f"strings must be 'dictionary' or 'plain', not {strings!a}")
        self.column, self.prefix, self.notation, self.strings = column, prefix, notation, strings


class parse(_BatchFunction):  # a function to the caller: a class, so that it pickles by name
    """``parse(column, *, prefix="", notation="epin", strings="dictionary")``: the
    function for ``map_batches`` that keeps every column of the block and adds the
    parse result's fields (``sashite_epin.schema``, without token: the column holds
    it), each named ``prefix`` + field; ``strings="plain"`` gives abbr, side, state
    and reason as ``string`` rather than dictionaries."""

    def __call__(self, batch: pyarrow.Table) -> pyarrow.Table:
        result = _notation(self.notation).parse_many(batch.column(self.column), errors="mark")
        fields = _exported(result, self.strings).drop_columns(["token"])
        return _beside(batch, fields, self.prefix)


class tokens(_BatchFunction):  # a function to the caller: a class, so it pickles by name
    """``tokens(column, *, prefix="", notation="epin", strings="dictionary")``: the
    function for ``map_batches`` that gives one row per token of each entry's text
    (placements written back to back, ``tokenize_many``): the entry's row of the block
    (every column), then the token's fields and its ``offset`` in the text.  A missing
    or empty text gives no row; a run that is no token is a row marked invalid."""

    def __call__(self, batch: pyarrow.Table) -> pyarrow.Table:
        import numpy  # pyarrow's take reads the rows through it

        notation = _notation(self.notation)
        result = notation.tokenize_many(batch.column(self.column), errors="mark")
        rows = numpy.frombuffer(result.rows, numpy.int64)
        fields = _exported(result, self.strings).drop_columns(["row"])
        return _beside(batch.take(rows), fields, self.prefix)
