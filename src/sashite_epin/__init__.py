"""sashite-epin: PIN and EPIN piece identifiers (Sashité notations), parsed by a compiled
core with a pure-Python twin.

    >>> from sashite_epin import Epin
    >>> e = Epin.parse("+R^'")
    >>> e.pin.abbr, e.pin.side, e.pin.state, e.pin.is_terminal, e.is_derived
    ('R', <Side.FIRST: 'first'>, <State.ENHANCED: 'enhanced'>, True, True)
"""

from ._boards import Boards
from ._core import IMPLEMENTATION, TokenArray, memory_held, release_memory
from ._epin import Epin
from ._errors import (
    EPIN_MAX_LENGTH,
    EPIN_TOKEN_COUNT,
    PIN_MAX_LENGTH,
    PIN_TOKEN_COUNT,
    ParseError,
)
from ._frames import TokenRows
from ._layout import CODE_LIMIT, CODE_NONE
from ._pin import Pin
from ._schema import schema

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._enums import Side, State
    from ._reason import Reason
    from ._style import NativeStyles

    BYTES_KERNEL: str
del TYPE_CHECKING  # an annotation helper, not a name of the package

__version__ = "0.1.0"

# The public classes are documented, printed and pickled under the package's own name
# (``sashite_epin.ParseError`` in a traceback), not the private module that defines them.
# (Reason, Side and State set theirs where they are made.)
for _public in (Epin, ParseError, Pin):
    _public.__module__ = __name__
del _public


def __getattr__(name: str) -> object:
    # BYTES_KERNEL: the SIMD kernel that reads byte buffers and Arrow string columns
    # into parse_many and writes a result's Arrow export and to_bytes() ("avx512",
    # "avx2", "sse2", "neon", "portable"; "python" for the twin), best for this CPU unless
    # SASHITE_EPIN_KERNEL names one.  Asked of the core each time, as tests and
    # benchmarks switch it.
    if name == "BYTES_KERNEL":
        from ._core import core

        return core.bytes_kernel()
    # Imported when first asked for, as the modules they need would double the import
    # time of everything else: Side, State and Reason are enums (enum imports functools
    # and collections), NativeStyles (style resolution, a context-level step) is a
    # typing.Generic.  Parsing needs none of them.
    if name in ("Side", "State"):
        from . import _enums

        return getattr(_enums, name)
    if name == "Reason":
        from ._reason import Reason

        return Reason
    if name == "NativeStyles":
        from ._style import NativeStyles

        return NativeStyles
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "BYTES_KERNEL",
    "CODE_LIMIT",
    "CODE_NONE",
    "EPIN_MAX_LENGTH",
    "EPIN_TOKEN_COUNT",
    "IMPLEMENTATION",
    "PIN_MAX_LENGTH",
    "PIN_TOKEN_COUNT",
    "Boards",
    "Epin",
    "NativeStyles",
    "ParseError",
    "Pin",
    "Reason",
    "Side",
    "State",
    "TokenArray",
    "TokenRows",
    "__version__",
    "memory_held",
    "release_memory",
    "schema",
]
