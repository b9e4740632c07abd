"""``parse_many``'s input readers, pure Python: the twin of ``_bulk_c.pxi``.

Same inputs, same results, same errors; slower.  Lists and iterables of str (None,
NaN and pandas.NA are missing values), byte buffers (split as ``bytes.split()``
splits), numpy ``S`` / ``U`` / object / StringDType arrays; Arrow columns are read by
``_arrow_py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._array_py import Rejected, TokenArray
from ._arrow_py import arrow_entries
from ._errors import ParseError, reason_text
from ._inputs import ARROW_ARRAY, ARROW_STREAM, OBJECTS, STRING_DTYPE, input_kind, is_missing
from ._layout import RECORD_SIZE, record_of_code
from ._messages import MISSING
from ._scan_py import scan

_ZERO = bytes(RECORD_SIZE)
_TOKEN_BYTES = re.compile(rb"[^ \t\n\x0b\x0c\r]+")


class _Collector:
    """Records and invalid indices, as the tokens are scanned one by one."""

    def __init__(self, epin: bool, mark: bool) -> None:
        self.epin, self.mark = epin, mark
        self.records = bytearray()
        self.invalid: list[int] = []
        self.rejected: list[Rejected] = []
        self.counted, self.lines = 0, 1  # bytes input: the line at byte offset counted

    def add(
        self,
        index: int,
        token: object,
        text: str | None,
        position: int | None = None,
        data: bytes = b"",
    ) -> None:
        """Scan one entry's text (None: a missing value); token is what an error names,
        position its byte offset in data when the input is bytes."""
        code = -MISSING if text is None else scan(text, self.epin)
        if code >= 0:
            self.records += record_of_code(code)
            return
        notation = "EPIN" if self.epin else "PIN"
        line = None
        if position is not None:  # lines counted once, from the previous bad token on
            self.lines += data.count(b"\n", self.counted, position)
            self.counted, line = position, self.lines
        if not self.mark:
            raise ParseError(token, reason_text(-code, notation), notation, index, position, line)
        self.records += _ZERO
        self.invalid.append(index)
        self.rejected.append((token, -code, position, line))

    def result(self) -> TokenArray:
        return TokenArray._make(self.epin, bytes(self.records), self.invalid, self.rejected)


def parse_many(tokens: object, epin: bool, errors: str = "raise") -> TokenArray:
    """Parse many tokens at once into a TokenArray; see Pin.parse_many / Epin.parse_many."""
    if errors not in ("raise", "mark"):
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!r}")
    collector = _Collector(epin, errors == "mark")
    if isinstance(tokens, (list, tuple)):
        _parse_objects(tokens, collector)
        return collector.result()
    if isinstance(tokens, str):
        raise TypeError(
            "parse_many takes many tokens (a list of str, a bytes-like object "
            "or a numpy array), not one str"
        )
    kind = input_kind(tokens)
    if kind in (ARROW_ARRAY, ARROW_STREAM):
        for i, entry in enumerate(arrow_entries(tokens)):
            if entry is None:
                collector.add(i, None, None)
            else:  # a binary column's bytes are scanned as UTF-8 text, as a utf8 column's
                text = entry.decode("utf-8", "replace") if isinstance(entry, bytes) else entry
                collector.add(i, entry, text)
        return collector.result()
    if kind == OBJECTS:
        tokens = tokens.to_numpy()  # type: ignore[attr-defined]
    elif kind == STRING_DTYPE:
        tokens = tokens.astype(object)  # type: ignore[attr-defined]
    try:
        view = memoryview(tokens)  # type: ignore[arg-type]
    except TypeError:
        pass
    else:
        with view:
            if view.format != "O":
                _parse_buffer(view, collector)
                return collector.result()
            if view.ndim != 1:
                raise ValueError(
                    f"parse_many needs a 1-dimensional array, not {view.ndim}-dimensional"
                )
    try:
        items = iter(tokens)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(
            "parse_many takes a list of str, a bytes-like object, a numpy array or an "
            f"Arrow string column, not {type(tokens).__name__}"
        ) from None
    _parse_objects(items, collector)
    return collector.result()


def _parse_objects(items: Iterable[object], collector: _Collector) -> None:
    for i, item in enumerate(items):
        if isinstance(item, str):
            collector.add(i, item, item if type(item) is str else str.__str__(item))
        elif is_missing(item):
            collector.add(i, item, None)
        else:
            raise TypeError(f"item {i} is {type(item).__name__}, not str")


def _element_token(element: bytes) -> tuple[object, str]:
    """A U element's token and text, NUL padding removed.  The token is the text, or the
    raw bytes when a unit is no code point (numpy does not check what a buffer holds);
    such a unit reads as U+FFFD, which no token holds."""
    units = memoryview(element).cast("I").tolist()  # native byte order, as numpy's U
    while units and units[-1] == 0:
        units.pop()
    if all(u < 0x110000 for u in units):
        text = "".join(map(chr, units))
        return text, text
    text = "".join(chr(u) if u < 0x110000 else "\ufffd" for u in units)
    return element[: 4 * len(units)], text


def _parse_buffer(view: memoryview, collector: _Collector) -> None:
    fmt = view.format
    if fmt[-1:] in ("s", "w"):
        wide = fmt[-1:] == "w"
        if view.ndim != 1:
            raise ValueError(f"parse_many needs a 1-dimensional array, not {view.ndim}-dimensional")
        if wide and fmt[:1] in (">", "!"):
            raise ValueError("parse_many reads U arrays in native byte order (use .astype('U'))")
        raw, size = view.tobytes(), view.itemsize  # tobytes: logical order, any strides
        for k in range(view.shape[0] if view.shape else 0):
            element = raw[k * size : (k + 1) * size]
            if wide:
                collector.add(k, *_element_token(element))
            else:
                token = element.rstrip(b"\0")
                collector.add(k, token, token.decode("latin-1"))
        return
    if view.itemsize != 1 or fmt.lstrip("@=<>!") not in ("B", "b", "c"):
        raise TypeError(
            "parse_many reads bytes, or numpy arrays of dtype S or U; "
            f"not a buffer of format {fmt!r}"
        )
    if not view.c_contiguous:
        raise ValueError(
            "parse_many needs a contiguous bytes buffer (copy it first, e.g. bytes(view))"
        )
    # The runs bytes.split() gives: the compiled core's separators are b" \t\n\v\f\r".
    data = view.tobytes()
    for k, found in enumerate(_TOKEN_BYTES.finditer(data)):
        token, start = found.group(), found.start()
        collector.add(k, token, token.decode("latin-1"), start, data)
