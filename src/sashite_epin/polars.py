"""polars namespaces: ``import sashite_epin.polars`` once, then every expression and
Series has ``.epin`` and ``.pin``, in eager, lazy and streaming plans alike.

    >>> import polars as pl
    >>> import sashite_epin.polars
    >>> df = pl.DataFrame({"square": ["e1", "e8"], "token": ["K^", "x1"]})
    >>> df.with_columns(pl.col("token").epin.parse(errors="mark").alias("piece")).unnest(
    ...     "piece", separator="_")["piece_abbr"].to_list()
    ['K', None]
    >>> df.select(pl.col("token").epin.is_valid())["token"].to_list()
    [True, False]

Registered with polars' own extension API (``polars.api``).  The output types are
fixed (those of ``TokenArray.to_polars()``), so a lazy plan knows its schema before it
runs; the work is elementwise, so the streaming engine can run it batch by batch.
"""

from __future__ import annotations

from typing import Any, Literal

import polars

from . import _frames
from ._epin import Epin
from ._errors import ParseError
from ._marks import reason_names
from ._pin import Pin


def _frame(notation: Any, series: Any, errors: str, token: bool) -> Any:
    """The DataFrame of a Series' tokens, the token column only if asked for.  A
    Categorical or Enum Series under errors="mark": its categories parsed once and
    gathered by the rows' codes (the marks kept as columns, no object per row), its
    token column (if asked for) the categories' gathered.  A String Series is its own
    token column (a valid entry's text is its token, an invalid one's the text as
    read), so the texts are neither exported nor gathered."""
    table = _categories(notation, series) if errors == "mark" else None
    if table is not None and hasattr(polars, "Categories"):  # else as to_polars() can
        categories, codes = table
        rows = categories[codes]  # the core's gather: 1.5-2 ns a row half marked
        texts: Any = False
        if token:
            words = _frames.to_polars(categories).get_column("token")
            texts = words.gather(codes)
        frame = _frames.to_polars(rows, token=texts, reasons=_REASONS.dtype)
        return _frames.named(frame, token, "")
    result = _result(notation, series, errors)
    # The reason column made an Enum from the reason numbers (a Categorical cast to the
    # Enum costs some 5 ns an entry); the token column left out unless asked for.
    given = series if series.dtype == polars.String and token else None if token else False
    frame = _frames.to_polars(result, token=given, reasons=_REASONS.dtype)
    return _frames.named(frame, token, "")


def _valid(notation: Any, series: Any) -> polars.Series:
    table = _categories(notation, series)
    if table is None:
        valid = notation.parse_many(series, errors="mark").valid_mask()
    else:  # each category's, taken by the rows' codes
        import numpy  # _categories found it

        result, codes = table
        valid = result.valid_mask().view(numpy.uint8).take(codes).view(bool)
    return polars.Series(series.name, valid, polars.Boolean)


def _reason(notation: Any, series: Any) -> polars.Series:
    """The Enum of the reason names, made from each entry's reason number (0: valid,
    missing)."""
    import numpy  # reason_codes() needs it

    table = _categories(notation, series)
    if table is None:
        numbers = notation.parse_many(series, errors="mark").reason_codes()
    else:  # each category's, taken by the rows' codes
        result, codes = table
        numbers = result.reason_codes().take(codes)
    reasons: polars.Series = _frames.polars_enum(
        polars, numpy, numbers, len(numbers), _REASONS.dtype
    )
    return reasons.alias(series.name)


_REASONS = polars.Series([None, *reason_names()], dtype=polars.Enum(reason_names()))


def _result(notation: Any, series: Any, errors: str) -> Any:
    """parse_many of the Series: a Categorical or Enum one by its categories, parsed
    once, taken by the rows' codes."""
    if errors not in ("raise", "mark"):  # the categories are always parsed marked
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
    table = _categories(notation, series)
    if table is None:
        return notation.parse_many(series, errors=errors)
    categories, codes = table
    result = categories[codes]
    if errors == "raise" and len(result.errors()):
        first = result.errors()[0]
        raise ParseError(first.token, first.reason, first.notation, first.index)
    return result


def _categories(notation: Any, series: Any) -> tuple[Any, Any] | None:
    """For a Categorical or Enum Series: the TokenArray of its categories and a missing
    value after them (marked), and each row's position in it as a numpy array (a
    missing row: the last); None for any other Series, and for a Categorical whose
    categories (polars keeps one set for all its Categorical columns) outnumber its
    rows, which is read as strings."""
    try:
        import numpy  # noqa: F401 (polars' to_numpy needs it; polars does not)
    except ImportError:
        return None
    kind = series.dtype
    if isinstance(kind, polars.Enum):
        words = kind.categories.to_list()
    elif isinstance(kind, polars.Categorical) and hasattr(kind, "categories"):
        categories = kind.categories
        if not hasattr(categories, "to_series"):
            return None
        words = categories.to_series().to_list()
        if len(words) > len(series):
            return None
    else:
        return None
    physical = series.to_physical()
    if physical.null_count():  # the missing value's position may not fit the codes' type
        physical = physical.cast(polars.UInt32).fill_null(len(words))
    codes = physical.to_numpy()
    return notation.parse_many([*words, None], errors="mark"), codes


