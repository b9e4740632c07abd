"""pandas accessors: ``import sashite_epin.pandas`` once, then every Series (and Index)
has ``.epin`` and ``.pin``.

    >>> import pandas as pd
    >>> import sashite_epin.pandas
    >>> s = pd.Series(["K^", "x1", "+p'"], index=[10, 20, 30])
    >>> s.epin.parse(errors="mark")[["abbr", "valid", "reason"]]
       abbr  valid           reason
    10    K   True              NaN
    20  NaN  False  OTHER_CHARACTER
    30    P   True              NaN
    >>> s.epin.is_valid().tolist()
    [True, False, True]

Registered with pandas' own extension API (``pandas.api.extensions``).  Every result is
on the input's index, with the dtypes of ``TokenArray.to_pandas()`` whatever the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import pandas

from ._epin import Epin
from ._marks import reason_names
from ._pin import Pin

if TYPE_CHECKING:
    from ._core import TokenArray


class EpinAccessor:
    """What ``.epin`` / ``.pin`` offer on a Series or an Index of tokens."""

    _notation: Any = Epin

    def __init__(self, values: Any) -> None:
        self._values = values

    def parse_many(self, errors: Literal["raise", "mark"] = "raise") -> TokenArray:
        """The TokenArray of the entries (its ``labels`` are the index)."""
        result: TokenArray = self._notation.parse_many(self._values, errors=errors)
        return result

    def parse(
        self, errors: Literal["raise", "mark"] = "raise", *, token: bool = False
    ) -> pandas.DataFrame:
        """A DataFrame of the token fields, valid and reason, on the same index:
        ``errors="raise"`` (the default) raises ParseError at the first invalid entry,
        naming its position (``index``) and its index label (``label``);
        ``errors="mark"`` keeps every row.  The token itself is a column only with
        ``token=True``, so ``df.join(df["token"].epin.parse())`` needs no suffix."""
        # A category Series is read by its categories, gathered by the rows' codes
        # (parse_many's road), its marked rows' texts copied from the categories'.
        return self.parse_many(errors).to_pandas(token=token)

    def tokenize(self, errors: str = "raise") -> Any:
        """A DataFrame of one row per token of each entry (placements written back to
        back, as ``tokenize_many``): on the entry's index label, with ``row`` (the
        entry's position) and ``offset`` (the token's in the entry)."""
        return self._notation.tokenize_many(self._values, errors=errors).to_pandas()

    def is_valid(self) -> pandas.Series:
        """A bool Series on the same index: True where the entry is a token."""
        table = _categories(self._notation, self._values)
        if table is None:
            result = self.parse_many("mark")
            return pandas.Series(result.valid_mask(), index=result.labels, name=self._name())
        categories, codes = table  # each category's, taken by the rows' codes
        valid = categories.valid_mask().take(codes)
        return pandas.Series(valid, index=self._values.index, name=self._name())

    def reason(self) -> pandas.Series:
        """A categorical Series on the same index: the Reason name of each invalid
        entry, missing where the entry is valid."""
        table = _categories(self._notation, self._values)
        if table is None:
            result = self.parse_many("mark")
            numbers, labels = result.reason_codes(), result.labels
        else:  # each category's, taken by the rows' codes
            categories, codes = table
            numbers, labels = categories.reason_codes().take(codes), self._values.index
        codes = numbers.astype("int8") - 1  # -1: valid, so missing
        reasons = pandas.Categorical.from_codes(codes, categories=list(reason_names()))
        return pandas.Series(reasons, index=labels, name=self._name())

    def _name(self) -> Any:
        return getattr(self._values, "name", None)


def _categories(notation: Any, values: Any) -> tuple[Any, Any] | None:
    """For a category Series: the TokenArray of its categories and a missing value
    after them (marked), and the rows' codes (-1, a missing row: the last); None for
    any other input, and where the categories' parse fails (parse_many then reads the
    rows and says why)."""
    if not isinstance(values, pandas.Series):
        return None
    if not isinstance(values.dtype, pandas.CategoricalDtype):
        return None
    try:
        result = notation.parse_many([*values.cat.categories, None], errors="mark")
    except (TypeError, ValueError):
        return None
    return result, values.cat.codes.to_numpy()


class PinAccessor(EpinAccessor):
    _notation = Pin


for _register in (
    pandas.api.extensions.register_series_accessor,
    pandas.api.extensions.register_index_accessor,
):
    _register("epin")(EpinAccessor)
    _register("pin")(PinAccessor)
