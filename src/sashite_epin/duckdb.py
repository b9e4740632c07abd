"""DuckDB SQL functions: ``sashite_epin.duckdb.register(con)`` once per connection, then

    >>> import duckdb
    >>> import sashite_epin.duckdb
    >>> con = duckdb.connect()
    >>> sashite_epin.duckdb.register(con)
    >>> con.sql("SELECT epin_valid('K^'), epin_reason('K^^'), (epin_parse('+p''')).side").fetchall()
    [(True, 'MULTIPLE_TERMINAL_MARKERS', 'second')]

Each is a vectorised Arrow UDF (``type="arrow"``): DuckDB hands over a chunk of its
vector (2,048 rows) as an Arrow column, the core parses it in one call, and the answer
goes back as Arrow, the parse result's own export (dictionary strings, which DuckDB reads
as VARCHAR): nothing per row in Python.

- ``epin_parse(VARCHAR) -> STRUCT``: every field of the result (``sashite_epin.schema``):
  token, abbr, side, state, terminal, derived, valid, reason; ``pin_parse`` the same
  without derived;
- ``epin_valid(VARCHAR) -> BOOLEAN``: whether the entry is a token;
- ``epin_reason(VARCHAR) -> VARCHAR``: the Reason name of an invalid entry, NULL if valid;
- ``epin_tokens(VARCHAR) -> STRUCT(...)[]``: a placement's tokens written back to back
  (``tokenize_many``), each the same struct and its ``offset`` in the text.

NULL in is a missing entry, as for ``parse_many(errors="mark")``: ``epin_valid(NULL)``
is false, ``epin_reason(NULL)`` is ``'MISSING'``, ``epin_parse(NULL)`` a struct whose
token and token fields are NULL, valid false and reason ``'MISSING'`` (never a NULL
struct, so ``(epin_parse(t)).reason`` counts the missing rows).  ``epin_tokens(NULL)``
is NULL, as ``TokenArray.by_row()`` exports a missing text; a text with no token gives
an empty list.  No function raises on bad data: the reasons are the data.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow

from ._epin import Epin
from ._marks import reason_names
from ._pin import Pin
from ._schema import schema

# The Arrow types the result's export holds, as DuckDB names them.
_SQL_TYPES = {"string": "VARCHAR", "bool": "BOOLEAN", "int64": "BIGINT"}


def sql_type(fields: Any) -> str:
    """The DuckDB STRUCT type of Arrow fields of plain strings, booleans and int64s."""
    parts = [f'"{field.name}" {_SQL_TYPES[str(field.type)]}' for field in fields]
    return f"STRUCT({', '.join(parts)})"


def _reasons(notation: Any) -> Any:
    """epin_reason: a dictionary column written from the entries' reason numbers alone
    (0 where valid: null there, else the name at number - 1), its buffers handed to
    pyarrow as they are; all null, without a pass, where no entry is marked."""
    import numpy

    names = pyarrow.array(reason_names(), pyarrow.string())
    kind = pyarrow.dictionary(pyarrow.int8(), pyarrow.string())

    def reason(column: Any) -> Any:
        result = notation.parse_many(column, errors="mark")
        if not len(result.errors()):  # a count: no object per entry
            return pyarrow.nulls(len(result), pyarrow.string())
        numbers = numpy.asarray(result.reason_codes()).view(numpy.int8)
        validity = numpy.packbits(numbers != 0, bitorder="little")
        indices = numbers - numpy.int8(1)
        buffers = [pyarrow.py_buffer(validity), pyarrow.py_buffer(indices)]
        return pyarrow.DictionaryArray.from_buffers(kind, len(indices), buffers, names)

    return reason


def _valid(notation: Any) -> Any:
    def valid(column: Any) -> Any:
        return pyarrow.array(notation.parse_many(column, errors="mark").valid_mask())

    return valid


def _parse(notation: Any) -> Any:
    def parse(column: Any) -> Any:
        return pyarrow.array(notation.parse_many(column, errors="mark"))

    return parse


def _tokens(notation: Any) -> Any:
    def tokens(column: Any) -> Any:
        rows = notation.tokenize_many(column, errors="mark").by_row()
        return pyarrow.array(rows).field("tokens")

    return tokens


def register(
    con: duckdb.DuckDBPyConnection, *, prefixes: tuple[str, ...] = ("epin", "pin")
) -> None:
    """Create the SQL functions on a DuckDB connection: ``epin_parse``,
    ``epin_valid``, ``epin_reason`` and ``epin_tokens``, and the same four for PIN
    (``pin_...``); ``prefixes`` chooses the notations (``("pin",)``: PIN only).  A
    connection that has them already gets them anew."""
    if not isinstance(con, duckdb.DuckDBPyConnection):
        raise TypeError(f"register needs a DuckDB connection, not {type(con).__name__}")
    for prefix in prefixes:
        if prefix not in ("epin", "pin"):
            raise ValueError(f"prefixes are 'epin' and 'pin', not {prefix!a}")
        notation = Epin if prefix == "epin" else Pin
        fields = list(schema(prefix, "plain"))
        token_fields = [*fields, pyarrow.field("offset", pyarrow.int64())]
        functions = {
            "parse": (_parse(notation), sql_type(fields)),
            "valid": (_valid(notation), "BOOLEAN"),
            "reason": (_reasons(notation), "VARCHAR"),
            "tokens": (_tokens(notation), sql_type(token_fields) + "[]"),
        }
        for name, (function, returns) in functions.items():
            full = f"{prefix}_{name}"
            try:
                con.remove_function(full)
            except duckdb.Error:  # not created yet on this connection
                pass
            # the arguments by their names as strings, which every DuckDB since 1.1 takes
            # (its stubs want its enums, which moved between releases)
            create: Any = con.create_function
            create(
                full,
                function,
                [duckdb.sqltype("VARCHAR")],
                duckdb.sqltype(returns),
                type="arrow",
                null_handling="special",
                side_effects=False,
            )
