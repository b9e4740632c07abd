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
    labels = result.labels if index is None else None if index is False else index
    if labels is not None:
        frame = frame.set_axis(labels, axis=0)
    return frame


def to_polars(result: object) -> Any:
    """A polars DataFrame of the result's columns, side and state categorical."""
    return _library("polars", "polars").DataFrame(result)
