"""Spark column functions: ``from sashite_epin import spark as epin_spark``, then
``df.select(epin_spark.parse("piece"))``, and ``epin_spark.register(spark)`` gives the
same as SQL functions (``epin_parse``, ``pin_valid``, ...).

Each function is a vectorised UDF: on Spark 4.1 and later an Arrow UDF (the worker
hands each batch to ``parse_many`` as the Arrow column Spark sent, read in place, and
answers with Arrow arrays built from the result's own export); on older Spark a pandas
UDF.  Importing this module needs no SparkSession (nor imports pyspark): each UDF is
made when its function is called, for the session in use, classic or Spark Connect.
The workers must import sashite-epin and pyarrow: point ``PYSPARK_PYTHON`` (or
``spark.pyspark.python`` with ``spark-submit``) at a Python that has them.

What comes out (a missing entry is never an error):

- ``parse``: a struct of the fields of ``TokenArray.to_arrow()`` (``schema()``), the
  dictionary ones as plain strings; an invalid entry has its token, ``valid`` false
  and its ``reason``; a missing one a null token and the reason ``MISSING``;
- ``valid``: a boolean, false for an invalid or missing entry;
- ``reason``: the Reason name of an invalid entry (``MISSING`` for a missing one),
  null for a valid one;
- ``tokens``: the tokens of a text written back to back (a FEEN placement) as an array
  of the same structs with each token's ``offset`` in the text; null for a missing
  text, empty for a text without tokens.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from . import _spark_batches

if TYPE_CHECKING:
    from pyspark.sql import Column, SparkSession
    from pyspark.sql.types import DataType, StructType

Notation = Literal["epin", "pin"]
"""Which notation a function reads: ``"epin"`` (the default) or ``"pin"``."""

FUNCTIONS = tuple(
    f"{notation}_{what}"
    for notation in ("epin", "pin")
    for what in ("parse", "valid", "reason", "tokens")
)
"""The SQL functions ``register`` gives, each named ``notation_function``."""


def parse(col: Column | str, notation: Notation = "epin") -> Column:
    """A struct column (``schema(notation)``) of each entry's token fields, valid and
    reason; an invalid or missing entry is kept, marked."""
    return _applied(notation, "parse", col)


def valid(col: Column | str, notation: Notation = "epin") -> Column:
    """A boolean column: true where the entry is a token, false where it is invalid or
    missing."""
    return _applied(notation, "valid", col)


def reason(col: Column | str, notation: Notation = "epin") -> Column:
    """A string column: the Reason name of each invalid entry (``MISSING`` where it is
    missing), null where it is valid."""
    return _applied(notation, "reason", col)


def tokens(col: Column | str, notation: Notation = "epin") -> Column:
    """An array column: the tokens of each text written back to back (a FEEN
    placement), each a struct of ``parse``'s fields and its ``offset`` in the text, the
    runs between them (``/8/``) left out; null where the text is missing, empty where
    it holds no token."""
    return _applied(notation, "tokens", col)


def schema(notation: Notation = "epin") -> StructType:
    """The Spark type of ``parse``: a struct of ``token``, ``abbr``, ``side``,
    ``state`` (strings), ``terminal``, ``derived`` (EPIN only), ``valid`` (booleans)
    and ``reason`` (a string).  ``tokens`` gives an array of this struct with one more
    field, ``offset`` (a long).  Built from ``TokenArray.to_arrow()``'s schema."""
    return _spark_type(_notation(notation).parse_many([], errors="mark").to_arrow().schema)


def register(spark: SparkSession) -> tuple[str, ...]:
    """Register ``epin_parse``, ``epin_valid``, ``epin_reason``, ``epin_tokens`` and
    the four ``pin_`` ones as SQL functions of this session; returns their names."""
    for name in FUNCTIONS:
        notation, what = name.split("_")
        with _quiet():
            spark.udf.register(name, _udf(notation, what))
    return FUNCTIONS


def _notation(notation: object) -> Any:
    try:
        return _spark_batches.NOTATIONS[notation]  # type: ignore[index]
    except (KeyError, TypeError):
        raise ValueError(f"notation must be 'epin' or 'pin', not {notation!a}") from None


def _applied(notation: str, what: str, col: Column | str) -> Column:
    with _quiet():  # Spark 3.5 checks its pandas version again when a UDF is applied
        return _udf(notation, what)(col)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Spark's own warnings while it makes or applies a UDF, silenced: it checks its
    pandas version whenever it makes a vectorised UDF, even an Arrow one, which never
    touches pandas (it warns about pandas 3; Spark 3.5 compares versions with
    distutils' deprecated classes), and it prefers type hints to the UDF kind given
    here (this module imports neither pyarrow nor pandas to write them)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
        warnings.filterwarnings("ignore", "distutils Version classes", DeprecationWarning)
        warnings.filterwarnings("ignore", ".*preferred to specify type hints", UserWarning)
        yield


def _udf(notation: str, what: str) -> Any:
    """The vectorised UDF of one function, made when asked for (so for the session in
    use, classic or Spark Connect): an Arrow UDF where Spark has them (4.1 and later),
    a pandas UDF otherwise."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    reader = _notation(notation)
    batch = getattr(_spark_batches, f"{notation}_{what}")
    if what == "parse":
        returns: DataType = schema(notation)  # type: ignore[arg-type]
    elif what == "tokens":
        rows = reader.tokenize_many([], errors="mark").by_row().to_arrow()
        returns = _spark_type(rows.schema.field("tokens").type)
    else:
        returns = T.BooleanType() if what == "valid" else T.StringType()
    if hasattr(F, "arrow_udf"):
        from pyspark.util import PythonEvalType

        return F.arrow_udf(batch, returns, PythonEvalType.SQL_SCALAR_ARROW_UDF)
    from pyspark.sql.pandas.functions import PandasUDFType  # where Spark 3.5 has it

    return F.pandas_udf(batch, returns, PandasUDFType.SCALAR)


def _spark_type(kind: Any) -> DataType:
    """The Spark type of one of the export's Arrow types (or of a whole schema)."""
    import pyarrow as pa
    from pyspark.sql import types as T

    if isinstance(kind, pa.Schema) or pa.types.is_struct(kind):
        fields = (
            list(kind)
            if isinstance(kind, pa.Schema)
            else [kind.field(k) for k in range(kind.num_fields)]
        )
        return T.StructType(
            [T.StructField(f.name, _spark_type(f.type), f.nullable) for f in fields]
        )
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return T.ArrayType(_spark_type(kind.value_type), containsNull=True)
    if pa.types.is_dictionary(kind) or pa.types.is_string(kind):
        return T.StringType()
    if pa.types.is_boolean(kind):
        return T.BooleanType()
    if pa.types.is_int64(kind):
        return T.LongType()
    raise TypeError(f"no Spark type for the export's {kind}")  # a field added to the export
