"""TokenArray, the result of ``parse_many``, pure Python: the twin of ``_array_c.pxi``.

Same contents and the same methods; numpy reads the records through ``__array__``
(zero-copy ``numpy.frombuffer`` over immutable bytes) where the compiled TokenArray
exports the buffer protocol itself.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from . import _export_py, _frames, _marks, _requested
from ._errors import ParseError
from ._layout import (
    CODE_NONE,
    RECORD_FIELDS,
    RECORD_SIZE,
    code_of_record,
    is_code,
    record_of_code,
)
from ._messages import MISSING
from ._objects_py import objects
from ._scan_py import format_code
from ._selection import positions, scalar

# What a reader keeps of an entry it marked invalid: its token as read, the reason
# number, and for bytes input its byte offset and line.
Rejected = tuple[object, int, int | None, int | None]

if TYPE_CHECKING:  # the data libraries' types, for the signatures only
    import numpy
    import pandas
    import polars
    import pyarrow
    from numpy.typing import NDArray

_ZERO = bytes(RECORD_SIZE)


class TokenArray:
    """The result of ``parse_many``: one 5-byte record per token.

    ``len()``, indexing and iteration give the interned Pin / Epin objects (``None`` at
    an entry marked invalid); the records are a structured array with uint8 fields
    ``letter, side, state, terminal, derived`` (zero-copy with ``numpy.asarray``).
    ``tokens()``, ``to_bytes()`` and ``codes()`` format back.
    """

    __slots__ = ("_epin", "_invalid", "_labels", "_layout", "_records", "_rejected")

    _records: bytes
    _epin: bool
    _invalid: array[int]
    _rejected: list[Rejected]
    _labels: Any
    # tokenize_many's (offsets, row_offsets, missing rows, row labels), a selection's
    # (offsets, None, None, None, rows, texts) (see _marks), or None
    _layout: Any

    @classmethod
    def _make(
        cls,
        epin: bool,
        records: bytes,
        invalid: Sequence[int],
        rejected: Sequence[Rejected],
        labels: Any = None,
    ) -> TokenArray:
        self = object.__new__(cls)
        self._records, self._epin, self._invalid = records, epin, array("q", invalid)
        self._rejected = list(rejected)
        self._labels = labels
        self._layout = None
        return self

    @property
    def labels(self) -> Any:
        """The pandas Index of the input the entries were read from (a Series' index,
        an Index itself), following the entries through selections; None otherwise."""
        return self._labels

    @property
    def offsets(self) -> array[int] | None:
        """``tokenize_many``'s: each token's offset in its text (characters from 0), as
        array('q'), following the entries through selections and ``+``; None for other
        results."""
        return None if self._layout is None else self._layout[0]

    @property
    def row_offsets(self) -> array[int] | None:
        """``tokenize_many``'s: the token range of each text, Arrow-style (array('q') of
        texts + 1 entries: text i's tokens are entries ``row_offsets[i]`` up to
        ``row_offsets[i + 1]``); None for other results.  A selection of one has no
        such grouping (ValueError): its ``rows`` and ``offsets`` say where each entry
        came from."""
        if self._layout is None:
            return None
        if not _marks.is_grouped(self._layout):
            raise ValueError(_marks.NO_GROUPING.format("row_offsets"))
        return self._layout[1]  # type: ignore[no-any-return]

    @property
    def rows(self) -> array[int] | None:
        """``tokenize_many``'s: each token's text (its row), as array('q'), following
        the entries through selections and ``+`` (a later part's rows numbered after
        the earlier parts' texts); None for other results."""
        if self._layout is None:
            return None
        if not _marks.is_grouped(self._layout):
            return array("q", self._layout[4])
        _marks.check_ranges(self._layout[1], len(self))  # as the compiled core does
        return rows_of(self._layout[1])

    @property
    def missing_rows(self) -> array[int] | None:
        """``tokenize_many``'s: the rows whose text was missing (None, NaN, pandas.NA),
        as array('q'): they hold no token; None for other results, ValueError for a
        selection of one (it has no row grouping)."""
        if self._layout is None:
            return None
        if not _marks.is_grouped(self._layout):
            raise ValueError(_marks.NO_GROUPING.format("missing_rows"))
        return self._layout[2]  # type: ignore[no-any-return]

    @property
    def notation(self) -> Literal["PIN", "EPIN"]:
        """``"PIN"`` or ``"EPIN"``."""
        return "EPIN" if self._epin else "PIN"

    @property
    def invalid(self) -> array[int]:
        """Indices of the entries marked invalid (``errors="mark"``), a new array('q')
        each time (changing it changes nothing else)."""
        return array("q", self._invalid)

    def errors(self) -> Sequence[ParseError]:
        """A ParseError for each entry marked invalid, in index order: its ``token``
        (the text as read: str, bytes for bytes and numpy S input, the missing value
        itself), ``reason``, ``index`` (the entry; in tokenize_many's result the row,
        as under errors="raise", also its ``row``), for bytes input ``position`` (byte
        offset) and ``line``, and ``label`` where the input had a pandas index.  A
        sequence that makes each error when it is read (``list()`` makes them all)."""
        return _marks.ErrorList(
            self.notation, self._invalid, self._rejected, self._labels, self._layout
        )

    def valid_mask(self) -> NDArray[numpy.bool_]:
        """A numpy bool array, True at each valid entry (no Python object per entry)."""
        mask: NDArray[numpy.bool_] = _marks.valid_mask(self)
        return mask

    def reason_codes(self) -> NDArray[numpy.uint8]:
        """A numpy uint8 array: 0 at a valid entry, else the number of its Reason."""
        numbers: NDArray[numpy.uint8] = _marks.reason_codes(
            len(self), self._invalid, self._rejected
        )
        return numbers

    def __len__(self) -> int:
        return len(self._records) // RECORD_SIZE

    def _code(self, i: int) -> int:
        return code_of_record(self._records[RECORD_SIZE * i : RECORD_SIZE * (i + 1)])

    def _entry(self, i: int) -> Any:
        code = self._code(i)
        return None if code < 0 else objects(self._epin)[code]

    def __getitem__(self, index: object) -> Any:
        """An entry (an int index), or a new TokenArray of the entries a slice, a
        boolean mask of the same length or an array of integers picks."""
        one = index if type(index) is int else scalar(index)
        if one is not None:
            i = one + len(self) if one < 0 else one
            if not 0 <= i < len(self):
                raise IndexError("TokenArray index out of range")
            return self._entry(i)
        return self._take(positions(index, len(self)))

    def _take(self, picked: Sequence[int]) -> TokenArray:
        records = b"".join(self._records[5 * i : 5 * i + 5] for i in picked)
        rejected = dict(zip(self._invalid, self._rejected, strict=True))
        marked = [(k, rejected[i]) for k, i in enumerate(picked) if self._records[5 * i] == 0]
        result = TokenArray._make(
            self._epin,
            records,
            [k for k, _ in marked],
            [r for _, r in marked],
            _marks.take_labels(self._labels, picked),
        )
        result._layout = _marks.take_layout(self._layout, picked)
        return result

    def valid(self) -> TokenArray:
        """A new TokenArray of the entries not marked invalid, in order (with their
        labels, rows and offsets; itself where none is marked)."""
        if not len(self._invalid):
            return self
        return self._take([i for i in range(len(self)) if self._records[5 * i]])

    def __add__(self, other: object) -> TokenArray:
        """The entries of both, in order (same notation only).  Labels are joined as
        pandas' ``Index.append`` joins them, refused (ValueError) where one side has
        none or their depths differ; rows and offsets are kept, the other's rows
        numbered after this one's texts, refused (ValueError) between a tokenize_many
        result and a parse_many one (see the guide)."""
        if not isinstance(other, TokenArray):
            return NotImplemented
        if other._epin != self._epin:
            raise TypeError("a PIN TokenArray and an EPIN one do not concatenate")
        return concatenate([self, other], self._epin)

    def __iter__(self) -> Iterator[Any]:
        return (self._entry(i) for i in range(len(self)))

    def _check_complete(self) -> None:
        if len(self._invalid):
            raise ValueError(f"entry {self._invalid[0]} is invalid: nothing to format")

    def tokens(self) -> list[str]:
        """The tokens as a list of str (ValueError if any entry is marked invalid)."""
        self._check_complete()
        return [format_code(self._code(i)) for i in range(len(self))]

    def sorted(self) -> TokenArray:
        """A new TokenArray of the same tokens in code order, which is FEEN's canonical
        hand order; ValueError if any entry is marked invalid."""
        self._check_complete()
        order = sorted(range(len(self)), key=self._code)
        result = TokenArray._make(
            self._epin,
            b"".join(self._records[5 * i : 5 * i + 5] for i in order),
            [],
            [],
            _marks.take_labels(self._labels, order),
        )
        result._layout = _marks.take_layout(self._layout, order)
        return result

    def to_bytes(self, sep: bytes = b"\n") -> bytes:
        """The tokens joined by ``sep`` (bytes): what parse_many read, for single
        separators."""
        self._check_complete()
        return bytes(memoryview(sep).cast("B")).join(t.encode("ascii") for t in self.tokens())

    def codes(self) -> array[int]:
        """The codes as an array('h'); CODE_NONE (-1) at entries marked invalid."""
        return array("h", [CODE_NONE if (c := self._code(i)) < 0 else c for i in range(len(self))])

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy

        fields = numpy.dtype([(name, "u1") for name in RECORD_FIELDS])
        records = numpy.frombuffer(self._records, dtype=fields)  # read-only, shared
        return records if dtype is None else records.astype(dtype)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TokenArray):
            return NotImplemented
        return self._epin == other._epin and self._records == other._records

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(repr(None if e is None else str(e)) for e in self[:4])
        more = ", ..." if len(self) > 4 else ""
        return f"<TokenArray {self.notation} [{shown}{more}] ({len(self)} tokens)>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            rebuild_token_array,
            (self._epin, self._records, self._rejected, self._labels, self._layout),
        )

    # -- Arrow: the PyCapsule interface (see _export_py.py for the columns) ---------------
    def _arrow(self, by_row: bool = False) -> Any:
        if by_row:
            self._check_grouped()
        codes = self.codes()
        tokens = [None if c == CODE_NONE else format_code(c) for c in codes]
        array = _export_py.struct_array(
            self._epin, self._records, tokens, self._invalid, self._rejected
        )
        if self._layout is None:
            return array
        _marks.check_placed(self._layout, len(self))
        return _export_py.placed(array, self._layout, None if by_row else self.rows)

    def by_row(self) -> _frames.TokenRows:
        """``tokenize_many``'s result as one entry per input row (a ``TokenRows``):
        exported as a list of the row's tokens, null where the text was missing.  The
        whole result's only (and that of ``+`` of whole results): a selection of one
        has no row grouping (ValueError)."""
        self._check_grouped()
        return _frames.TokenRows(self, self._layout[3])

    def _check_grouped(self) -> None:
        if self._layout is None:
            raise ValueError("only tokenize_many's results have rows: by_row() exports those")
        if not _marks.is_grouped(self._layout):
            raise ValueError(_marks.NO_GROUPING.format("by_row()"))

    def _by_row_arrow(self, what: str) -> Any:
        """by_row()'s Arrow capsules: "schema", "array" (schema and array), "stream"."""
        array = self._arrow(by_row=True)
        if what == "schema":
            return array.type.__arrow_c_schema__()
        if what == "array":
            return array.__arrow_c_array__()
        return _export_py.stream(array).__arrow_c_stream__()

    def __arrow_c_schema__(self) -> object:
        """The Arrow schema of the export, the same whatever the data: a struct of
        token, abbr, side, state, terminal, (derived for EPIN,) valid and reason (and
        for tokenize_many's results row and offset)."""
        return self._arrow().type.__arrow_c_schema__()

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        """The entries as one Arrow struct array (invalid entries null): what
        ``pyarrow.array(result)`` and ``pyarrow.table(result)`` read.  A
        ``requested_schema`` is honoured where it is the export's or its plain form
        (``sashite_epin.schema``), refused (ValueError) otherwise; it needs pyarrow."""
        if requested_schema is not None:
            return _requested.requested_array(self, requested_schema)
        return self._arrow().__arrow_c_array__()  # type: ignore[no-any-return]

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The entries as an Arrow stream of one chunk: what ``polars.DataFrame``,
        DuckDB and pandas read; ``requested_schema`` as for ``__arrow_c_array__``."""
        if requested_schema is not None:
            return _requested.requested_stream(self, requested_schema)
        return _export_py.stream(self._arrow()).__arrow_c_stream__()

    def to_arrow(self, *, token: bool = True, prefix: str = "") -> pyarrow.Table:
        """A pyarrow Table of the export's columns; needs pyarrow.  ``token=False``
        leaves out the token column (the input's text), ``prefix`` is put before every
        column's name."""
        table: pyarrow.Table = _frames.named(_frames.to_arrow(self), token, prefix)
        return table

    def to_pandas(
        self, index: Any = None, *, token: bool = True, prefix: str = ""
    ) -> pandas.DataFrame:
        """A pandas DataFrame of the export's columns, with the same dtypes whatever the
        data (abbr, side, state and reason categorical, terminal and derived
        ``boolean``, valid ``bool``), on the input's index (``labels``): ``index=``
        gives another, ``index=False`` a RangeIndex.  ``token=False`` leaves out the
        token column (the input's text), ``prefix`` is put before every column's name.
        Needs pandas and pyarrow."""
        frame: pandas.DataFrame = _frames.named(
            _frames.to_pandas(self, index, token), token, prefix
        )
        return frame

    def to_polars(self, *, token: bool = True, prefix: str = "") -> polars.DataFrame:
        """A polars DataFrame of the same columns (side and state categorical); needs
        polars.  ``token=False`` leaves out the token column (the input's text),
        ``prefix`` is put before every column's name."""
        # token=False: no token column made at all (not made, then dropped)
        made = _frames.to_polars(self, False if token is False else None)
        frame: polars.DataFrame = _frames.named(made, token, prefix)
        return frame


def rows_of(row_offsets: array[int]) -> array[int]:
    """Each token's row, from the rows' token ranges (rows + 1 entries)."""
    rows = array("q")
    for i in range(len(row_offsets) - 1):
        rows.extend([i] * (row_offsets[i + 1] - row_offsets[i]))
    return rows


def rebuild_token_array(
    epin: bool,
    records: bytes,
    rejected: Sequence[Rejected] = (),
    labels: Any = None,
    layout: Any = None,
) -> TokenArray:
    """Unpickling: records are checked, never trusted; rejected holds one
    (token, reason, byte offset, line) per zero record."""
    if len(records) % RECORD_SIZE:
        raise ValueError("records must be a multiple of 5 bytes")
    marked = []
    for i in range(len(records) // RECORD_SIZE):
        r = records[5 * i : 5 * i + 5]
        if r == _ZERO:
            marked.append(i)
            continue
        code = code_of_record(r)
        if not (is_code(code) and (epin or not code & 1) and record_of_code(code) == r):
            raise ValueError(f"record {i} is not a valid {'EPIN' if epin else 'PIN'} record")
    result = TokenArray._make(
        epin, bytes(records), marked, _checked_rejected(rejected, len(marked)), labels
    )
    result._layout = _marks.checked_layout(layout, len(result))
    return result


def _checked_rejected(rejected: Sequence[Rejected], count: int) -> list[Rejected]:
    rejected = list(rejected)
    if not rejected:
        return [(None, MISSING, None, None)] * count
    if len(rejected) != count or not all(
        isinstance(r, tuple) and len(r) == 4 and type(r[1]) is int and 1 <= r[1] <= MISSING
        for r in rejected
    ):
        raise ValueError("rejected entries do not match the marked records")
    return rejected


def concatenate(parts: Sequence[TokenArray], epin: bool) -> TokenArray:
    """One TokenArray of the parts' entries in order (their marks shifted with them)."""
    invalid: list[int] = []
    rejected: list[Rejected] = []
    at = 0
    for part in parts:
        invalid += [at + i for i in part._invalid]
        rejected += part._rejected
        at += len(part)
    labels = _marks.joined_labels([p._labels for p in parts])
    layout = _marks.joined_layout([p._layout for p in parts])
    result = TokenArray._make(epin, b"".join(p._records for p in parts), invalid, rejected, labels)
    result._layout = layout
    return result


def set_labels(result: TokenArray, labels: Any, row_labels: Any = None) -> TokenArray:
    """Give a result made just now the pandas Index its input had (parse_many's
    facade, before anyone else sees the result); for tokenize_many's, labels per
    token and row_labels, the input's own, per row."""
    if labels is not None and len(labels) != len(result):
        raise ValueError(f"{len(labels)} labels for {len(result)} entries")
    if row_labels is not None:
        layout = result._layout
        if not _marks.is_grouped(layout) or len(row_labels) != len(layout[1]) - 1:
            raise ValueError("row labels need a tokenize_many result with as many rows")
        result._layout = (*result._layout[:3], row_labels)
    result._labels = labels
    return result


def from_codes(codes: object, epin: bool) -> TokenArray:
    """A TokenArray of the tokens whose codes these are (what ``codes()`` gives: an
    array('h'), a numpy integer array, any iterable of ints).  CODE_NONE (-1), the
    code ``codes()`` gives an entry marked invalid, marks the entry invalid again (its
    text is not in a code: the reason is "missing value"), and so does 0xFFFF, what
    ``codes()`` gave before (array('H')); any other value that is no code of the
    notation is a ValueError."""
    values = codes.tolist() if hasattr(codes, "tolist") else list(codes)  # type: ignore[call-overload]
    records, marked = bytearray(), []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"code {i} is {type(value).__name__}, not int")
        if value in (CODE_NONE, 0xFFFF):
            records += _ZERO
            marked.append(i)
        elif not (is_code(value) and (epin or not value & 1)):
            raise ValueError(f"code {i}, {value}, is no {'EPIN' if epin else 'PIN'} token's code")
        else:
            records += record_of_code(value)
    return TokenArray._make(
        epin, bytes(records), marked, [(None, MISSING, None, None)] * len(marked)
    )


def release_memory() -> int:
    """Hand back to the system the blocks kept from freed results for the next big one
    and return the bytes they held.  The compiled core keeps the last freed blocks of
    1 MiB or more, four at most and 128 MiB in all, so that a loop of big calls does not
    fault in fresh memory each time; after this the next big result maps fresh memory.
    On glibc the compiled core also has malloc trim its free heap pages
    (``malloc_trim``).  The pure-Python twin keeps none, and returns 0."""
    return 0  # the twin's memory is the interpreter's


def memory_held() -> int:
    """The bytes of the blocks kept from freed results for the next big one (what
    ``release_memory()`` would hand back): at most 128 MiB (and for a moment a block
    another thread is handing in), 0 after ``release_memory()``.  The pure-Python twin
    keeps none, and returns 0."""
    return 0
