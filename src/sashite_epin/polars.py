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

from ._epin import Epin
from ._errors import ParseError
from ._marks import reason_names
from ._pin import Pin


def _parsed(notation: Any, series: Any, errors: str) -> Any:
    """The struct Series of a Series' tokens, named as the Series is."""
    return _result(notation, series, errors).to_polars().to_struct(series.name)


def _struct_type(notation: Any) -> Any:
    return _parsed(notation, polars.Series("", [], polars.String), "mark").dtype


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
    """The Enum of the reason names, gathered by each entry's reason number from the
    names after a missing value (number 0: valid)."""
    table = _categories(notation, series)
    if table is None:
        numbers = notation.parse_many(series, errors="mark").reason_codes()
    else:  # each category's, taken by the rows' codes
        result, codes = table
        numbers = result.reason_codes().take(codes)
    return _REASONS.gather(polars.Series(numbers)).alias(series.name)


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


class EpinExpr:
    """What ``pl.col(...).epin`` / ``.pin`` offer."""

    _notation: Any = Epin

    def __init__(self, expr: polars.Expr) -> None:
        self._expr = expr

    def parse(self, errors: Literal["raise", "mark"] = "raise") -> polars.Expr:
        """A struct of the token fields, valid and reason (``errors="raise"``, the
        default, fails the query at the first invalid entry; ``"mark"`` keeps it)."""
        notation = self._notation
        return self._expr.map_batches(
            lambda s: _parsed(notation, s, errors),
            return_dtype=_struct_type(notation),
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

    def parse(self, errors: Literal["raise", "mark"] = "raise") -> polars.DataFrame:
        """A DataFrame of the token fields, valid and reason, one row per entry."""
        frame: polars.DataFrame = _result(self._notation, self._series, errors).to_polars()
        return frame

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
