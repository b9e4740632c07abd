"""The public schema of a parse result.

The schema is not written here a second time: it is the export's own (that of an empty
result), read back through pyarrow, so it is whatever both cores write.  Two string
forms: ``"dictionary"`` (the export as the cores write it: abbr, side, state and reason
dictionaries over int8, the cheapest to write and to group by) and ``"plain"`` (those
four as plain ``string``, for consumers that want no dictionary: SQL engines, Ray's
block concatenation, a Parquet file another tool reads).

A consumer asks for the plain form through the Arrow PyCapsule interface's
``requested_schema`` (``pyarrow.table(result, schema=...)``), which ``_requested.py``
honours.
"""

from __future__ import annotations

from ._requested import plain

# typing is not imported at run time (the package imports this module): annotations are
# strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FORMS = ("dictionary", "plain")


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise ImportError(
            "the result's schema is a pyarrow schema: pip install 'sashite-epin[arrow]'"
        ) from None
    return pyarrow


def schema(notation: str = "epin", strings: str = "dictionary", *, tokens: bool = False) -> Any:
    """The pyarrow schema of a result's export: ``notation`` ``"epin"`` or ``"pin"``
    (no derived field), ``strings`` ``"dictionary"`` (as exported by default) or
    ``"plain"`` (abbr, side, state and reason as ``string``), ``tokens=True`` for a
    ``tokenize_many`` result (row and offset after the token's fields).  Needs pyarrow.

    Any result exports as its schema's plain form when asked:
    ``pyarrow.table(result, schema=schema(strings="plain"))``."""
    if notation not in ("epin", "pin"):
        raise ValueError(f"notation must be 'epin' or 'pin', not {notation!a}")
    if strings not in _FORMS:
        raise ValueError(f"strings must be 'dictionary' or 'plain', not {strings!a}")
    pa = _pyarrow()
    from ._epin import Epin
    from ._pin import Pin

    kind = Epin if notation == "epin" else Pin
    empty = kind.tokenize_many([]) if tokens else kind.parse_many([])
    exported = pa.schema(list(pa.array(empty).type))
    return plain(exported) if strings == "plain" else exported
