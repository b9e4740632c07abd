"""What a Spark worker runs for ``sashite_epin.spark``, one batch at a time: a module
of its own, without pyspark, whose functions Spark pickles by name (a worker imports
this module rather than receiving their code).  Each function is named as the SQL
function it backs, which is also the name Spark gives its column.

Each takes the batch Spark hands over, an Arrow column (Arrow UDF) or a pandas Series
(pandas UDF), and answers in the same kind: the results' own Arrow export, with its
dictionary columns as plain strings (Spark's Arrow reader cannot read dictionaries)."""

from __future__ import annotations

from typing import Any

from ._epin import Epin
from ._marks import reason_names
from ._pin import Pin

NOTATIONS: dict[str, Any] = {"epin": Epin, "pin": Pin}


def plain_type(kind: Any) -> Any:
    """The Arrow type Spark reads for one of the export's types: a string for each
    dictionary, ``list`` for ``large_list``, at any depth."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return pa.string()
    if pa.types.is_struct(kind):
        fields = [kind.field(k) for k in range(kind.num_fields)]
        return pa.struct([f.with_type(plain_type(f.type)) for f in fields])
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return pa.list_(kind.value_field.with_type(plain_type(kind.value_type)))
    return kind


def _plain(array: Any) -> Any:
    kind = plain_type(array.type)
    return array if kind == array.type else array.cast(kind)


def _parsed(notation: str, values: Any) -> Any:
    """The struct array of a batch's tokens, every entry kept (marked)."""
    import pyarrow as pa

    table = NOTATIONS[notation].parse_many(values, errors="mark").to_arrow()
    columns = [_plain(table.column(k).combine_chunks()) for k in range(table.num_columns)]
    return pa.StructArray.from_arrays(columns, names=table.column_names)


def _valid(notation: str, values: Any) -> Any:
    import pyarrow as pa

    return pa.array(NOTATIONS[notation].parse_many(values, errors="mark").valid_mask())


def _reason(notation: str, values: Any) -> Any:
    """Each entry's reason name, taken by its reason number (0, valid: null): one
    gather from a column of the 15 names, no string made per entry."""
    import pyarrow as pa

    numbers = NOTATIONS[notation].parse_many(values, errors="mark").reason_codes()
    return _reason_words().take(pa.array(numbers))


def _tokens(notation: str, values: Any) -> Any:
    rows = NOTATIONS[notation].tokenize_many(values, errors="mark").by_row()
    return _plain(rows.to_arrow().column("tokens").combine_chunks())


_WORDS: list[Any] = []


def _reason_words() -> Any:
    """null, then the reason names by number (built once per worker process)."""
    if not _WORDS:
        import pyarrow as pa

        _WORDS.append(pa.array([None, *reason_names()], pa.string()))
    return _WORDS[0]


def _is_arrow(values: Any) -> bool:
    return type(values).__module__.startswith("pyarrow")


def _as_arrow(values: Any) -> Any:
    """A pandas UDF's Series as an Arrow column: the struct export and tokenize_many
    have no pandas index to keep."""
    if _is_arrow(values):
        return values
    import pyarrow as pa

    return pa.array(values, pa.string(), from_pandas=True)


def _answer(answer: Any, values: Any) -> Any:
    """The answer as the UDF kind returns it: Arrow for an Arrow UDF; for a pandas UDF
    a Series, or a DataFrame for a struct."""
    if _is_arrow(values):
        return answer
    import pandas as pd
    import pyarrow as pa

    if pa.types.is_struct(answer.type):
        names = [answer.type.field(k).name for k in range(answer.type.num_fields)]
        return pd.DataFrame({name: answer.field(name).to_pandas() for name in names})
    return answer.to_pandas()


def epin_parse(values: Any) -> Any:
    return _answer(_parsed("epin", _as_arrow(values)), values)


def pin_parse(values: Any) -> Any:
    return _answer(_parsed("pin", _as_arrow(values)), values)


def epin_valid(values: Any) -> Any:
    return _answer(_valid("epin", values), values)


def pin_valid(values: Any) -> Any:
    return _answer(_valid("pin", values), values)


def epin_reason(values: Any) -> Any:
    return _answer(_reason("epin", values), values)


def pin_reason(values: Any) -> Any:
    return _answer(_reason("pin", values), values)


def epin_tokens(values: Any) -> Any:
    return _answer(_tokens("epin", _as_arrow(values)), values)


def pin_tokens(values: Any) -> Any:
    return _answer(_tokens("pin", _as_arrow(values)), values)
