"""TokenArray's thin helpers for the data libraries, the same for both cores: each reads
the result's Arrow export (its PyCapsule interface) with the library it is named after,
imported only when asked for.  None of them is a dependency of the package."""

from __future__ import annotations

import sys

from ._inputs import initializing
from ._messages import LYING_LAYOUT

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import pandas
    import polars
    import pyarrow


_modules = sys.modules


def _library(name: str, extra: str) -> Any:
    module = _modules.get(name)  # imported already: no import machinery per call
    # A module another thread is still importing is in sys.modules already, half made
    # (no DataFrame yet): import_module waits for that import to end.
    if module is not None and not initializing(module):
        return module
    try:
        import importlib  # here: the common path never needs it

        return importlib.import_module(name)
    except ImportError:
        raise ImportError(
            f"this needs {name}: pip install 'sashite-epin[{extra}]' (or {name} itself)"
        ) from None


def to_arrow(result: Any) -> pyarrow.Table:
    """A pyarrow Table of the result's columns.

    The export's array imported against a pyarrow schema imported once per shape (the
    schema is the same whatever the data): pyarrow's import of the schema costs more
    than a parse of a few thousand entries, which is what an engine hands a UDF.  Any
    other exporter (a TokenRows) goes through pyarrow's own reading."""
    pa = _library("pyarrow", "arrow")
    if not hasattr(result, "offsets"):
        return pa.table(result)
    key = (id(pa), result.notation, result.offsets is not None)
    schema = _SCHEMAS.get(key)
    if schema is None:
        schema = pa.schema(pa.DataType._import_from_c_capsule(result.__arrow_c_schema__()))
        _SCHEMAS[key] = schema
    array = result.__arrow_c_array__()[1]
    try:
        # pyarrow moves the array out of the capsule (whose release then frees nothing).
        batch = pa.RecordBatch._import_from_c(_address(array), schema)
    except (AttributeError, ImportError):  # no ctypes.pythonapi, or another pyarrow
        return pa.table(result)
    return pa.Table.from_batches([batch], schema)


_SCHEMAS: dict[tuple[int, str, bool], Any] = {}
_CAPSULE_POINTER: list[Any] = []


def _address(capsule: object) -> int:
    """Where an "arrow_array" capsule's ArrowArray is."""
    if not _CAPSULE_POINTER:
        import ctypes  # here: only the first export needs it

        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        _CAPSULE_POINTER.append(get)
    return int(_CAPSULE_POINTER[0](capsule, b"arrow_array"))


