"""``parse_many`` for the facade: pandas containers read in place, their index kept.

The cores read lists, buffers, numpy arrays and Arrow columns.  A pandas object is one
of those underneath; this module finds which without copying, once, and hands it on,
then gives the result (and any error) the object's index labels, so that frames made
from the result line up with the user's frame.  pandas is never imported here: an
object from pandas brings its own module.
"""

from __future__ import annotations

from ._core import core
from ._errors import ParseError

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._core_py import TokenArray


def parse_many(tokens: object, epin: bool, errors: str) -> TokenArray:
    """The core's parse_many, with pandas objects unwrapped and their labels kept."""
    if not type(tokens).__module__.startswith("pandas"):
        return core.parse_many(tokens, epin, errors)
    data, labels = unwrap(tokens)
    try:
        result = core.parse_many(data, epin, errors)
    except ParseError as error:
        if labels is None or error.index is None:
            raise
        from ._marks import label_of

        label = label_of(labels, error.index)
        raise ParseError(
            error.token,
            error.reason,
            error.notation,
            error.index,
            error.position,
            error.line,
            label,
        ) from None
    return core.set_labels(result, labels)


def unwrap(tokens: Any) -> tuple[object, Any]:
    """What the cores read of a pandas object, and its labels (None for an array)."""
    import pandas  # already imported: tokens comes from it

    if isinstance(tokens, pandas.DataFrame):
        if tokens.shape[1] != 1:
            raise TypeError(
                "parse_many reads one column: pass df[name], not a DataFrame of "
                f"{tokens.shape[1]} columns"
            )
        tokens = tokens.iloc[:, 0]
    if isinstance(tokens, pandas.Series):
        return column(tokens.array, pandas), tokens.index
    if isinstance(tokens, pandas.Index):
        # An Index's entries are its own labels, as Index.to_frame() puts them.
        return column(tokens.array, pandas), tokens
    if isinstance(tokens, pandas.api.extensions.ExtensionArray):
        return column(tokens, pandas), None
    return tokens, None


def column(values: Any, pandas: Any) -> object:
    """The readable form of a pandas ExtensionArray, without a copy where one exists."""
    if isinstance(values, pandas.Categorical):
        # Arrow's dictionary encoding of the same codes and categories: the cores parse
        # each category once and read the codes (pandas' own Arrow export, no copy of
        # the strings).
        return pandas.Series(values, copy=False)
    if hasattr(values, "__arrow_array__"):  # ArrowStringArray, ArrowExtensionArray
        return values.__arrow_array__()
    if isinstance(values, pandas.arrays.NumpyExtensionArray):  # StringArray too
        array = values.to_numpy()  # a view of the numpy array underneath
        if array.dtype.kind == "f" and pandas.isna(array).all():
            # What read_csv makes of an empty column: every entry missing.
            return [None] * len(array)
        return array
    return values
