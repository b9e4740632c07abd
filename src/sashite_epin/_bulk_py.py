"""Bulk parsing and the TokenArray result, pure Python: the twin of ``_bulk_c.pxi``.

Same inputs, same results, same errors; slower, and numpy reads its records through
``__array__`` (zero-copy ``numpy.frombuffer`` over immutable bytes) where the compiled
TokenArray exports the buffer protocol itself.
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any

# _core_py imports this module at its end, once _scan and the tables exist.
from . import _core_py
from ._errors import ParseError, reason_text
from ._layout import RECORD_FIELDS, RECORD_SIZE, is_code


def record_of(code: int) -> bytes:
    return bytes(
        (65 + (code >> 5), (code >> 4) & 1, 2 - ((code >> 2) & 3), (code >> 1) & 1, code & 1)
    )


def code_of_record(r: bytes) -> int:
    """The code of a record, or -1 for the zero record of an invalid (marked) entry."""
    if r[0] == 0:
        return -1
    return ((r[0] - 65) << 5) | (r[1] << 4) | ((2 - r[2]) << 2) | (r[3] << 1) | r[4]


_ZERO = bytes(RECORD_SIZE)


class TokenArray:
    """The result of ``parse_many``: one 5-byte record per token (see the compiled one)."""

    __slots__ = ("_epin", "_invalid", "_objects", "_records", "_tokens")

    _records: bytes
    _epin: bool
    _invalid: array[int]
    _objects: Sequence[Any]
    _tokens: Callable[[int], str]

    @classmethod
    def _make(cls, epin: bool, records: bytes, invalid: Sequence[int]) -> TokenArray:
        self = object.__new__(cls)
        self._records, self._epin, self._invalid = records, epin, array("q", invalid)
        self._objects = _core_py._epins if epin else _core_py._pins
        self._tokens = _core_py.format_code
        return self

    @property
    def notation(self) -> str:
        return "EPIN" if self._epin else "PIN"

    @property
    def invalid(self) -> array[int]:
        return self._invalid

    def __len__(self) -> int:
        return len(self._records) // RECORD_SIZE

    def _code(self, i: int) -> int:
        return code_of_record(self._records[RECORD_SIZE * i : RECORD_SIZE * i + RECORD_SIZE])

    def _entry(self, i: int) -> Any:
        code = self._code(i)
        return None if code < 0 else self._objects[code]

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            picked = range(len(self))[index]
            records = b"".join(self._records[5 * i : 5 * i + 5] for i in picked)
            marked = [k for k, i in enumerate(picked) if self._records[5 * i] == 0]
            return TokenArray._make(self._epin, records, marked)
        i = operator.index(index)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("TokenArray index out of range")
        return self._entry(i)

    def __iter__(self) -> Iterator[Any]:
        return (self._entry(i) for i in range(len(self)))

    def _check_complete(self) -> None:
        if len(self._invalid):
            raise ValueError(f"entry {self._invalid[0]} is invalid: nothing to format")

    def tokens(self) -> list[str]:
        self._check_complete()
        return [self._tokens(self._code(i)) for i in range(len(self))]

    def sorted(self) -> TokenArray:
        self._check_complete()
        order = sorted(range(len(self)), key=self._code)
        return TokenArray._make(
            self._epin, b"".join(self._records[5 * i : 5 * i + 5] for i in order), []
        )

    def to_bytes(self, sep: bytes = b"\n") -> bytes:
        self._check_complete()
        return bytes(memoryview(sep).cast("B")).join(t.encode("ascii") for t in self.tokens())

    def codes(self) -> array[int]:
        return array("H", [0xFFFF if (c := self._code(i)) < 0 else c for i in range(len(self))])

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy

        fields = numpy.dtype([(name, "u1") for name in RECORD_FIELDS])
        records = numpy.frombuffer(self._records, dtype=fields)  # read-only, shared
        return records if dtype is None else records.astype(dtype)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TokenArray):
            return NotImplemented
        return self._epin == other._epin and self._records == other._records

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(repr(None if e is None else str(e)) for e in self[:4])
        more = ", ..." if len(self) > 4 else ""
        return f"<TokenArray {self.notation} [{shown}{more}] ({len(self)} tokens)>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (rebuild_token_array, (self._epin, self._records))


def rebuild_token_array(epin: bool, records: bytes) -> TokenArray:
    """Unpickling: records are checked, never trusted."""
    if len(records) % RECORD_SIZE:
        raise ValueError("records must be a multiple of 5 bytes")
    marked = []
    for i in range(len(records) // RECORD_SIZE):
        r = records[5 * i : 5 * i + 5]
        code = code_of_record(r)
        if r == _ZERO:
            marked.append(i)
        elif not (is_code(code) and (epin or not code & 1) and record_of(code) == r):
            raise ValueError(f"record {i} is not a valid {'EPIN' if epin else 'PIN'} record")
    return TokenArray._make(epin, bytes(records), marked)


class _Collector:
    """Records and invalid indices, as the tokens are scanned one by one."""

    def __init__(self, epin: bool, mark: bool) -> None:
        self.epin, self.mark = epin, mark
        self.records = bytearray()
        self.invalid: list[int] = []

    def add(self, index: int, token: object, text: str) -> None:
        code = _core_py._scan(text, self.epin)
        if code >= 0:
            self.records += record_of(code)
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