class TokenRows:
    """A ``tokenize_many`` result by input row (``TokenArray.by_row()``): one entry per
    text, exported as one field, ``tokens``, a ``large_list`` of the row's tokens with
    the token's fields and its ``offset`` in the text; null where the text was missing,
    empty where it held none.  pyarrow, polars, pandas and DuckDB read it through the
    Arrow PyCapsule interface, as they read the result itself; ``labels`` are the
    input's own (a pandas Series' index), one per row."""

    __slots__ = ("_labels", "_result")

    def __init__(self, result: Any, labels: Any) -> None:
        self._result, self._labels = result, labels

    def __len__(self) -> int:
        return len(self._result.row_offsets) - 1

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its parts: pickle protocols 0 and 1 cannot save __slots__ alone.
        return (TokenRows, (self._result, self._labels))

    def __repr__(self) -> str:
        return f"<TokenRows {self._result.notation} ({len(self)} rows, {len(self._result)} tokens)>"

    @property
    def tokens(self) -> Any:
        """The TokenArray this is a view of."""
        return self._result

    @property
    def labels(self) -> Any:
        """The pandas Index of the input's rows, or None."""
        return self._labels

    def __arrow_c_schema__(self) -> object:
        """The schema, the same whatever the data: a struct of one field, tokens."""
        return self._result._by_row_arrow("schema")

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        """The rows as one Arrow struct array: what ``pyarrow.array`` and
        ``pyarrow.table`` read."""
        return self._result._by_row_arrow("array")  # type: ignore[no-any-return]

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The rows as an Arrow stream of one chunk: what ``polars.DataFrame``, DuckDB
        and pandas read."""
        return self._result._by_row_arrow("stream")

    def to_arrow(self) -> pyarrow.Table:
        """A pyarrow Table of one column, tokens; needs pyarrow."""
        return to_arrow(self)

    def to_pandas(self, index: Any = None) -> pandas.DataFrame:
        """A pandas DataFrame of one column, tokens, Arrow-backed
        (``list<struct>[pyarrow]``: pandas' ``.list`` and ``.struct`` accessors read
        it), on the input's index (``labels``): ``index=`` gives another,
        ``index=False`` a RangeIndex.  Needs pandas and pyarrow."""
        pd = _library("pandas", "pandas")
        frame = to_arrow(self).to_pandas(types_mapper=pd.ArrowDtype)
        return _on_labels(frame, self._labels, index)

    def to_polars(self) -> polars.DataFrame:
        """A polars DataFrame of one column, tokens (a list of structs); needs polars."""
        frame: polars.DataFrame = _library("polars", "polars").DataFrame(self)
        return frame


def _on_labels(frame: Any, labels: Any, index: Any) -> Any:
    """The frame on the input's labels, or index's (False: a RangeIndex)."""
    labels = labels if index is None else None if index is False else index
    return frame if labels is None else frame.set_axis(labels, axis=0)


def named(frame: Any, token: bool, prefix: str) -> Any:
    """A frame (pyarrow Table, pandas or polars DataFrame) of a result's columns without
    its token column unless ``token``, each column's name after ``prefix``: so a parse
    joins back onto the frame its tokens came from, whose own column holds them."""
    if token is True and type(prefix) is str and not prefix:
        return frame  # the defaults: the frame as it is (a UDF's batch pays nothing here)
    if not isinstance(token, bool):
        raise TypeError(f"token must be True or False, not {type(token).__name__}")
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, not {type(prefix).__name__}")
    names = list(frame.columns) if not hasattr(frame, "column_names") else frame.column_names
    if not token and "token" in names:
        if hasattr(frame, "drop_columns"):  # pyarrow
            frame = frame.drop_columns(["token"])
        elif hasattr(frame, "iloc"):  # pandas
            frame = frame.drop(columns=["token"])
        else:  # polars
            frame = frame.drop("token")
        names.remove("token")
    if prefix:
        renamed = [prefix + name for name in names]
        if hasattr(frame, "rename_columns"):  # pyarrow
            return frame.rename_columns(renamed)
        if hasattr(frame, "iloc"):  # pandas
            return frame.set_axis(renamed, axis=1)
        return frame.rename(dict(zip(names, renamed, strict=True)))
    return frame


def to_pandas(result: Any, index: Any = None, token: bool = True) -> Any:
    """A pandas DataFrame of the result's columns with fixed dtypes: the dictionary
    fields categorical (their categories are every word, whatever the data), terminal
    and derived ``boolean`` (nullable), valid ``bool``; on the result's labels unless
    ``index`` gives others (``False``: a RangeIndex).

    Built column by column from the export's buffers with pandas' own constructors,
    nothing per row in Python: each categorical from its codes (the field's dictionary
    indices, -1 where the entry is invalid), the nullable booleans from their values
    and a mask, the token column (the text as read of an invalid entry is only there)
    through pyarrow's own conversion, as the whole table went before.  The export is
    written in one pass by the compiled core (the twin's by pyarrow); each column here
    is one or two passes over a byte per entry."""
    pd = _library("pandas", "pandas")
    pa = _library("pyarrow", "arrow")
    import numpy  # pandas brings it

    struct = pa.array(result)  # the export: the compiled core's is read in place
    count = len(struct)
    dtypes = _categorical_dtypes(pd, pa)
    # No entry marked invalid (a count, made without an object per entry): no mask to
    # apply, every reason missing, each column a pass less.
    marked = len(result.errors()) > 0
    if marked:
        flags = _booleans(numpy, struct.field("valid"), count)  # 1 where valid
        mask = flags == 0
    else:
        flags = numpy.ones(count, bool)
    columns: dict[str, Any] = {}
    for k in range(struct.type.num_fields):
        name = struct.type.field(k).name
        child = struct.field(k)
        if name == "token":
            if not token:  # left out: named() drops nothing then
                continue
            table = pa.Table.from_arrays([child], ["token"])
            columns[name] = table.to_pandas()["token"].array
        elif name in dtypes:  # dictionary indices: 1 + index where set, then - 1
            if not marked:
                if name == "reason":
                    codes = numpy.full(count, -1, numpy.int8)
                else:
                    codes = _int8(numpy, child.indices, count).copy()
            else:
                codes = _int8(numpy, child.indices, count) + numpy.int8(1)
                codes *= (mask if name == "reason" else flags).view(numpy.int8)
                codes -= numpy.int8(1)
            columns[name] = pd.Categorical.from_codes(codes, dtype=dtypes[name], validate=False)
        elif name in ("terminal", "derived"):
            values = _booleans(numpy, child, count)
            nulls = mask.copy() if marked else numpy.zeros(count, bool)
            columns[name] = pd.arrays.BooleanArray(values, nulls, copy=False)
        elif name == "valid":
            columns[name] = flags
        else:  # tokenize_many's row and offset: int64, never null
            columns[name] = numpy.array(child.to_numpy(zero_copy_only=False))
    frame = pd.DataFrame(columns, copy=False)
    return _on_labels(frame, result.labels, index)


def _int8(numpy: Any, array: Any, count: int) -> Any:
    """An int8 Arrow array's values (whatever they are under its nulls), read in place."""
    buffer = array.buffers()[1]
    if buffer is None or not count:
        return numpy.zeros(count, numpy.int8)
    return numpy.frombuffer(buffer, numpy.int8, count, array.offset)


def _booleans(numpy: Any, array: Any, count: int) -> Any:
    """A bool Arrow array's values (its bit-packed buffer, whatever it holds under its
    nulls) as a new numpy bool array."""
    buffer = array.buffers()[1]
    if buffer is None or not count:
        return numpy.zeros(count, bool)
    bits = numpy.frombuffer(buffer, numpy.uint8)
    start = array.offset
    values = numpy.unpackbits(bits, count=start + count, bitorder="little")[start:]
    return values.view(bool) if not start else values.astype(bool)


_DTYPES: dict[tuple[int, object], dict[str, Any]] = {}


def _categorical_dtypes(pd: Any, pa: Any) -> dict[str, Any]:
    """The categorical fields' dtypes, each made once (for each pandas and each setting
    of its string inference) by pyarrow's conversion of the field's dictionary, so that
    its categories are what converting the whole table gave."""
    # pyarrow converts strings to pandas' str dtype from pandas 3 on, and before that
    # where pandas' future.infer_string option is set (read only there: pandas 3
    # deprecates it, and its warning costs a millisecond a call).
    mode: object = True
    if pd.__version__.startswith(("0.", "1.", "2.")):
        try:
            mode = pd.get_option("future.infer_string")
        except Exception:  # a pandas without the option
            mode = None
    key = (id(pd), mode)
    dtypes = _DTYPES.get(key)
    if dtypes is None:
        words = {
            "abbr": [chr(c) for c in range(65, 91)],
            "side": ["first", "second"],
            "state": ["normal", "enhanced", "diminished"],
            "reason": _reason_names(),
        }
        empty = pa.array([], pa.int8())
        dtypes = {
            name: pa.DictionaryArray.from_arrays(empty, pa.array(values, pa.string()))
            .to_pandas()
            .dtype
            for name, values in words.items()
        }
        _DTYPES[key] = dtypes
    return dtypes


def to_polars(result: Any, token: Any = None, reasons: Any = None) -> Any:
    """A polars DataFrame of the result's columns, side and state categorical.

    Built from the codes where polars has the constructors for it (its categoricals
    share one global set of categories, polars 1.32 on): each categorical gathered by
    the entries' numbers from a Series of its words (a missing word where the entry is
    invalid), its words first made categories in the order the rows first hold them, as
    polars' own import of the export makes them; the token column written by the
    compiled core as polars holds a String column (utf8_view views, on a thread of its
    own while the rest is made, from _VIEWS_BESIDE entries), elsewhere gathered by the
    codes from the tokens, or, where entries are marked invalid (whose text as read is
    only in the export), converted from the export's utf8 field; the booleans from the
    records (where the export was made, its own bool fields, which polars takes as they
    are, nulls and all).  Elsewhere polars imports the export itself.

    ``token``: a polars String Series of the very texts the result was parsed from (the
    polars namespace's): the token column then, as a valid entry's text is its token
    and an invalid one's is the text as read, so neither export nor gather is made;
    ``False``: no token column (the polars namespace's ``token=False``), nothing made
    for it.  ``reasons``: an Enum of the reason names (the namespace's), the reason
    column's dtype, made from the reason numbers rather than cast from a Categorical."""
    pl = _library("polars", "polars")
    if not hasattr(pl, "Categories"):
        return pl.DataFrame(result)
    try:
        import numpy  # polars does not bring it
    except ImportError:
        return pl.DataFrame(result)

    count = len(result)
    # The compiled core writes the token column as polars holds it (utf8_view, taken
    # as it is): on a thread of its own from _VIEWS_BESIDE entries where two cores may
    # run it, while this one makes the other columns (both fills release the GIL, as
    # polars' gathers do).  Elsewhere
    # the export is read for the marked entries' texts, which only it holds.
    views = getattr(result, "_token_view_arrow", None) if token is None else None
    pending = None
    if views is not None and count >= _VIEWS_BESIDE and _cores() > 1:
        pending = _beside(views)
    try:
        if pending is not None:
            pending.start()
        return _polars_frame(pl, numpy, result, count, token, reasons, views, pending)
    finally:
        if pending is not None:
            pending(wait_only=True)  # waited for before the call ends (see _Beside)


def _polars_frame(
    pl: Any,
    numpy: Any,
    result: Any,
    count: int,
    token: Any,
    reasons: Any,
    views: Callable[[], Any] | None,
    pending: Callable[..., Any] | None,
) -> Any:
    """to_polars' frame, the token column's views made by views() or, if the views are
    being written on a thread already, handed over by pending()."""
    fields = getattr(result, "_frame_fields", None)  # the compiled core's, in one pass
    sources: dict[str, tuple[bytes, int]] = {}  # each categorical's bytes where they lie
    if fields is not None:
        data, stride = fields()
        letter, side, state, terminal, derived, valid, blank = (
            numpy.frombuffer(data, numpy.uint8, count, k * stride) for k in range(7)
        )
        sources = {"abbr": (data, 0), "side": (data, stride), "state": (data, 2 * stride)}
    else:
        records = numpy.asarray(result)
        letter = numpy.ascontiguousarray(records["letter"])  # 0 only where invalid
        blank = (letter == 0).view(numpy.uint8)  # 1 where the entry is invalid
        side = records["side"] + (blank << 1)
        state = records["state"] + blank * numpy.uint8(3)
        terminal = numpy.ascontiguousarray(records["terminal"])
        derived = numpy.ascontiguousarray(records["derived"])
        valid = blank ^ numpy.uint8(1)
    marked = len(result.errors()) > 0  # a count, made without an object per entry
    # Each categorical is its words' Series gathered by the entries' numbers (the last
    # word missing, where invalid entries point).  The words become categories first,
    # in the order the generic import made them: column by column, each column's words
    # in the order its rows first hold them.
    indices = {
        "abbr": (letter, _LETTER_TABLE),
        "side": (side, _SIDE_TABLE),
        "state": (state, _STATE_TABLE),
    }
    struct = _pyarrow_export(result) if marked and token is None and views is None else None
    if marked and reasons is None:
        if struct is None:
            numbers = result.reason_codes()
        else:  # the export's reason indices, + 1 where set (the entry invalid), else 0
            numbers = _int8(numpy, struct.field("reason").indices, count) + numpy.int8(1)
            numbers *= blank.view(numpy.int8)
        indices["reason"] = (numbers, (None, *_reason_names()))
    kept, gathers, columns = [], [], {}
    for name, (index, words) in indices.items():
        index = numpy.ascontiguousarray(index, numpy.uint8)
        table, registered = _polars_words(pl, numpy, index, words, sources.get(name))
        kept.append(registered)
        columns[name] = index
        gathers.append(pl.lit(table).gather(pl.col(name)).alias(name))
    if token is False or views is not None:
        pass
    elif token is not None:
        token = token.alias("token")
    else:
        token = _polars_token(pl, numpy, result, struct if marked else False)
    if isinstance(token, tuple):  # the tokens' Series and the codes that gather it
        columns["token"] = token[1]
        gathers.append(pl.lit(token[0]).gather(pl.col("token")).alias("token"))
    # One select: polars runs the gathers side by side on its threads.
    gathered = pl.DataFrame(columns).select(gathers) if count else None
    if views is not None:
        token = pl.Series(_Capsules(pending() if pending is not None else views()))
        token = token.alias("token")
    # where a column is set missing (marked entries only)
    invalid: Any = pl.Series(blank.view(bool)) if marked else None
    out = []
    for name in _polars_names(result):
        if name == "token" and token is False:
            continue
        if name == "reason" and reasons is not None:
            numbers = result.reason_codes() if marked else None
            out.append(polars_enum(pl, numpy, numbers, count, reasons).alias(name))
        elif name in columns:
            if gathered is not None:
                column = gathered.get_column(name)
                if marked and name != "token":  # the entries whose word is None
                    column = column.set(~invalid if name == "reason" else invalid, None)
                out.append(column)
            else:  # empty: the gather of an empty frame has no rows to type the lit
                out.append(pl.Series(name, [], pl.String if name == "token" else pl.Categorical))
        elif name == "token":
            out.append(token)
        elif struct is not None and name in ("terminal", "derived", "valid"):
            out.append(pl.Series(name, struct.field(name)))  # bitmaps taken as they are
        elif name in ("terminal", "derived"):
            # 0 or 1 each: the field's bytes are its bools (no conversion)
            values = pl.Series(name, (terminal if name == "terminal" else derived).view(bool))
            out.append(values.set(invalid, None) if marked else values)
        elif name == "valid":
            out.append(pl.Series("valid", valid.view(bool)))
        elif name == "reason":  # no entry marked: all missing
            out.append(pl.repeat(None, count, dtype=pl.Categorical, eager=True).alias(name))
        else:  # tokenize_many's row and offset
            values = result.rows if name == "row" else result.offsets
            if len(values) != count:  # the result's own offsets, changed since
                raise ValueError(LYING_LAYOUT)
            out.append(pl.Series(name, numpy.frombuffer(values, numpy.int64)))
    frame = pl.DataFrame(out)
    del kept  # the frame holds the categories now
    return frame


# From this many entries, where the process may run on two cores or more, the views
# are written on a thread of their own while the other columns are made: on 2M entries
# the views take 2.5 ms, and to_polars() went from 10.6 to 8.5 ms by the wall clock on a
# clean result, 22.4 to 14.7 on a mixed one, for the same CPU time; on a clean result
# of 65,536 entries the thread cost 2-5 % (10 % on one core), from 131,072 it gains
# (AMD EPYC, 2 cores).
_VIEWS_BESIDE = 1 << 17


def _cores() -> int:
    """The CPUs this process may run on (a thread beside gains nothing on one)."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on this platform
        return os.cpu_count() or 1


def _beside(work: Callable[[], Any]) -> _Beside:
    """work(), to run on a thread of its own once started (see _Beside)."""
    return _Beside(work)


class _Beside:
    """work() run on a thread of its own by start(); called, it waits for the work and
    gives its result, or raises what it raised (``wait_only=True``: waits, and gives and
    raises nothing).  Never started, called, it runs the work in place.

    A signal handler's exception can come between any two bytecodes of the caller, so
    the thread is started and recorded in one C step (``list.extend`` over ``map`` of
    ``_thread.start_new_thread``: no bytecode runs between them): a wait finds the thread
    either recorded, and waits for it, or never started.  ``threading.Thread.start``
    waits for the new thread in a wait such an exception breaks, which left the thread
    running past a to_polars() that raised (31-34 calls in 42 under a repeating SIGALRM).
    The wait is for a lock the thread releases last; a wait broken by a handler's
    exception is waited again, and the exception raised once the work has ended.  An
    exception landing before the wait begins still skips it: the thread then ends on
    its own within moments, having written only what it made (it holds the result)."""

    __slots__ = ("_done", "_finished", "_launched", "_work")

    def __init__(self, work: Callable[[], Any]) -> None:
        import _thread

        self._work = work
        self._done: list[tuple[bool, Any]] = []
        self._launched: list[int] = []
        self._finished = _thread.allocate_lock()
        self._finished.acquire()  # released by the work's thread once _done holds its end

    def _run(self) -> None:
        try:
            self._done.append((True, self._work()))
        except BaseException as error:  # handed to the caller, who waits
            self._done.append((False, error))
        finally:
            self._finished.release()

    def start(self) -> None:
        import _thread

        try:
            self._launched.extend(map(_thread.start_new_thread, (self._run,), ((),)))
        except RuntimeError:  # no thread to be had (a process at its limit): in place
            self._run()

    def __call__(self, wait_only: bool = False) -> Any:
        if not self._done and not self._launched:  # never started
            if wait_only:
                return None
            self._run()
        interrupted = None
        # _done is set before the lock is released, and the lock is only waited for
        # while the work's thread holds it: a broken wait is waited again.
        while not self._done:
            try:
                self._finished.acquire()
            except BaseException as error:  # the work ends in a few ms: waited for first
                interrupted = interrupted or error
        if interrupted is not None:
            raise interrupted
        if wait_only:
            return None
        finished_well, value = self._done[0]
        if not finished_well:
            raise value
        return value


class _Capsules:
    """An Arrow (schema, array) capsule pair as what polars imports them from."""

    __slots__ = ("_pair",)

    def __init__(self, pair: tuple[object, object]) -> None:
        self._pair = pair

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        return self._pair


def polars_enum(pl: Any, numpy: Any, numbers: Any, count: int, dtype: Any) -> Any:
    """The Enum Series of dtype whose entry k is its category numbers[k] - 1, missing
    where numbers[k] is 0 (numbers: a numpy uint8 array, None: all missing).

    polars' own constructor from the physical values (``cat.to``), the missing entries
    set after: where the values it is given hold nulls it is 2-3x slower, and a gather
    from the categories (what ``Series.gather`` does for an Enum) 3x (AMD EPYC, 2M
    entries: 4.3 ms against 12).  Without ``cat.to`` (polars before 1.32) the gather."""
    if numbers is None:
        return pl.repeat(None, count, dtype=dtype, eager=True)
    values = pl.Series(numbers)
    if not hasattr(values.cat, "to"):
        return pl.Series([None, *dtype.categories], dtype=dtype).gather(values)
    # 0 (valid) made the first category, a value cat.to accepts, then set missing.
    physical = pl.Series(numpy.maximum(numbers, 1) - numpy.uint8(1))
    kind = pl.Series([], dtype=dtype).to_physical().dtype
    enum = physical.cast(kind).cat.to(dtype)
    return enum.set(pl.Series(numbers == 0), None)


def _polars_names(result: Any) -> list[str]:
    names = ["token", "abbr", "side", "state", "terminal", "derived", "valid", "reason"]
    if result.notation == "PIN":
        names.remove("derived")
    return names + (["row", "offset"] if result.offsets is not None else [])


def _reason_names() -> list[str]:
    """The reason field's words, by reason number - 1: the Reason members' names (the
    enum is imported here only, by the frames' first call)."""
    from ._reason import Reason

    return [member.name for member in Reason]


def _token_text(code: int) -> str | None:
    """A code's token as the export writes it (None for a number no token has): the
    modifier, the letter in its side's case, then the markers."""
    from ._layout import is_code, record_of_code

    if not is_code(code):
        return None
    letter, second, state, terminal, derived = record_of_code(code)
    return ("", "+", "-")[state] + chr(letter + 32 * second) + "^" * terminal + "'" * derived


_LETTER_TABLE = tuple(chr(c) if 65 <= c <= 90 else None for c in range(256))
_SIDE_TABLE = ("first", "second", None)
_STATE_TABLE = ("normal", "enhanced", "diminished", None)
_TOKENS: dict[int, Any] = {}


def _pyarrow_export(result: Any) -> Any:
    """The result's export as a pyarrow StructArray, or None without pyarrow."""
    try:
        import pyarrow
    except ImportError:
        return None
    return pyarrow.array(result)


def _polars_token(pl: Any, numpy: Any, result: Any, marked: Any) -> Any:
    """The token column: (the tokens' Series, the codes to gather it by), the tokens
    made once; where entries are marked invalid (marked: the export, or None without
    pyarrow), whose text as read is only in the export, its token field."""
    if marked is None:  # polars' import of the whole export, for its token field
        return pl.DataFrame(result).get_column("token")
    if marked is not False:
        # utf8 as the export holds it, polars converting it: a cast to string_view,
        # which polars takes as it is, was twice as fast, but pyarrow 24 crashes
        # exporting what that cast makes
        return pl.Series("token", marked.field(0))
    table = _TOKENS.get(id(pl))
    if table is None:
        table = pl.Series("token", [_token_text(c) for c in range(1024)], pl.String)
        _TOKENS[id(pl)] = table
    return table, numpy.frombuffer(result.codes(), numpy.uint16)


def _polars_words(
    pl: Any,
    numpy: Any,
    index: Any,
    words: tuple[str | None, ...],
    source: tuple[bytes, int] | None = None,
) -> tuple[Any, Any]:
    """The Categorical Series of the words the entries hold, to gather by index; and
    the Series that made them categories in the order the rows first hold them, to
    keep alive until the frame holds them (polars frees the categories no Series
    holds).  A word no entry holds, or None, is never made a category: its place in
    the table holds the first word seen, and the entries that point there are set
    missing after the gather (polars gathers a table with a missing value 3x slower,
    12 ms against 4 on 2M entries half of them invalid, AMD EPYC)."""
    order = _first_seen(numpy, index, words, source)
    registered = pl.Series([words[v] for v in order], dtype=pl.Categorical)
    present = set(order)
    fill = words[order[0]] if order else None
    table = pl.Series(
        [w if v in present else fill for v, w in enumerate(words)], dtype=pl.Categorical
    )
    return table, registered


def _first_seen(
    numpy: Any, index: Any, words: tuple[str | None, ...], source: tuple[bytes, int] | None
) -> list[int]:
    """The indices the entries hold, of words that are not None, in the order they
    first appear: each word's first place found by ``bytes.find`` of its one byte
    (memchr: 2M entries in 0.02 ms where the word is absent, less where it is early),
    where a count of the late entries' words to learn which were absent (numpy's
    bincount, which widens each byte to an intp) cost 3.7 ms on 2M."""
    if source is None:
        source = (numpy.ascontiguousarray(index, numpy.uint8).tobytes(), 0)
    data, start = source  # the bytes index lies in, from start (not copied: 0.2 ms on 2M)
    end = start + len(index)
    firsts = []
    for value, word in enumerate(words):
        if word is not None:
            at = data.find(bytes((value,)), start, end)
            if at >= 0:
                firsts.append((at, value))
    return [value for _, value in sorted(firsts)]
