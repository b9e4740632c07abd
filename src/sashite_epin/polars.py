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

from typing import Any

import polars

from ._epin import Epin
from ._marks import reason_names
from ._pin import Pin


def _parsed(notation: Any, series: Any, errors: str) -> Any:
    """The struct Series of a Series' tokens, named as the Series is."""
    result = notation.parse_many(series, errors=errors)
    return polars.DataFrame(result).to_struct(series.name)


def _struct_type(notation: Any) -> Any:
    return _parsed(notation, polars.Series("", [], polars.String), "mark").dtype


def _valid(notation: Any, series: Any) -> Any:
    result = notation.parse_many(series, errors="mark")
    return polars.Series(series.name, result.valid_mask(), polars.Boolean)


def _reason(notation: Any, series: Any) -> Any:
    result = notation.parse_many(series, errors="mark")
    names = reason_names()
    words = [None if code == 0 else names[code - 1] for code in result.reason_codes().tolist()]
    return polars.Series(series.name, words, polars.Enum(names))


class EpinExpr:
    """What ``pl.col(...).epin`` / ``.pin`` offer."""

    _notation: Any = Epin

    def __init__(self, expr: Any) -> None:
        self._expr = expr

    def parse(self, errors: str = "raise") -> Any:
        """A struct of the token fields, valid and reason (``errors="raise"``, the
        default, fails the query at the first invalid entry; ``"mark"`` keeps it)."""
        notation = self._notation
        return self._expr.map_batches(
            lambda s: _parsed(notation, s, errors),
            return_dtype=_struct_type(notation),
            is_elementwise=True,
        )

    def is_valid(self) -> Any:
        """Boolean: True where the entry is a token."""
        notation = self._notation
        return self._expr.map_batches(
            lambda s: _valid(notation, s), return_dtype=polars.Boolean, is_elementwise=True
        )

    def reason(self) -> Any:
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

    def __init__(self, series: Any) -> None:
        self._series = series

    def parse(self, errors: str = "raise") -> Any:
        """A DataFrame of the token fields, valid and reason, one row per entry."""
        return self._notation.parse_many(self._series, errors=errors).to_polars()

    def is_valid(self) -> Any:
        """A Boolean Series: True where the entry is a token."""
        return _valid(self._notation, self._series)

    def reason(self) -> Any:
        """The Reason name of each invalid entry, null where the entry is valid."""
        return _reason(self._notation, self._series)


class PinSeries(EpinSeries):
    _notation = Pin


polars.api.register_expr_namespace("epin")(EpinExpr)
polars.api.register_expr_namespace("pin")(PinExpr)
polars.api.register_series_namespace("epin")(EpinSeries)
polars.api.register_series_namespace("pin")(PinSeries)
