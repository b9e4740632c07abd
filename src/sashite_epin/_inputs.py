"""What kind of input ``parse_many`` was given, and whether a column given to it or to
``tokenize_many`` holds strings, decided once for both cores (the type checks only: the
reading is each core's own)."""

from __future__ import annotations

import io
import sys

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

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
    check_strings(tokens, "parse_many")  # a numpy, pyarrow or polars column of others
    cls = type(tokens)
    dtype = getattr(tokens, "dtype", None)
    kind = getattr(dtype, "kind", None)
    if hasattr(cls, "__arrow_c_array__") or hasattr(cls, "__arrow_c_stream__"):
        # Python objects underneath (numpy object dtype, pandas' python-storage
        # strings): their numpy array is read as is; anything else is Arrow data.
        in_numpy = kind == "O" and module_of(dtype).startswith("numpy")
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


def module_of(obj: object) -> str:
    """The module an object's type says it is from, or "" where that is not a str (a
    class may set __module__ to None, or to a str subclass whose methods run code)."""
    return module_of_class(type(obj))


def module_of_class(cls: type) -> str:
    module = getattr(cls, "__module__", None)
    return module if type(module) is str else ""


def own_items(items: Any) -> Any:
    """A list's or tuple's own items, as CPython's C functions read them: an exact tuple
    as it is, a list's or a subclass's storage copied (a subclass's __len__, __iter__ and
    __getitem__, which may say anything, are not asked; a list read whole as it was
    when the call began, whatever a handler does to it meanwhile)."""
    kind = type(items)
    if kind is tuple:
        return items
    if issubclass(kind, list):  # copied even when exact: a signal handler may change it
        return list.copy(items)
    return tuple.__getitem__(items, slice(None))


def is_sequence(items: object) -> bool:
    """A list or tuple, subclasses included, by its type (isinstance would ask an
    object's __class__, which may lie)."""
    return issubclass(type(items), (list, tuple))


# What each library's columns of strings are, in its own words: (for tokenize_many, for
# parse_many, which reads bytes too where they come as a column of their own).
EXPECTED: Final = {
    "pandas": (
        "dtype str, string or object, a category of them or an Arrow string type",
        "dtype str, string or object, a category of them or an Arrow string or binary type",
    ),
    "numpy": ("dtype U, StringDType or object", "dtype U, StringDType, object or S (bytes)"),
    "Arrow": (
        "utf8, large_utf8, string_view or a dictionary of them",
        "utf8, large_utf8, string_view, their binary twins or a dictionary of them",
    ),
    "polars": ("dtype String, Categorical or Enum", "dtype String, Categorical, Enum or Binary"),
}
ARROW_STRINGS: Final = frozenset(("string", "large_string", "string_view", "null"))
ARROW_BYTES: Final = frozenset(("binary", "large_binary", "binary_view"))
POLARS_STRINGS: Final = frozenset(("String", "Categorical", "Enum", "Null"))


def not_strings(caller: str, what: str, dtype: str, library: str) -> TypeError:
    """The TypeError for a column of what is not strings: the function called, the
    column's kind (``pandas Series``) and dtype, and what the library's columns of
    strings are.  Both cores' Arrow readers and the facade word it here."""
    expected = EXPECTED[library][caller == "parse_many"]
    word = "type" if library == "Arrow" or what.startswith("pyarrow") else "dtype"
    return TypeError(f"{caller} reads strings: this {what} has {word} {dtype}; expected {expected}")


def not_one_column(caller: str, columns: int) -> TypeError:
    """The TypeError for a table of other than one column (both cores' words)."""
    name = "tokens" if caller == "parse_many" else "texts"
    return TypeError(
        f"{caller} reads one column; this table has {columns} (pass the column of {name})"
    )


