"""Picks the core: the compiled one when it loads, the pure-Python twin otherwise.

``SASHITE_EPIN_IMPLEMENTATION``: unset = best available; ``cython`` = the compiled core
must load (ImportError otherwise: CI and the wheel tests use this, so a broken build can
never hide behind the twin); ``python`` = the twin.  ``SASHITE_EPIN_PURE_PYTHON=1`` is
the short way to ask for the twin.  Nobody but this module knows which one is active.
"""

from __future__ import annotations

import os
import sys

# typing is not imported at run time (it costs more than the rest of the import).
TYPE_CHECKING = False

_choice = os.environ.get("SASHITE_EPIN_IMPLEMENTATION", "").strip().lower()
if os.environ.get("SASHITE_EPIN_PURE_PYTHON", "") not in ("", "0"):
    _choice = "python"
if _choice not in ("", "cython", "python"):
    raise ImportError(
        f"SASHITE_EPIN_IMPLEMENTATION must be 'cython', 'python' or unset, not {_choice!a}"
    )

if TYPE_CHECKING:
    from . import _core_py as core
elif _choice == "python" or (_choice == "" and sys.implementation.name != "cpython"):
    from . import _core_py as core
else:
    try:
        from . import _core_c as core
    except ImportError:
        if _choice == "cython":
            raise
        from . import _core_py as core

IMPLEMENTATION: str = core.IMPLEMENTATION
TokenArray = core.TokenArray
release_memory = core.release_memory
memory_held = core.memory_held

__all__ = ["IMPLEMENTATION", "TokenArray", "core", "memory_held", "release_memory"]
