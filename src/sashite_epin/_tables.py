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
from ._inputs import check_strings, is_missing, is_sequence, module_of
from ._marks import label_of

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._core_py import TokenArray


def parse_many(tokens: object, epin: bool, errors: str) -> TokenArray:
    """The core's parse_many, with pandas objects unwrapped and their labels kept."""
    if not module_of(tokens).startswith("pandas"):
        return core.parse_many(tokens, epin, errors)  # input_kind checks the dtype
    data, labels = unwrap(tokens, "parse_many")
    try:
        if type(data) is Categories:
            result = data.parse(epin, errors)
        else:
            result = core.parse_many(data, epin, errors)
    except ParseError as error:
        raise labelled(error, labels) from None
    return core.set_labels(result, labels)


def labelled(error: ParseError, labels: Any) -> ParseError:
    """The error with the label of the entry it names, where the input had labels."""
    if labels is None or error.index is None:
        return error
    return ParseError(
        error.token,
        error.reason,
        error.notation,
        error.index,
        error.position,
        error.line,
        label_of(labels, error.index),
        row=error.row,
    )


def unwrap(tokens: Any, caller: str) -> tuple[object, Any]:
    """What the cores read of a pandas object, and its labels (None for an array); a
    column of anything but strings is refused by its dtype (caller: the function
    called, named in the TypeError)."""
    import pandas  # already imported: tokens comes from it

    if isinstance(tokens, pandas.DataFrame):
        tokens = one_column(tokens, caller)
    if isinstance(tokens, (pandas.Series, pandas.Index)):
        check_strings(tokens, caller)
        return column(tokens.array, pandas), labels_of(tokens, pandas)
    if isinstance(tokens, pandas.api.extensions.ExtensionArray):
        check_strings(tokens, caller)
        return column(tokens, pandas), None
    return tokens, None


def labels_of(values: Any, pandas: Any) -> Any:
    """A Series' index; an Index's own entries, as Index.to_frame() labels them; None
    for anything else (an array has no labels)."""
    if isinstance(values, pandas.Series):
        return values.index
    return values if isinstance(values, pandas.Index) else None


def one_column(frame: Any, reader: str) -> Any:
    """The column of a one-column DataFrame (a TypeError for any other)."""
    if frame.shape[1] != 1:
        raise TypeError(
            f"{reader} reads one column: pass df[name], not a DataFrame of {frame.shape[1]} columns"
        )
    return frame.iloc[:, 0]


def column(values: Any, pandas: Any) -> object:
    """The readable form of a pandas ExtensionArray, without a copy where one exists."""
    if isinstance(values, pandas.Categorical):
        if values.categories.dtype.kind == "O":  # str categories (or objects)
            return Categories(values)
        return pandas.Series(values, copy=False)  # Arrow's dictionary: its own TypeError
    if isinstance(values, pandas.arrays.NumpyExtensionArray):  # StringArray too
        # Before __arrow_array__, which StringArray also has: it builds Arrow data from
        # the Python objects, where the numpy array of them is read as it is.
        array = values.to_numpy()  # a view of the numpy array underneath
        if array.dtype.kind == "f" and pandas.isna(array).all():
            # What read_csv makes of an empty column: every entry missing.
            return [None] * len(array)
        return array
    if hasattr(values, "__arrow_array__"):  # ArrowStringArray, ArrowExtensionArray
        return values.__arrow_array__()
    return values