def check_strings(column: object, caller: str) -> None:
    """A TypeError (not_strings) for a numpy array, pandas, pyarrow or polars column
    whose dtype holds no strings, decided from the dtype alone (never row by row), so
    both cores refuse the same columns with the same words; anything else is left to
    the readers.  A pandas float column of NaN alone (what read_csv makes of an empty
    column) holds only missing values, and is read as such.  A column of strings
    passes in a few attribute reads (no exception raised and caught on the way)."""
    library = module_of(column).partition(".")[0]
    if library not in ("numpy", "pandas", "pyarrow", "polars"):
        return
    if library == "pyarrow":
        arrow = arrow_column_type(column)
        if arrow is not None and not arrow_strings(arrow, caller):
            raise not_strings(caller, described(column), str(arrow), "Arrow")
        return
    dtype = getattr(column, "dtype", None)
    if dtype is None and library == "polars" and getattr(column, "width", 0) == 1:
        dtype = column.dtypes[0]  # type: ignore[attr-defined]  # a one-column frame
    if dtype is None:
        return
    if library == "polars":
        name = dtype.__name__ if isinstance(dtype, type) else type(dtype).__name__
        if name not in POLARS_STRINGS and (name != "Binary" or caller != "parse_many"):
            raise not_strings(caller, described(column), str(dtype), "polars")
        return
    if library == "numpy":
        kind = getattr(dtype, "kind", "O")
        if kind in "UOT":
            return
        # parse_many reads bytes too: dtype S, or a byte buffer's (u1, i1)
        if caller == "parse_many" and (
            kind == "S" or (kind in "ui" and getattr(dtype, "itemsize", 0) == 1)
        ):
            return
        raise not_strings(caller, described(column), str(dtype), "numpy")
    if type(dtype).__name__ == "NumpyEADtype":  # a NumpyExtensionArray's: numpy's own
        dtype = dtype.numpy_dtype
    if not pandas_strings(dtype, caller) and not all_missing(column, dtype):
        raise not_strings(caller, described(column), pandas_dtype_name(dtype), "pandas")


def described(column: object) -> str:
    """A column's kind as its library names it: ``numpy array``, ``pandas Series``,
    ``pyarrow Table's column`` (a table or frame: its one column)."""
    cls = type(column)
    name = "array" if cls.__name__ == "ndarray" else cls.__name__
    whole = not hasattr(column, "dtype") and not hasattr(column, "type")
    return f"{module_of_class(cls).partition('.')[0]} {name}{chr(39) + 's column' if whole else ''}"


def all_missing(column: Any, dtype: Any) -> bool:
    """Whether a pandas column is numpy floats, every one NaN (read as missing values)."""
    if getattr(dtype, "kind", None) != "f" or not module_of(dtype).startswith("numpy"):
        return False
    return bool(column.isna().all())


def arrow_column_type(column: Any) -> Any:
    """The Arrow type of a pyarrow array, chunked array or one-column table or batch;
    None for anything else (a buffer, a table of several columns: the readers' own)."""
    kind = getattr(column, "type", None)
    if kind is None:
        schema = getattr(column, "schema", None)
        if schema is None or len(schema) != 1:
            return None
        kind = schema.types[0]
    return kind if module_of(kind).startswith("pyarrow") else None


def arrow_strings(kind: Any, caller: str) -> bool:
    """Whether a pyarrow type is one the readers take: strings (their dictionary, the
    null type, a struct of one of them), their binary twins for parse_many; an
    extension type by its storage."""
    name = str(kind)
    if name in ARROW_STRINGS or (caller == "parse_many" and name in ARROW_BYTES):
        return True
    if hasattr(kind, "storage_type"):
        return arrow_strings(kind.storage_type, caller)
    if name.startswith("struct<") and kind.num_fields == 1:
        return arrow_strings(kind.field(0).type, caller)  # a table's rows: its column
    if name.startswith("dictionary<"):
        name = str(kind.value_type)
        return name in ARROW_STRINGS or (caller == "parse_many" and name in ARROW_BYTES)
    return False


