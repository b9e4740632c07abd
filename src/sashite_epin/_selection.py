"""Which entries a TokenArray index picks, decided once for both cores: an int, a slice,
a boolean mask of the same length, or integers (negative from the end)."""

from __future__ import annotations

# From the modules the interpreter has loaded at start-up, not the public ones over
# them (collections would add 3 ms to the import, operator 0.5): the same objects.
from _collections_abc import Sequence
from _operator import index as operator_index


def scalar(key: object) -> int | None:
    """The int a key is when it picks one entry (an int, a numpy integer); else None."""
    if isinstance(key, bool) or getattr(key, "ndim", 0) != 0 or not hasattr(key, "__index__"):
        return None
    return operator_index(key)


def is_index_array(key: object) -> bool:
    """A 1-dimensional numpy array of integers (the compiled core reads its buffer)."""
    dtype = getattr(key, "dtype", None)
    return (
        getattr(dtype, "kind", None) in ("i", "u")
        and getattr(dtype, "isnative", False)
        and getattr(key, "ndim", 0) == 1
    )


def positions(key: object, count: int) -> range | list[int]:
    """The entries ``key`` picks, in order; IndexError / TypeError as a list would."""
    if isinstance(key, slice):
        return range(count)[key]
    kind = getattr(getattr(key, "dtype", None), "kind", None)
    if kind is not None:  # a numpy array: its own fast conversion
        if getattr(key, "ndim", 1) != 1:
            raise IndexError("a TokenArray is indexed by a 1-dimensional mask or index array")
        if kind not in "biu":
            raise TypeError(f"a TokenArray index array must be bool or integer, not {key.dtype}")  # type: ignore[attr-defined]
        key = key.tolist()  # type: ignore[attr-defined]
    if isinstance(key, (str, bytes)) or not isinstance(key, Sequence | range):
        try:
            key = list(key)  # type: ignore[call-overload]
        except TypeError:
            raise TypeError(
                "a TokenArray is indexed by an int, a slice, a boolean mask or integers, "
                f"not {type(key).__name__}"
            ) from None
    items = list(key)  # type: ignore[call-overload]
    if items and all(type(x) is bool for x in items):
        if len(items) != count:
            raise IndexError(f"a boolean mask of {len(items)} entries for {count} entries")
        return [i for i, keep in enumerate(items) if keep]
    picked = []
    for x in items:
        if isinstance(x, bool):
            raise TypeError("a TokenArray index mixes bools and integers")
        i = operator_index(x)
        if i < 0:
            i += count
        if not 0 <= i < count:
            raise IndexError(f"TokenArray index {x} out of range")
        picked.append(i)
    return picked
