"""``Epin.boards`` / ``Pin.boards``: a column of FEEN piece placements as board arrays.

The core (``scan_boards``: _boards_c.pxi, or its twin _placement_py.py) reads the
column, every input tokenize_many reads, and gives flat columns; this module only
shapes them with numpy (never re-parsing) and gives the texts back through the core's
``format_boards``."""

from __future__ import annotations

from . import _messages as reasons
from ._core import core
from ._errors import ParseError, reason_text
from ._layout import CODE_NONE, all_codes
from ._tables import labelled, text_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Boards:
    """The boards of a column of FEEN piece placements, one row a text (what
    ``Epin.boards`` / ``Pin.boards`` give).  The squares of every row and its ranks are
    kept flat; ``squares()`` lays them out one row a board.  A refused or missing row
    (``errors="mark"``) has no square and no rank; ``errors()`` says why."""

    __slots__ = (
        "_epin",
        "_flat",
        "_labels",
        "_lengths",
        "_rank_rows",
        "_refused",
        "_separators",
        "_square_rows",
    )

    def __init__(self, scanned: tuple[Any, ...], epin: bool, labels: Any = None) -> None:
        """From what a core's scan_boards gave, checked (_checked): columns that lie
        are refused here, not read out of bounds later."""
        self._take(_checked(scanned, epin, labels), epin, labels)

    @classmethod
    def _scanned(cls, scanned: tuple[Any, ...], epin: bool, labels: Any) -> Boards:
        """The core's own scan, as it gave it: not checked again (the tests hold every
        scan to the checks), a column of refused rows would cost a Python loop."""
        board = cls.__new__(cls)
        board._take(_arrays(scanned), epin, labels)
        return board

    def _take(self, columns: tuple[Any, ...], epin: bool, labels: Any) -> None:
        self._flat, self._lengths, self._separators = columns[:3]
        self._square_rows, self._rank_rows, self._refused = columns[3:]
        self._epin = epin
        self._labels = labels

    def __reduce__(self) -> tuple[Any, ...]:
        # Through the constructor, so that an unpickled Boards is checked as a made one.
        columns = (
            self._flat,
            self._lengths,
            self._separators,
            self._square_rows,
            self._rank_rows,
            self._refused,
        )
        return (Boards, (columns, self._epin, self._labels))

    def __setstate__(self, state: object) -> None:
        """The default state of a class with slots, (None, {slot: value}), as a pickle
        written by hand may hold it: checked as the constructor checks."""
        if isinstance(state, tuple) and len(state) == 2 and state[0] is None:
            state = state[1]
        if not isinstance(state, dict):
            raise TypeError("a Boards' state is its slots")
        try:
            scanned = tuple(state[name] for name in _COLUMN_SLOTS)
            epin, labels = state["_epin"], state.get("_labels")
        except KeyError as error:
            raise ValueError(f"a Boards' state has no {error.args[0]}") from None
        self._take(_checked(scanned, epin, labels), epin, labels)

    @property
    def notation(self) -> str:
        """``"EPIN"`` or ``"PIN"``: how the texts were read."""
        return "EPIN" if self._epin else "PIN"

    def __len__(self) -> int:
        return len(self._square_rows) - 1

    def __repr__(self) -> str:
        return f"<{len(self)} {self.notation} boards, {len(self._refused)} refused>"

    def squares(self) -> Any:
        """A 2-D numpy int16 array, one row a text: its squares in text order (each
        rank after the one before it), the token's code on a square with a piece,
        CODE_NONE (-1) on an empty one and past the row's last square (a shorter board,
        a refused or missing row).  As wide as the largest board: one row of 65,536
        squares makes every row that wide (check ``square_counts().max()`` first on a
        column you did not write)."""
        import numpy

        counts = self.square_counts()
        # No row holds more squares than the column: starts that say so (changed after
        # the Boards was made) are lay_out_boards' ValueError, not a huge allocation.
        width = min(max(int(counts.max()), 0), len(self._flat)) if len(counts) else 0
        out = numpy.empty((len(counts), width), dtype=numpy.int16)
        core.lay_out_boards(self._flat, self._square_rows, out)
        return out

    def square_counts(self) -> Any:
        """A numpy int64 array: the squares of each row's board (0 for a refused row)."""
        import numpy

        return numpy.diff(self._square_rows)

    def rank_lengths(self) -> Any:
        """A numpy int32 array: the squares of every rank of every row, the rows one
        after the other; row i's are at ``rank_offsets()[i]:rank_offsets()[i + 1]``."""
        return self._lengths.copy()

    def separators(self) -> Any:
        """A numpy uint8 array beside ``rank_lengths()``: what follows each rank, 1 for
        ``/`` (the next rank), 2 for ``//`` (the next layer), 0 after a row's last."""
        return self._separators.copy()

    def rank_offsets(self) -> Any:
        """A numpy int64 array of len(self) + 1: where each row's ranks start in
        ``rank_lengths()`` and ``separators()``, and where the last ends."""
        return self._rank_rows.copy()

    def valid_mask(self) -> Any:
        """A numpy bool array, True at each row read as a board."""
        import numpy

        return numpy.diff(self._rank_rows) > 0

    def errors(self) -> list[ParseError]:
        """A ParseError for each refused or missing row (``errors="mark"``), in row
        order: its ``token`` (the text, or the missing value), ``reason``, ``index``
        and ``row`` (the row), ``position`` (the character offset of the fault) and
        ``label`` where the input had a pandas index."""
        out = []
        for row, reason, at, text in self._refused:
            error = ParseError(
                text, reason_text(reason, self.notation), self.notation, row, at, row=row
            )
            out.append(error if self._labels is None else labelled(error, self._labels))
        return out

    def placements(self) -> list[str | None]:
        """Each row's placement text, written back from its board (byte for byte the
        text read, for a valid row); None for a refused or missing row."""
        return core.format_boards(
            self._flat,
            self._lengths,
            self._separators,
            self._square_rows,
            self._rank_rows,
            self._epin,
        )


