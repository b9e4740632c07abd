"""Stands where the compiled core is missing (a pure-Python install): the compiled
_core_c extension, when installed, is found before this file and this never runs.

The facade falls back to the twin on this ImportError; a module that cimports
sashite_epin (the C API) imports sashite_epin._core_c when it loads and stops here,
with the cause named, instead of at "No module named" or a missing capsule."""

raise ImportError(
    "sashite_epin._core_c: the compiled core is not installed (this is a pure-Python "
    "install of sashite-epin), and a module that cimports sashite_epin calls it: "
    "install sashite-epin from a wheel for this platform, or build it with a C "
    "compiler and Cython (not SASHITE_EPIN_PURE_PYTHON=1)"
)