class Categories:
    """A pandas Categorical: its categories parsed once, then taken by its codes."""

    def __init__(self, values: Any) -> None:
        self.values = values

    def parse(self, epin: bool, errors: str) -> TokenArray:
        if errors not in ("raise", "mark"):  # the table below is always parsed marked
            raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
        categories = self.values.categories
        codes = self.values.codes
        entries = [*categories.array.to_numpy(object), None]
        try:
            # The categories and a missing value after them, which code -1 (a missing
            # entry) takes as a position counted from the end.
            table = core.parse_many(entries, epin, "mark")
        except TypeError:
            error = self.wrong_type(entries, codes)
            if error is not None:
                raise error from None
            # Only categories no row takes are not str: read as missing, never taken.
            entries = [e if issubclass(type(e), str) else None for e in entries]
            table = core.parse_many(entries, epin, "mark")
        result: TokenArray = table[codes]
        if errors == "raise" and len(result.invalid):
            first = result.errors()[0]
            raise ParseError(first.token, first.reason, first.notation, first.index)
        return result

    @staticmethod
    def wrong_type(entries: list[object], codes: Any) -> TypeError | None:
        """The TypeError for the first row whose category is not a str, naming the row
        (as parse_many over the rows' values names it), where the core named the
        category; None when no row takes such a category."""
        import numpy  # pandas brings it

        first = len(codes)
        for k, entry in enumerate(entries[:-1]):
            if not issubclass(type(entry), str) and not is_missing(entry):
                rows = numpy.flatnonzero(codes == k)
                if len(rows) and rows[0] < first:
                    first, kind = int(rows[0]), type(entry)
        if first == len(codes):
            return None
        return TypeError(f"item {first} is {kind.__name__}, not str")

    def texts(self) -> object:
        """The texts for tokenize_many: an Arrow dictionary column, whose categories the
        core reads in place once and whose rows are its indices, where pyarrow is at
        hand and every category is a str; else a list of each row's text."""
        categories = self.values.categories
        if not len(categories):  # every row missing (pyarrow's dictionary would be null)
            return [None] * len(self.values)
        if categories.inferred_type == "string":
            try:
                import pyarrow
            except ImportError:  # pandas without it: the rows' texts, as a list
                pass
            else:
                return pyarrow.array(self.values)
        return self.values.tolist()


def text_rows(texts: object, one: str) -> tuple[object, object]:
    """What the core's text readers take (a list or tuple of texts, an Arrow string
    column), and the index labels of a pandas object unwrapped; ``one`` is the TypeError's
    words for a single text ({} its type)."""
    labels = None
    if is_sequence(texts):  # by its type, as the cores: __class__ may lie
        rows: object = texts
    elif isinstance(texts, (str, bytes, bytearray, memoryview)):
        raise TypeError(one.format(type(texts).__name__))
    elif module_of(texts).startswith("pandas"):
        data, labels = unwrap(texts, "tokenize_many")
        rows = data.texts() if type(data) is Categories else texts_of(data)
    else:
        check_strings(texts, "tokenize_many")
        rows = texts_of(texts)
    return rows, labels


def tokenize_many(texts: object, epin: bool, errors: str, strict: bool = False) -> TokenArray:
    """The core's tokenize_many over what it reads (a list or tuple of texts, an Arrow
    string column): every input parse_many takes that holds texts is turned into one
    of those, a pandas object unwrapped as parse_many unwraps it, its index kept (each
    token gets its row's label)."""
    rows, labels = text_rows(
        texts,
        "tokenize_many takes many texts (a list of str, a column), not one {}: "
        "Epin.tokenize reads one",
    )
    try:
        result = core.tokenize_many(rows, epin, errors, strict)
    except ParseError as error:
        raise labelled(error, labels) from None
    if labels is not None:
        import numpy  # pandas brings it
        import pandas  # already imported: the labels come from it

        rows = numpy.asarray(result.rows, dtype=numpy.intp)
        core.set_labels(result, token_labels(labels, rows, pandas), labels)
    return result


def token_labels(labels: Any, rows: Any, pandas: Any) -> Any:
    """Each token's label, its row's: labels.take(rows), but the default index (0, 1,
    2, ...) has each row's number as its label, so there the rows are the labels."""
    if isinstance(labels, pandas.RangeIndex) and labels.start == 0 and labels.step == 1:
        return pandas.Index(rows, dtype="int64", name=labels.name, copy=False)
    return labels.take(rows)


def texts_of(texts: Any) -> object:
    """What the core's tokenize_many reads of a column that is not pandas': a list or
    tuple, or an Arrow column (pyarrow, polars, DuckDB, nanoarrow, a pandas Arrow
    array's data) as it is, read in place; a numpy array's texts as a list (tolist, in
    C); any other iterable's items."""
    if is_sequence(texts):
        return texts
    kind = type(texts)
    if hasattr(kind, "__arrow_c_array__") or hasattr(kind, "__arrow_c_stream__"):
        return texts
    if hasattr(texts, "tolist") and hasattr(texts, "dtype"):  # numpy
        if getattr(texts, "ndim", 1) != 1:
            raise ValueError(
                f"tokenize_many needs a 1-dimensional array, not {texts.ndim}-dimensional"
            )
        return texts.tolist()
    try:
        return list(texts)
    except TypeError:
        raise TypeError(
            "tokenize_many takes a list of str, an Arrow string column, a numpy array or "
            f"any iterable of str, not {type(texts).__name__}"
        ) from None
