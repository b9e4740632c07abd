"""TokenArray's thin helpers for the data libraries, the same for both cores: each reads
the result's Arrow export (its PyCapsule interface) with the library it is named after,
imported only when asked for.  None of them is a dependency of the package."""

from __future__ import annotations

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _library(name: str, extra: str) -> Any:
    try:
        import importlib  # here: the common path never needs it

        return importlib.import_module(name)
    except ImportError:
        raise ImportError(
            f"this needs {name}: pip install 'sashite-epin[{extra}]' (or {name} itself)"
        ) from None


def to_arrow(result: object) -> Any:
    """A pyarrow Table of the result's columns."""
    return _library("pyarrow", "arrow").table(result)


class TokenRows:
    """A ``tokenize_many`` result by input row (``TokenArray.by_row()``): one entry per
    text, exported as one field, ``tokens``, a ``large_list`` of the row's tokens with
    the token's fields and its ``offset`` in the text; null where the text was missing,
    empty where it held none.  pyarrow, polars, pandas and DuckDB read it through the
    Arrow PyCapsule interface, as they read the result itself; ``labels`` are the
    input's own (a pandas Series' index), one per row."""

    __slots__ = ("_labels", "_result")

    def __init__(self, result: Any, labels: Any) -> None:
        self._result, self._labels = result, labels

    def __len__(self) -> int:
        return len(self._result.row_offsets) - 1

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its parts: pickle protocols 0 and 1 cannot save __slots__ alone.
        return (TokenRows, (self._result, self._labels))

    def __repr__(self) -> str:
        return f"<TokenRows {self._result.notation} ({len(self)} rows, {len(self._result)} tokens)>"

    @property
    def tokens(self) -> Any:
        """The TokenArray this is a view of."""
        return self._result

    @property
    def labels(self) -> Any:
        """The pandas Index of the input's rows, or None."""
        return self._labels

    def __arrow_c_schema__(self) -> object:
        """The schema, the same whatever the data: a struct of one field, tokens."""
        return self._result._by_row_arrow("schema")

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        """The rows as one Arrow struct array: what ``pyarrow.array`` and
        ``pyarrow.table`` read."""
        return self._result._by_row_arrow("array")  # type: ignore[no-any-return]

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The rows as an Arrow stream of one chunk: what ``polars.DataFrame``, DuckDB
        and pandas read."""
        return self._result._by_row_arrow("stream")

    def to_arrow(self) -> Any:
        """A pyarrow Table of one column, tokens; needs pyarrow."""
        return to_arrow(self)

    def to_pandas(self, index: Any = None) -> Any:
        """A pandas DataFrame of one column, tokens, Arrow-backed
        (``list<struct>[pyarrow]``: pandas' ``.list`` and ``.struct`` accessors read
        it), on the input's index (``labels``): ``index=`` gives another,
        ``index=False`` a RangeIndex.  Needs pandas and pyarrow."""
        pd = _library("pandas", "pandas")
        frame = to_arrow(self).to_pandas(types_mapper=pd.ArrowDtype)
        return _on_labels(frame, self._labels, index)

    def to_polars(self) -> Any:
        """A polars DataFrame of one column, tokens (a list of structs); needs polars."""
        return _library("polars", "polars").DataFrame(self)


def _on_labels(frame: Any, labels: Any, index: Any) -> Any:
    """The frame on the input's labels, or index's (False: a RangeIndex)."""
    labels = labels if index is None else None if index is False else index
    return frame if labels is None else frame.set_axis(labels, axis=0)


def to_pandas(result: Any, index: Any = None) -> Any:
    """A pandas DataFrame of the result's columns with fixed dtypes: the dictionary
    fields categorical (their categories are every word, whatever the data), terminal
    and derived ``boolean`` (nullable), valid ``bool``; on the result's labels unless
    ``index`` gives others (``False``: a RangeIndex)."""
    pd = _library("pandas", "pandas")
    pa = _library("pyarrow", "arrow")
    # Without the mapper, a bool column with a null is object, one without is bool:
    # a frame's dtypes would depend on its data.
    booleans = pd.BooleanDtype()
    frame = to_arrow(result).to_pandas(types_mapper={pa.bool_(): booleans}.get)
    frame["valid"] = frame["valid"].astype(bool)
    return _on_labels(frame, result.labels, index)


def to_polars(result: object) -> Any:
    """A polars DataFrame of the result's columns, side and state categorical."""
    return _library("polars", "polars").DataFrame(result)
