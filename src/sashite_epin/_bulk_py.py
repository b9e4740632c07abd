"""``parse_many``'s input readers, pure Python: the twin of ``_bulk_c.pxi``.

Same inputs, same results, same errors; slower.  Lists and iterables of str, byte
buffers (split as ``bytes.split()`` splits), numpy ``S`` / ``U`` arrays.
"""

from __future__ import annotations

from ._array_py import TokenArray
from ._errors import ParseError, reason_text
from ._layout import RECORD_SIZE, record_of_code
from ._scan_py import scan

_ZERO = bytes(RECORD_SIZE)


class _Collector:
    """Records and invalid indices, as the tokens are scanned one by one."""

    def __init__(self, epin: bool, mark: bool) -> None:
        self.epin, self.mark = epin, mark
        self.records = bytearray()
        self.invalid: list[int] = []

    def add(self, index: int, token: object, text: str) -> None:
        code = scan(text, self.epin)
        if code >= 0:
            self.records += record_of_code(code)
            return
        notation = "EPIN" if self.epin else "PIN"
        if not self.mark:
            raise ParseError(token, reason_text(-code, notation), notation, index)
        self.records += _ZERO
        self.invalid.append(index)

    def result(self) -> TokenArray:
        return TokenArray._make(self.epin, bytes(self.records), self.invalid)


def parse_many(tokens: object, epin: bool, errors: str = "raise") -> TokenArray:
    """Parse many tokens at once into a TokenArray; see Pin.parse_many / Epin.parse_many."""
    if errors not in ("raise", "mark"):
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!r}")
    collector = _Collector(epin, errors == "mark")
    if isinstance(tokens, str):
        raise TypeError(
            "parse_many takes many tokens (a list of str, a bytes-like object "
            "or a numpy array), not one str"
        )
    if not isinstance(tokens, (list, tuple)):
        try:
            view = memoryview(tokens)  # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            with view:
                _parse_buffer(view, collector)
            return collector.result()
        try:
            tokens = list(tokens)  # type: ignore[call-overload]
        except TypeError:
            raise TypeError(
                "parse_many takes a list of str, a bytes-like object or a numpy "
                f"array, not {type(tokens).__name__}"
            ) from None
    item: object
    for i, item in enumerate(tokens):  # type: ignore[arg-type]
        if not isinstance(item, str):
            raise TypeError(f"item {i} is {type(item).__name__}, not str")
        collector.add(i, item, item if type(item) is str else str.__str__(item))
    return collector.result()


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
    # bytes.split() splits on exactly the compiled core's separators: b" \t\n\v\f\r".
    for k, token in enumerate(view.tobytes().split()):
        collector.add(k, token, token.decode("latin-1"))
