# cython: language_level=3
"""C-level declarations of the compiled core (constants shared with _layout / _errors)."""

cdef enum:
    CODE_LIMIT = 832      # every code is below this (see _layout.py)
    SHAPE_COUNT = 4096    # 4 positions x 3-bit byte class
    SHAPE_VALID = 0x8000

# Byte classes.
cdef enum:
    K_OTHER = 0
    K_PLUS = 1
    K_MINUS = 2
    K_LETTER = 3
    K_CARET = 4
    K_APOS = 5
    K_ABSENT = 6

# Reasons (the same numbers as sashite_epin._errors).
cdef enum:
    R_EMPTY = 1
    R_TOO_LONG = 2
    R_ONE_LETTER = 3
    R_STATE_MODIFIER = 4
    R_TERMINAL_MARKER = 5
    R_DERIVATION_MARKER = 6
    R_UNEXPECTED = 7

cdef int scan_token(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil
cdef int format_token(int code, char* out) noexcept nogil
