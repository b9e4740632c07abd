"""Containers and items that lie to a bulk reader, for the tests and the fuzz targets.

A list or tuple subclass whose ``__len__``, ``__iter__`` or ``__getitem__`` say what
its storage does not hold; items whose methods, type name or module (``NAType``),
``__eq__``, ``__hash__``, ``__class__`` or metaclass run code that empties the container
and fills it anew (freeing the items a reader may hold borrowed pointers to); str,
bytes and float subclasses; unhashable items; every kind of missing value.  A reader
must read the container as CPython's own C functions do (its storage), run none of that
code while it holds the items, and give the same outcome on both cores; ``plain()`` is
what the container truly holds.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from sashite_epin import ParseError

Pick = Callable[[int], int]  # pick(n): a number in 0 .. n - 1, as the caller decides

TOKENS = ("K", "q'", "+R^", "-p", "K^^", "", "K ", "é", "KQ", "K^/8/+p3", "8/8", "+")


class Trap:
    """What a lying method does when called: the container it lies for is emptied and
    filled with fresh objects (the old items freed), once, then the collector runs."""

    def __init__(self) -> None:
        self.container: Any = None
        self.fired = 0

    def fire(self) -> None:
        self.fired += 1
        box = self.container
        if isinstance(box, list) and self.fired == 1:
            size = list.__len__(box)
            list.clear(box)
            gc.collect()
            list.extend(box, ["x" * 64 + str(i) for i in range(size + 64)])


def lying_str(trap: Trap) -> type:
    class LyingStr(str):
        """Every method lies and fires the trap: only the characters are true."""

        def __eq__(self, other: object) -> bool:
            trap.fire()
            return True

        def __ne__(self, other: object) -> bool:
            trap.fire()
            return False

        def __hash__(self) -> int:
            trap.fire()
            return 0

        def __len__(self) -> int:
            trap.fire()
            return 1

        def __iter__(self) -> Any:
            trap.fire()
            return iter("K")

        def __getitem__(self, index: Any) -> str:
            trap.fire()
            return "K"

        def __str__(self) -> str:
            trap.fire()
            return "K"

        def encode(self, *args: object, **kwargs: object) -> bytes:
            trap.fire()
            return b"K"

        def startswith(self, *args: object, **kwargs: object) -> bool:
            trap.fire()
            return True

    return LyingStr


def lying_module(trap: Trap) -> Any:
    """A str subclass as a type's __module__: its startswith, __eq__ and __hash__ fire."""

    class Module(str):
        def startswith(self, *args: object, **kwargs: object) -> bool:
            trap.fire()
            return True

        def __eq__(self, other: object) -> bool:
            trap.fire()
            return True

        def __hash__(self) -> int:
            trap.fire()
            return 0

    return Module("pandas")


def lying_items(trap: Trap) -> list[Callable[[], object]]:
    """Makers of items that are not what they say, each a fresh object."""
    text = lying_str(trap)
    na = type("NAType", (), {"__module__": lying_module(trap)})
    nat = type("NaTType", (), {"__module__": lying_module(trap)})

    class Equal:
        def __eq__(self, other: object) -> bool:
            trap.fire()
            return True

        def __hash__(self) -> int:
            trap.fire()
            return hash("K")

    class Classy:
        @property  # type: ignore[misc]
        def __class__(self) -> type:
            trap.fire()
            return str

    class LyingType(type):
        """A metaclass that says its classes are str (a reader comparing or hashing
        the items' types would run this)."""

        def __eq__(cls, other: object) -> bool:
            trap.fire()
            return True

        def __hash__(cls) -> int:
            trap.fire()
            return hash(str)

    class Impostor(Equal, metaclass=LyingType):
        """Equal, under a type that claims to be str."""

    class Text(str, metaclass=LyingType):
        pass

    class Unhashing:
        def __hash__(self) -> int:
            trap.fire()
            raise RuntimeError("__hash__ must not be called")

    class Number(float):
        pass

    class Raw(bytes):
        pass

    return [
        lambda: text("K"),
        lambda: text("K^^"),
        lambda: text("q'/8"),
        na,
        nat,
        Equal,
        Classy,
        lambda: Number("nan"),
        lambda: Number(1.5),
        lambda: Raw(b"K"),
        Impostor,
        lambda: Text("K"),
        lambda: Text("K^^"),
        Unhashing,
        lambda: ["K"],
        lambda: {"K": 1},
        lambda: b"K",
        lambda: 1.5,
        lambda: 7,
    ]


def missing_values() -> list[Callable[[], object]]:
    """Every missing value a column holds: None, float NaN, numpy's float NaNs, pandas.NA
    and pandas.NaT (those libraries imported here: the tests and fuzz targets have them)."""
    import numpy as np
    import pandas as pd

    return [
        lambda: None,
        lambda: math.nan,
        lambda: np.float64("nan"),
        lambda: np.float32("nan"),
        lambda: np.float16("nan"),
        lambda: np.longdouble("nan"),
        lambda: pd.NA,
        lambda: pd.NaT,
    ]


def lying_container(kind: int, items: list[object], trap: Trap, pick: Pick) -> Any:
    """items in a list (kind 0), a tuple (1), or a subclass of either whose __len__,
    __iter__ and __getitem__ lie (2, 3) and fire the trap."""
    if kind == 0:
        trap.container = list(items)
        return trap.container
    if kind == 1:
        return tuple(items)
    claimed = (0, 1, 10**7, -1, len(items) + 1)[pick(5)]
    extra = ["K"] * pick(4)

    def __len__(self: Any) -> int:
        trap.fire()
        if claimed < 0:
            raise RuntimeError("__len__ must not be asked")
        return claimed

    def __iter__(self: Any) -> Any:
        trap.fire()
        return iter(extra)

    def __getitem__(self: Any, index: Any) -> Any:
        trap.fire()
        return extra if isinstance(index, slice) else "K"

    methods = {"__len__": __len__, "__iter__": __iter__, "__getitem__": __getitem__}
    if kind == 2:
        trap.container = type("LyingList", (list,), methods)(items)
        return trap.container
    return type("LyingTuple", (tuple,), methods)(items)


def hostile_input(pick: Pick) -> tuple[Any, list[object], Trap]:
    """A container of lying and plain items, what it truly holds, and its trap."""
    trap = Trap()
    makers = [*lying_items(trap), *missing_values(), *(lambda t=t: t for t in TOKENS)]
    items = [makers[pick(len(makers))]() for _ in range(pick(12))]
    container = lying_container(pick(4), items, trap, pick)
    return container, items, trap


def plain(items: list[object]) -> list[object]:
    """The items as they truly are: each str subclass as the str of its characters."""
    return [str.__str__(i) if issubclass(type(i), str) else i for i in items]


def outcome(call: object, *args: object) -> object:
    """What a call gave, comparable across cores."""
    try:
        result = call(*args)  # type: ignore[operator]
    except ParseError as e:
        # A str subclass by its characters (its __eq__ lies), anything else by its type
        # (NaN equals nothing, a lying object says anything)
        kind = type(e.token)
        token = str.__str__(e.token) if issubclass(kind, str) else kind.__name__
        return ("ParseError", e.reason, e.index, e.position, token)
    except (TypeError, ValueError, RuntimeError) as e:
        return (type(e).__name__, str(e))
    layout = None
    if result.row_offsets is not None:
        layout = (list(result.offsets), list(result.row_offsets), list(result.missing_rows))
    return (np.asarray(result).tobytes(), list(result.invalid), layout)