def boards(texts: object, epin: bool, errors: str) -> Boards:
    """The core's scan_boards over what tokenize_many reads, pandas objects unwrapped
    (their index labels the errors)."""
    rows, labels = text_rows(
        texts, "boards takes many placements (a list of str, a column), not one {}"
    )
    try:
        scanned = core.scan_boards(rows, epin, errors)
    except ParseError as error:
        raise labelled(error, labels) from None
    return Boards._scanned(scanned, epin, labels)


# The flat columns: their slots, their dtypes, and what errors call them.
_COLUMN_SLOTS = ("_flat", "_lengths", "_separators", "_square_rows", "_rank_rows", "_refused")
_DTYPES = ("int16", "int32", "uint8", "int64", "int64")
_NAMES = ("squares", "rank lengths", "separators", "square rows", "rank rows")


def _arrays(scanned: tuple[Any, ...]) -> tuple[Any, ...]:
    """The five flat columns as numpy arrays over their buffers, and the refused rows."""
    import numpy

    *columns, refused = scanned
    arrays = (numpy.frombuffer(c, dtype=d) for c, d in zip(columns, _DTYPES, strict=True))
    return (*arrays, refused)


def _checked(scanned: object, epin: object, labels: Any) -> tuple[Any, ...]:
    """_arrays of what a Boards is made from, once it is sure to be what a scan gives:
    each column a buffer of its dtype (or raw bytes), the row starts of squares and of
    ranks from 0 to their column's end and never going back, as many rank lengths as
    separators, and the refused rows exactly the rows of no rank, each well formed.
    TypeError for a wrong type, ValueError for columns that do not agree."""
    if type(epin) is not bool:
        kind = type(epin)  # numpy's bool is named bool too: its module told
        name = (
            kind.__qualname__
            if kind.__module__ == "builtins"
            else f"{kind.__module__}.{kind.__qualname__}"
        )
        raise TypeError(f"epin must be a bool, not {name}")
    if not isinstance(scanned, (tuple, list)) or len(scanned) != 6:
        raise TypeError("a Boards is made of five flat columns and the refused rows")
    columns = [_column(c, d, n) for c, d, n in zip(scanned[:5], _DTYPES, _NAMES, strict=True)]
    flat, lengths, separators, square_rows, rank_rows = columns
    if not len(square_rows) or len(square_rows) != len(rank_rows):
        raise ValueError("square rows and rank rows must hold as many starts, one at least")
    if len(lengths) != len(separators):
        raise ValueError("rank lengths and separators must be as long")
    _check_starts(square_rows, len(flat), "square rows")
    _check_starts(rank_rows, len(lengths), "rank rows")
    _check_boards(flat, lengths, separators, square_rows, rank_rows, epin)
    refused = _checked_refused(scanned[5], square_rows, rank_rows)
    if labels is not None:
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
            raise TypeError(f"labels must be an index of the rows, not {type(labels).__name__}")
        if len(labels) != len(square_rows) - 1:
            raise ValueError("labels must label every row")
    return (*columns, refused)


