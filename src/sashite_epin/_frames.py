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


def to_pandas(result: object) -> Any:
    """A pandas DataFrame of the result's columns, side and state categorical."""
    _library("pandas", "pandas")
    return to_arrow(result).to_pandas()


def to_polars(result: object) -> Any:
    """A polars DataFrame of the result's columns, side and state categorical."""
    return _library("polars", "polars").DataFrame(result)
