"""What kind of input ``parse_many`` was given, decided once for both cores (the type
checks only: the reading is each core's own)."""

from __future__ import annotations

import io

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

ARROW_ARRAY: Final = "arrow-array"
ARROW_STREAM: Final = "arrow-stream"
OBJECTS: Final = "objects"
STRING_DTYPE: Final = "string-dtype"
OTHER: Final = "other"


def input_kind(tokens: object) -> str:
    """ARROW_ARRAY / ARROW_STREAM for an object exporting the Arrow PyCapsule interface;
    OBJECTS for a pandas Series or Index of Python objects (numpy object dtype, or
    strings stored as Python objects), read through its numpy array; STRING_DTYPE for
    a numpy 2 StringDType array; OTHER for everything else (lists, buffers,
    iterables).  A file object is a TypeError."""
    cls = type(tokens)
    dtype = getattr(tokens, "dtype", None)
    kind = getattr(dtype, "kind", None)
    if hasattr(cls, "__arrow_c_array__") or hasattr(cls, "__arrow_c_stream__"):
        # Python objects underneath (numpy object dtype, pandas' python-storage
        # strings): their numpy array is read as is; anything else is Arrow data.
        in_numpy = kind == "O" and type(dtype).__module__.startswith("numpy")
        if (in_numpy or getattr(dtype, "storage", None) == "python") and hasattr(
            tokens, "to_numpy"
        ):
            return OBJECTS
        return ARROW_ARRAY if hasattr(cls, "__arrow_c_array__") else ARROW_STREAM
    if kind == "T" and hasattr(tokens, "astype"):
        return STRING_DTYPE
    if isinstance(tokens, io.IOBase):
        raise TypeError(
            "parse_many reads data, not a file object: pass the file's bytes "
            "(open(path, 'rb').read() or an mmap: tokens split on whitespace) "
            "or a list of its lines"
        )
    return OTHER


def is_missing(item: object) -> bool:
    """None, a float NaN (numpy's too) or pandas.NA: a missing value, not a wrong type."""
    if item is None:
        return True
    if isinstance(item, float):
        return float.__ne__(item, item)  # NaN only; math would cost 1 ms of import
    kind = type(item)  # pandas.NA's type, recognised without importing pandas
    return kind.__name__ == "NAType" and str(kind.__module__).startswith("pandas")


# Arrow type names for messages ("int64" for the format "l"), and what malformed Arrow
# data is called: the same words from both cores' readers.
ARROW_TYPE_NAMES: Final = {
    "b": "bool", "c": "int8", "C": "uint8", "s": "int16", "S": "uint16", "i": "int32",
    "I": "uint32", "l": "int64", "L": "uint64", "e": "float16", "f": "float32",
    "g": "float64", "z": "binary", "Z": "large_binary", "vz": "binary_view",
    "tdD": "date32", "tdm": "date64", "+l": "list", "+L": "large_list", "+s": "struct",
}  # fmt: skip
MALFORMED_OFFSETS: Final = "Arrow offsets go backwards or below zero"
MALFORMED_VIEW: Final = "an Arrow string view points outside its data buffer"
MALFORMED_INDEX: Final = "an Arrow dictionary index is outside the dictionary"
MALFORMED_BUFFERS: Final = "an Arrow array lacks a buffer its entries need"


def arrow_type_name(fmt: str) -> str:
    """A readable name of an Arrow format string."""
    return ARROW_TYPE_NAMES.get(fmt, ARROW_TYPE_NAMES.get(fmt[:2], repr(fmt)))