def pandas_strings(dtype: Any, caller: str) -> bool:
    """Whether a pandas column of this dtype holds strings: object, str or string, a
    category of those, an Arrow string (or for parse_many binary) type."""
    name = type(dtype).__name__
    if name == "CategoricalDtype":
        return pandas_strings(dtype.categories.dtype, caller)
    if name == "ArrowDtype":
        return arrow_strings(dtype.pyarrow_dtype, caller)
    in_numpy = module_of(dtype).startswith("numpy")
    return name == "StringDtype" or (in_numpy and getattr(dtype, "kind", None) == "O")


def pandas_dtype_name(dtype: Any) -> str:
    """A pandas dtype as pandas prints it, a category's with its categories' dtype."""
    if type(dtype).__name__ == "CategoricalDtype":
        return f"category (of {dtype.categories.dtype})"
    return str(dtype)


def is_missing(item: object) -> bool:
    """None, a float NaN (numpy's too), pandas.NA or pandas.NaT: a missing value, not a
    wrong type.  Types are compared by identity (not isinstance, which asks an object's
    __class__), as the compiled core reads them without running Python code."""
    if item is None:
        return True
    kind = type(item)
    if issubclass(kind, float):
        return float.__ne__(item, item)  # type: ignore[operator]  # NaN only
    always, nan = missing_types()
    if any(kind is t for t in always):
        return True
    if any(kind is t for t in nan):
        value = float(item)  # type: ignore[arg-type]  # numpy's own C conversion
        return value != value
    return False


# The modules the missing types come from, as last looked up, and the types.
_MISSING_MODULES = ("pandas._libs.missing", "pandas._libs.tslibs.nattype", "numpy")
_missing_seen: list[Any] = [None, (), ()]


def missing_modules() -> tuple[object, ...]:
    """The modules the missing types come from, as sys.modules holds them now (None for
    one not imported, or still being imported by another thread: its types may not be
    made yet, and the same module object must not pass for a finished one later): a
    change of any is a reason to look the types up again."""
    modules = sys.modules
    now = (modules.get(name) for name in _MISSING_MODULES)
    return tuple(None if initializing(module) else module for module in now)


def initializing(module: object) -> bool:
    """True while a module's import runs (importlib's own flag on its spec): in
    sys.modules already, but half made, until the thread importing it is done."""
    return getattr(getattr(module, "__spec__", None), "_initializing", False) is True


def missing_types() -> tuple[tuple[type, ...], tuple[type, ...]]:
    """The types whose objects are missing values besides None and float NaN, of the
    modules loaded now (neither pandas nor numpy is imported here): pandas.NA's and
    pandas.NaT's types (always missing), and numpy's float scalar types that are not
    float (missing when NaN).  Looked up again when one of those modules changed."""
    now = missing_modules()
    seen = _missing_seen[0]
    if seen is None or any(a is not b for a, b in zip(now, seen, strict=True)):
        missing, nattype, numpy = now
        always = (_type_of(missing, "NAType"), _type_of(nattype, "NaTType"))
        nan = (
            _type_of(numpy, "float16"),
            _type_of(numpy, "float32"),
            _type_of(numpy, "longdouble"),
        )
        _missing_seen[:] = (
            now,
            # a float subclass is a float: NaN only (the compiled core tests these
            # types before it asks whether an item is a float)
            tuple(t for t in always if t is not None and not issubclass(t, float)),
            tuple(t for t in nan if t is not None and not issubclass(t, float)),
        )
    return _missing_seen[1], _missing_seen[2]


def _type_of(module: object, name: str) -> type | None:
    kind = getattr(module, name, None) if module is not None else None
    return kind if isinstance(kind, type) else None


