"""What Pin and Epin share as interned token objects: immutability, str, byte output
and the order by code.  Each holds ``code`` (its compact code), ``_token`` (its str)
and ``_ascii`` (the same as bytes), set once when the tables are built."""

from __future__ import annotations

# operator.index, from the C module the operator module wraps: importing operator itself
# would cost more than this module.
from _operator import index as operator_index

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn, Self
    from typing import final as final  # re-exported for Pin and Epin
else:

    def final(cls: type) -> type:
        """typing.final at run time: a marker only, for type checkers."""
        return cls


def _immutable(self: object, *_: object) -> NoReturn:
    raise AttributeError(f"{type(self).__name__} objects are immutable")


class Token:
    __slots__ = ()

    code: int
    _token: str
    _ascii: bytes

    def __str__(self) -> str:
        return self._token

    def __format__(self, spec: str) -> str:
        """The token formatted as a str is (``f"{piece:>4}"`` aligns a printed board)."""
        return format(self._token, spec)

    # -- engine-friendly output: the token's ASCII bytes, no str made -----------------
    def append_to(self, buf: bytearray) -> None:
        """Append the token's bytes to ``buf`` (like pin.go's AppendTo)."""
        if not isinstance(buf, bytearray):
            raise TypeError(f"append_to needs a bytearray, not {type(buf).__name__}")
        buf.extend(self._ascii)

    def write_into(self, buf: bytearray | memoryview, offset: int) -> int:
        """Write the token's bytes into ``buf`` at ``offset``; the offset after them.
        IndexError when they do not fit: ``buf`` never grows (a bytearray slice past
        its end would)."""
        if not isinstance(buf, (bytearray, memoryview)):
            raise TypeError(f"write_into needs a bytearray or memoryview, not {type(buf).__name__}")
        if isinstance(offset, bool):
            raise TypeError("offset must be an int, not bool")
        start = operator_index(offset)
        end = start + len(self._ascii)
        if start < 0 or end > len(buf):
            raise IndexError(f"{len(self._ascii)} bytes at offset {start} do not fit in {len(buf)}")
        buf[start:end] = self._ascii
        return end

    # -- order: by code, which is FEEN's canonical order of hand items ----------------
    # Only between objects of one notation: a Pin and an Epin do not compare.
    def __lt__(self, other: object) -> bool:
        return self.code < other.code if type(other) is type(self) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.code <= other.code if type(other) is type(self) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.code > other.code if type(other) is type(self) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.code >= other.code if type(other) is type(self) else NotImplemented

    # -- interned: copies are the object itself; nothing can be set -----------------
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: object) -> Self:
        return self

    __setattr__ = _immutable
    __delattr__ = _immutable
