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

    def parse(self, errors: Literal["raise", "mark"] = "raise") -> pandas.DataFrame:
        """A DataFrame of the token fields, valid and reason, on the same index:
        ``errors="raise"`` (the default) raises ParseError at the first invalid entry,
        naming its position (``index``) and its index label (``label``);
        ``errors="mark"`` keeps every row."""
        return self.parse_many(errors).to_pandas()

    def is_valid(self) -> pandas.Series:
        """A bool Series on the same index: True where the entry is a token."""
        result = self.parse_many("mark")
        return pandas.Series(result.valid_mask(), index=result.labels, name=self._name())

    def reason(self) -> pandas.Series:
        """A categorical Series on the same index: the Reason name of each invalid
        entry, missing where the entry is valid."""
        result = self.parse_many("mark")
        codes = result.reason_codes().astype("int8") - 1  # -1: valid, so missing
        reasons = pandas.Categorical.from_codes(codes, categories=list(reason_names()))
        return pandas.Series(reasons, index=result.labels, name=self._name())

    def _name(self) -> Any:
        return getattr(self._values, "name", None)


class PinAccessor(EpinAccessor):
    _notation = Pin


for _register in (
    pandas.api.extensions.register_series_accessor,
    pandas.api.extensions.register_index_accessor,
):
    _register("epin")(EpinAccessor)
    _register("pin")(PinAccessor)