# Arrow type names for messages ("int64" for the format "l"), and what malformed Arrow
# data is called: the same words from both cores' readers.
ARROW_TYPE_NAMES: Final = {
    "n": "null", "u": "utf8", "U": "large_utf8", "vu": "string_view",
    "b": "bool", "c": "int8", "C": "uint8", "s": "int16", "S": "uint16", "i": "int32",
    "I": "uint32", "l": "int64", "L": "uint64", "e": "float16", "f": "float32",
    "g": "float64", "z": "binary", "Z": "large_binary", "vz": "binary_view",
    "tdD": "date32", "tdm": "date64", "+l": "list", "+L": "large_list", "+s": "struct",
}  # fmt: skip
MALFORMED_OFFSETS: Final = "Arrow offsets go backwards, below zero or past 2**59"
MALFORMED_VIEW: Final = "an Arrow string view points outside its data buffer"
MALFORMED_INDEX: Final = "an Arrow dictionary index is outside the dictionary"
MALFORMED_BUFFERS: Final = "an Arrow array lacks a buffer its entries need"

# What an Arrow C Data Interface struct may state, checked before any buffer is read:
# offsets and lengths whose byte sizes (16 bytes an entry at most) fit in an int64.
ARROW_MAX_EXTENT: Final = (2**63 - 1) // 16
# The buffers and children each layout has: (least, most or None, n_children).  The
# null layout has no buffer, but polars exports a (NULL) validity one; string_view has
# its validity, views, data buffers and their sizes.
ARROW_LAYOUT_PARTS: Final = {
    "null": (0, 1, 0),
    "strings": (3, 3, 0),
    "views": (3, None, 0),
    "indices": (2, 2, 0),
    "struct": (1, 1, 1),
}


def arrow_lie(struct: str, problem: str) -> str:
    """The message of the ValueError for an Arrow struct that states what cannot be:
    ``Arrow array: length -2``.  Both cores' readers name the struct and the field."""
    return f"Arrow {struct}: {problem}"


def arrow_array_lie(
    struct: str,
    layout: str,
    length: int,
    null_count: int,
    offset: int,
    n_buffers: int,
    buffers: bool,
    n_children: int,
) -> str | None:
    """What an Arrow array's header (its fields, ``buffers`` whether that pointer is
    set) states that cannot be, as arrow_lie's message; None when nothing.  The
    children's and dictionary's pointers are each core's to check."""
    if length < 0:
        return arrow_lie(struct, f"length {length}")
    if offset < 0:
        return arrow_lie(struct, f"offset {offset}")
    if null_count < -1:
        return arrow_lie(struct, f"null_count {null_count}")
    if length > ARROW_MAX_EXTENT - offset:
        return arrow_lie(struct, f"offset {offset} + length {length} is too large")
    least, most, want_children = ARROW_LAYOUT_PARTS[layout]
    if n_buffers < least or n_buffers > (ARROW_MAX_EXTENT if most is None else most):
        need = (
            f"at least {least}" if most is None
            else str(least) if least == most
            else f"{least} or {most}"
        )  # fmt: skip
        return arrow_lie(struct, f"n_buffers {n_buffers} ({layout} has {need})")
    if n_buffers and not buffers:
        return arrow_lie(struct, "buffers is NULL")
    if n_children != want_children:
        return arrow_lie(struct, f"n_children {n_children} ({layout} has {want_children})")
    return None


def arrow_type_name(fmt: str) -> str:
    """A readable name of an Arrow format string."""
    return ARROW_TYPE_NAMES.get(fmt, ARROW_TYPE_NAMES.get(fmt[:2], repr(fmt)))


def machine_memory() -> int:
    """This machine's memory in bytes, or 2**63 where it cannot be told."""
    import os

    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 2**63


def check_fits(entries: int, size: int) -> None:
    """A MemoryError for a column whose entries, size bytes each, would pass this
    machine's memory, before anything is built for it (both cores).  Python's
    allocator does not always say no to such a request itself: a free-threaded
    interpreter's (mimalloc) reserves the addresses and the system kills the process
    once they are touched."""
    if entries * size > machine_memory():
        raise MemoryError()  # as a failed allocation