def _fields(notation: Any, series: Any, errors: str, token: bool) -> polars.DataFrame:
    """parse()'s DataFrame of a Series: the result's polars frame, its token column
    only if asked for, its reason of reason()'s dtype (the Enum of the names)."""
    frame: polars.DataFrame = _frame(notation, series, errors, token)
    reason = frame.get_column("reason")
    if reason.dtype == _REASONS.dtype:  # made so from the reason numbers
        return frame
    return frame.with_columns(reason.cast(_REASONS.dtype))  # polars before 1.32


def _fields_type(notation: Any, token: bool) -> Any:
    return (
        _fields(notation, polars.Series("", [], polars.String), "mark", token).to_struct("").dtype
    )


# The row numbers' field beside the column in parse(errors="raise")'s struct: a name no
# column of a frame is likely to have (the struct's two fields need distinct names).
_ROW_FIELD = "__sashite_epin_row__"


def _counted(notation: Any, pair: Any, token: bool) -> Any:
    """parse(errors="raise")'s batch: a struct of the tokens and their row numbers in the
    frame (polars hands a plan's column over in pieces, each numbered from 0), parsed,
    a ParseError naming the row in the frame rather than in the piece."""
    series, rows = pair.struct.unnest().get_columns()  # by position: any names
    try:
        return _fields(notation, series, "raise", token).to_struct(pair.name)
    except ParseError as error:
        if error.index is None:
            raise
        row = rows[error.index]
        raise ParseError(error.token, error.reason, error.notation, row) from None


def _tokens(notation: Any, series: Any, errors: str) -> polars.DataFrame:
    """tokenize()'s DataFrame: one row per token, row the input's row, reason of
    reason()'s dtype."""
    frame: polars.DataFrame = notation.tokenize_many(series, errors=errors).to_polars()
    return frame.with_columns(frame.get_column("reason").cast(_REASONS.dtype))


class EpinExpr:
    """What ``pl.col(...).epin`` / ``.pin`` offer."""

    _notation: Any = Epin

    def __init__(self, expr: polars.Expr) -> None:
        self._expr = expr

    def parse(
        self, errors: Literal["raise", "mark"] = "raise", *, token: bool = False
    ) -> polars.Expr:
        """A struct of the token fields, valid and reason (``errors="raise"``, the
        default, fails the query at the first invalid entry, naming its row counted
        from the start of the frame; ``"mark"`` keeps it); the token itself as a
        field only with ``token=True`` (the column it came from holds it)."""
        notation = self._notation
        dtype = _fields_type(notation, token)
        if errors == "raise":
            # the struct is named as its first field, the expression: the output too
            rows = polars.int_range(polars.len(), dtype=polars.Int64).alias(_ROW_FIELD)
            return polars.struct(self._expr, rows).map_batches(
                lambda pair: _counted(notation, pair, token),
                return_dtype=dtype,
                is_elementwise=True,
            )
        return self._expr.map_batches(
            lambda s: _fields(notation, s, errors, token).to_struct(s.name),
            return_dtype=dtype,
            is_elementwise=True,
        )

    def is_valid(self) -> polars.Expr:
        """Boolean: True where the entry is a token."""
        notation = self._notation
        return self._expr.map_batches(
            lambda s: _valid(notation, s), return_dtype=polars.Boolean, is_elementwise=True
        )

    def reason(self) -> polars.Expr:
        """The Reason name of each invalid entry (an Enum of the names), null where the
        entry is valid."""
        notation = self._notation
        return self._expr.map_batches(
            lambda s: _reason(notation, s),
            return_dtype=polars.Enum(reason_names()),
            is_elementwise=True,
        )


class PinExpr(EpinExpr):
    _notation = Pin


class EpinSeries:
    """What ``series.epin`` / ``.pin`` offer: the same as the expressions, eagerly."""

    _notation: Any = Epin

    def __init__(self, series: polars.Series) -> None:
        self._series = series

    def parse(
        self, errors: Literal["raise", "mark"] = "raise", *, token: bool = False
    ) -> polars.DataFrame:
        """A DataFrame of the token fields, valid and reason, one row per entry; the
        token itself as a column only with ``token=True``, so that
        ``frame.hstack(frame["token"].epin.parse())`` needs no renaming."""
        return _fields(self._notation, self._series, errors, token)

    def tokenize(self, errors: Literal["raise", "mark"] = "raise") -> polars.DataFrame:
        """A DataFrame of one row per token of each entry (placements written back to
        back, as ``tokenize_many``): the token's fields, ``row`` (the entry's position)
        and ``offset`` (the token's in the entry)."""
        return _tokens(self._notation, self._series, errors)

    def is_valid(self) -> polars.Series:
        """A Boolean Series: True where the entry is a token."""
        return _valid(self._notation, self._series)

    def reason(self) -> polars.Series:
        """The Reason name of each invalid entry, null where the entry is valid."""
        return _reason(self._notation, self._series)


class PinSeries(EpinSeries):
    _notation = Pin


polars.api.register_expr_namespace("epin")(EpinExpr)
polars.api.register_expr_namespace("pin")(PinExpr)
polars.api.register_series_namespace("epin")(EpinSeries)
polars.api.register_series_namespace("pin")(PinSeries)