def _check_boards(
    flat: Any, lengths: Any, separators: Any, square_rows: Any, rank_rows: Any, epin: bool
) -> None:
    """What every board a scan gives holds (ValueError naming the first row that does
    not): ranks of one square at least, as many squares in a row's ranks as in the row,
    a separator 1 (/) or 2 (//) after each rank but a row's last, 0 after it, and on
    each square a token's code of the notation or CODE_NONE.  In numpy, a pass or two
    over each column."""
    import numpy

    def fail(rows: Any, what: str) -> None:
        raise ValueError(f"row {int(rows[0])} is no board: {what}")

    ranks = numpy.searchsorted(rank_rows, numpy.arange(len(lengths)), side="right") - 1
    bad = numpy.flatnonzero(lengths <= 0)
    if len(bad):
        fail(ranks[bad], f"a rank of {int(lengths[bad[0]])} squares")
    held = numpy.concatenate(([0], numpy.cumsum(lengths, dtype=numpy.int64)))
    bad = numpy.flatnonzero(held[rank_rows[1:]] - held[rank_rows[:-1]] != numpy.diff(square_rows))
    if len(bad):
        fail(bad, "its ranks hold another number of squares than it")
    last = numpy.zeros(len(separators), dtype=bool)
    last[rank_rows[1:][numpy.diff(rank_rows) > 0] - 1] = True
    bad = numpy.flatnonzero(numpy.where(last, separators != 0, (separators - 1) > 1))
    if len(bad):
        fail(ranks[bad], f"separator {int(separators[bad[0]])} after a rank")
    bad = numpy.flatnonzero(~_codes(epin)[flat.view(numpy.uint16)])
    if len(bad):
        row = numpy.searchsorted(square_rows, bad[:1], side="right") - 1
        fail(row, f"{int(flat[bad[0]])} is no {'EPIN' if epin else 'PIN'} token's code")


def _codes_table(epin: bool) -> Any:
    """A bool per int16 value (read as uint16): a code a square of the notation holds."""
    import numpy

    table = numpy.zeros(1 << 16, dtype=bool)
    table[numpy.array(all_codes(epin), dtype=numpy.int64)] = True
    table[CODE_NONE & 0xFFFF] = True  # an empty square
    return table


# _codes_table of each notation, made when first asked for (numpy is not imported with
# the package).
_CODES: dict[bool, Any] = {}


def _codes(epin: bool) -> Any:
    table = _CODES.get(epin)
    if table is None:
        table = _CODES[epin] = _codes_table(epin)
    return table


def _column(data: Any, dtype: str, name: str) -> Any:
    """A flat column as a numpy array of dtype over its buffer, which must hold items of
    that dtype or raw bytes (a core's columns are bytes)."""
    import numpy

    try:
        held = numpy.dtype(memoryview(data).format)
    except TypeError:
        raise TypeError(f"{name} must be a buffer of {dtype}, not {type(data).__name__}") from None
    want = numpy.dtype(dtype)
    if held.itemsize != 1 and (
        (held.kind, held.itemsize) != (want.kind, want.itemsize) or not held.isnative
    ):  # a byte order not the machine's would be read as the machine's
        raise TypeError(f"{name} must hold {dtype}, not {held.str if not held.isnative else held}")
    try:
        return numpy.frombuffer(data, dtype=want)
    except (ValueError, BufferError) as error:  # not contiguous, or a broken size
        raise ValueError(f"{name} is no column of {dtype}: {error}") from None


def _check_starts(starts: Any, size: int, name: str) -> None:
    """Row starts from 0 to size, never going back (ValueError naming the first row
    that does not keep to it)."""
    import numpy

    if starts[0] != 0:
        raise ValueError(f"{name} must start at 0, not {int(starts[0])}")
    back = numpy.flatnonzero(numpy.diff(starts) < 0)
    if len(back):
        raise ValueError(f"{name} go back at row {int(back[0])}")
    if starts[-1] != size:
        raise ValueError(f"{name} must end at the column's end, {size}, not {int(starts[-1])}")


def _checked_refused(refused: object, square_rows: Any, rank_rows: Any) -> list[Any]:
    """Our own list of the refused rows: (row, reason, offset, text) each, the rows in
    order and exactly those of no rank (a row read holds one at least) and no square,
    the reason a reason's number, the offset None or a count."""
    import numpy

    if not isinstance(refused, (list, tuple)):
        raise TypeError(f"the refused rows must be a list, not {type(refused).__name__}")
    out = []
    for entry in refused:
        if type(entry) is not tuple or len(entry) != 4:
            raise TypeError("a refused row is a tuple (row, reason, offset, text)")
        row, reason, at, text = entry
        if not all(_is_int(x) for x in (row, reason)) or not (at is None or _is_int(at)):
            raise TypeError("a refused row's row, reason and offset are ints")
        if not 0 < reason < reasons.REASON_COUNT or (at is not None and at < 0):
            raise ValueError(f"refused row {row}: no reason {reason} at offset {at}")
        out.append((int(row), int(reason), None if at is None else int(at), text))
    empty = numpy.flatnonzero(numpy.diff(rank_rows) == 0)
    if [entry[0] for entry in out] != empty.tolist():
        raise ValueError("the refused rows must be the rows of no rank, in order")
    if (numpy.diff(square_rows)[empty] != 0).any():
        raise ValueError("a refused row holds no square")
    return out


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
