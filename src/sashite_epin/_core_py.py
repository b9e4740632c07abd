"""Pure-Python twin of the compiled core ``_core_c.pyx``: the same names, the same
results, the same error reasons.  It runs where no compiled wheel exists, and it is the
oracle the compiled core is tested against (docs/design.md, "Why a twin").

Like ``_core_c.pyx``, this module is the single-token API on top of its parts: the
grammar (``_scan_py``), the interned objects (``_objects_py``), the result type
(``_array_py``), the bulk readers (``_bulk_py``) and back-to-back scanning
(``_text_py``).  The parts never import this module.  Its public names are exactly
those of ``_core_c.pyi``; the docstrings here are the contracts ``help(Pin.parse)`` and
friends show, and the compiled core carries the same ones.
"""

from typing import Any as _Any

from . import _bulk_py
from ._array_py import (
    TokenArray,
    from_codes,
    memory_held,
    rebuild_token_array,
    release_memory,
    rows_of,
    set_labels,
)
from ._bulk_py import line_faults, parse_many
from ._errors import ParseError as _ParseError
from ._errors import reason_text as _reason_text
from ._objects_py import objects as _objects
from ._objects_py import register
from ._placement_py import format_boards, lay_out_boards, scan_boards
from ._scan_py import format_code
from ._scan_py import scan as _scan
from ._text_py import scan_epin, scan_pin, tokenize_epin, tokenize_many, tokenize_pin

IMPLEMENTATION = "python"


def _exact(s: object, notation: str) -> str:
    if not isinstance(s, str):
        raise TypeError(f"{notation} token must be str, not {type(s).__name__}")
    # An exact str: a subclass's __len__/__getitem__/__eq__ take no part in parsing.
    return s if type(s) is str else str.__str__(s)


def _code(s: object, epin: bool) -> int:
    notation = "EPIN" if epin else "PIN"
    code = _scan(_exact(s, notation), epin)
    if code < 0:
        raise _ParseError(s, _reason_text(-code, notation), notation)
    return code


def _scan_or_fail(s: object, epin: bool) -> int:
    """The code of s, or -1 when s is no str or no token: the never-raising paths."""
    if not isinstance(s, str):
        return -1
    return _scan(s if type(s) is str else str.__str__(s), epin)


def pin_code(s: object) -> int:
    """The code of a PIN token; TypeError for a non-str, ParseError when invalid."""
    return _code(s, False)


def epin_code(s: object) -> int:
    """The code of an EPIN token; TypeError for a non-str, ParseError when invalid."""
    return _code(s, True)


def parse_pin(s: object) -> _Any:
    """The Pin of a PIN token: ParseError (a ValueError) if ``s`` is not one, TypeError
    if it is not a str."""
    return _objects(False)[_code(s, False)]


def parse_epin(s: object) -> _Any:
    """The Epin of an EPIN token: ParseError (a ValueError) if ``s`` is not one,
    TypeError if it is not a str."""
    return _objects(True)[_code(s, True)]


def safe_parse_pin(s: object) -> _Any:
    """The Pin of a PIN token, or None for anything else; never raises."""
    code = _scan_or_fail(s, False)
    return None if code < 0 else _objects(False)[code]


def safe_parse_epin(s: object) -> _Any:
    """The Epin of an EPIN token, or None for anything else; never raises."""
    code = _scan_or_fail(s, True)
    return None if code < 0 else _objects(True)[code]


def is_valid_pin(s: object) -> bool:
    """Whether ``s`` is a PIN token (a str matching the whole grammar); never raises."""
    return _scan_or_fail(s, False) >= 0


def is_valid_epin(s: object) -> bool:
    """Whether ``s`` is an EPIN token (a str matching the whole grammar); never raises."""
    return _scan_or_fail(s, True) >= 0


# The twin has one way to read byte buffers (bytes.split()); the compiled core names
# its SIMD kernels here.
KERNELS = ("python",)


def cpuid_kernels() -> tuple[str, ...]:
    """The x86 kernels that CPUID and XGETBV say this CPU runs, best first: how every
    build chooses.  For tests: they hold it against the system's reading of the CPU."""
    return ()


def bytes_kernel() -> str:
    """The name of the kernel parse_many uses for byte buffers and Arrow string
    columns, and a result's Arrow export and to_bytes() for their output."""
    return KERNELS[0]


def use_bytes_kernel(name: str) -> str:
    """Make parse_many use kernel `name` (one of KERNELS) for byte buffers and Arrow
    string columns, and the Arrow export and to_bytes() for their output; returns the
    one used before.  For tests and benchmarks: every kernel gives the same results."""
    if name not in KERNELS:
        raise ValueError(f"the bytes kernel must be one of {', '.join(KERNELS)}, not {name!a}")
    return KERNELS[0]


def use_piece_size(size: int) -> int:
    """Make byte buffers read size bytes a piece (to the next separator); returns the
    size used before.  For tests: pieces must not change any result."""
    if size < 1:
        raise ValueError(f"a piece is at least 1 byte, not {size}")
    before, _bulk_py._CHUNK_BYTES = _bulk_py._CHUNK_BYTES, size
    return before


def use_arrays_in_place(on: bool) -> bool:
    """Tests: write tokenize_many's offsets into their arrays in place where the core
    can (the compiled one, when _pyarray.h reads array.array right), or build them
    aside and copy them in; returns the setting before."""
    return False  # the twin builds them with the array module's own methods


__all__ = [
    "IMPLEMENTATION",
    "KERNELS",
    "TokenArray",
    "bytes_kernel",
    "cpuid_kernels",
    "epin_code",
    "format_boards",
    "format_code",
    "from_codes",
    "is_valid_epin",
    "is_valid_pin",
    "lay_out_boards",
    "line_faults",
    "memory_held",
    "parse_epin",
    "parse_many",
    "parse_pin",
    "pin_code",
    "rebuild_token_array",
    "register",
    "release_memory",
    "rows_of",
    "safe_parse_epin",
    "safe_parse_pin",
    "scan_boards",
    "scan_epin",
    "scan_pin",
    "set_labels",
    "tokenize_epin",
    "tokenize_many",
    "tokenize_pin",
    "use_arrays_in_place",
    "use_bytes_kernel",
    "use_piece_size",
]
