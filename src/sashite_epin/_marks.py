"""What a TokenArray keeps beside its records, as columns: the entries marked invalid
(their text, reason) and the labels of the input's pandas index.  The same for both
cores, so the export, the masks and the labels cannot drift between them."""

from __future__ import annotations

# From the modules the interpreter has loaded at start-up, not the public ones over
# them (collections would add 3 ms to the import, operator 0.5): the same objects.
from _collections_abc import Sequence
from _operator import index as operator_index

from . import _messages
from ._errors import ParseError, reason_text
from ._messages import MISSING, REASON_COUNT

# typing is not imported at run time (it costs more than the rest of the import):
# annotations are strings, and type checkers read this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def reason_names() -> tuple[str, ...]:
    """The words of the export's ``reason`` field, by reason number - 1: the Reason
    members' names, which are _messages' constants of those numbers (read there: the
    enum would cost the import its time, and the compiled core reads them at import)."""
    numbers = {
        value: name
        for name, value in vars(_messages).items()
        if name.isupper() and name != "REASON_COUNT" and type(value) is int
    }
    return tuple(numbers[n] for n in range(1, REASON_COUNT))


def export_text(token: object, reason: int) -> bytes | None:
    """A marked entry's text as the export's utf8 ``token`` field holds it: the text as
    read, or None for a missing value.  Text that is not UTF-8 (bytes input, lone
    surrogates in a str) is written with backslash escapes, as Arrow utf8 must be
    valid UTF-8; the reason field still says why the entry was refused."""
    if reason == MISSING:
        return None
    if isinstance(token, str):
        return str.encode(token, "utf-8", "backslashreplace")
    if isinstance(token, (bytes, bytearray)):
        try:
            bytes(token).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(token).decode("utf-8", "backslashreplace").encode("utf-8")
        return bytes(token)
    return None


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError("this needs numpy: pip install numpy") from None
    return numpy


def valid_mask(result: object) -> Any:
    """A numpy bool array, True where the entry is a token (a record's letter is 0 only
    where the entry was marked invalid)."""
    numpy = _numpy()
    return numpy.asarray(result)["letter"] != 0


def reason_codes(count: int, invalid: Sequence[int], rejected: Sequence[Any]) -> Any:
    """A numpy uint8 array: 0 for a valid entry, the Reason's number for a marked one."""
    numpy = _numpy()
    codes = numpy.zeros(count, numpy.uint8)
    if len(invalid):
        if isinstance(rejected, (MarkedTexts, MarkedObjects, Picked)):  # a column
            reasons = numpy.frombuffer(rejected._reasons, numpy.uint8)
        else:
            reasons = numpy.fromiter(map(_second, rejected), numpy.uint8, len(rejected))
        codes[numpy.frombuffer(invalid, numpy.int64)] = reasons
    return codes


class MadeWhenRead(Sequence):  # type: ignore[type-arg]
    """A read-only sequence whose entries are made when read (by _made(k)): its length,
    first entries or a slice at once, with no object made before it is asked for."""

    __slots__ = ()
    _noun = "entry"

    def _made(self, k: int) -> Any:
        raise NotImplementedError

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return [self._made(k) for k in range(len(self))[key]]
        k = operator_index(key)
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(f"{self._noun} index out of range")
        return self._made(k)

    def __iter__(self) -> Any:
        return map(self._made, range(len(self)))


# numpy U arrays hold UCS-4 code units in the machine's byte order.
_UCS4 = "utf-32-le" if __import__("sys").byteorder == "little" else "utf-32-be"


class MarkedTexts(MadeWhenRead):
    """The rejected entries (token, reason number, offset, line) of a bulk read of texts
    (tokenize_many's refused rows, an Arrow column's or a byte buffer's marked entries),
    kept as columns until one is asked for: the tokens' bytes back to back (``ends``:
    where each ends), one reason byte each, and where the reader has them (else None),
    one offset and one line each and a flag for each token that is None (a missing
    entry).  ``decode``: how a token's
    bytes become its str (UTF-8 with the error handler "surrogatepass" or "replace";
    "ucs4": a numpy U element's code units, its bytes where one is no code point), or
    None to keep them as bytes.  ``later``: where texts, ends and nones are None, what
    gives them (texts, ends, nones) when a token is first asked for: an Arrow column's
    marked texts stay in the input's buffers, which the result keeps, until then.
    A column of a hundred thousand marked entries costs no Python object per entry
    until its errors are read; a pickle holds them as a list.  Those of ``read_later``
    have their positions alone until the rest is first asked for."""

    __slots__ = (
        "_decode",
        "_ends",
        "_later",
        "_lines",
        "_nones",
        "_positions",
        "_reasons",
        "_source",
        "_texts",
    )

    def __init__(
        self,
        texts: bytes | None,
        ends: Any,
        reasons: bytes,
        positions: Any,
        decode: str | None = "surrogatepass",
        nones: bytes | None = None,
        lines: Any = None,
        later: Any = None,
    ) -> None:
        # The compiled core's kept_marks (_arrow_c.pxi) sets these same slots itself.
        self._texts, self._ends, self._reasons, self._positions = texts, ends, reasons, positions
        self._decode, self._nones, self._lines, self._later = decode, nones, lines, later
        self._source: Any = None

    @classmethod
    def read_later(
        cls, count: int, read: Any, *arguments: Any, positions: Any = None, decode: Any = None
    ) -> MarkedTexts:
        """``count`` marked entries whose texts, ends, reasons and lines are
        ``read(*arguments)`` when first asked for (from immutable data: a byte buffer,
        a copy of numpy elements): a parse that marks half a million entries makes none
        of their texts."""
        self = cls.__new__(cls)
        self._positions, self._decode, self._nones, self._later = positions, decode, None, None
        self._source = (count, read, arguments)
        return self

    def __getattr__(self, name: str) -> Any:
        # Reached only for a slot not set: the columns of marks read later, read now.
        source = self._source
        if name not in self._read_later:
            raise AttributeError(name)
        if source is None:
            # Another thread read the columns between this one's missing the slot and
            # now: the slot is set (object's lookup, not this hook again).
            return object.__getattribute__(self, name)
        _count, read, arguments = source
        for slot, column in zip(self._read_later, read(*arguments), strict=True):
            setattr(self, slot, column)
        self._source = None
        return getattr(self, name)

    # the columns ``read_later``'s read gives, in its order
    _read_later: tuple[str, ...] = ("_texts", "_ends", "_reasons", "_lines")

    def _filled(self) -> None:
        """The texts read from where ``later`` keeps them, once (two threads asking at
        once both read the same, and either's columns are kept)."""
        later = self._later
        if later is not None:
            self._texts, self._ends, self._nones = later()
            self._later = None

    def __len__(self) -> int:
        source = self._source
        return len(self._reasons) if source is None else source[0]

    _noun = "rejected entry"

    def _made(self, k: int) -> tuple[object, int, object, object]:
        if self._later is not None:
            self._filled()
        position = None if self._positions is None else self._positions[k]
        line = None if self._lines is None else self._lines[k]
        if self._nones is not None and self._nones[k]:
            return (None, self._reasons[k], position, line)
        start = self._ends[k - 1] if k else 0
        text = self._texts[start : self._ends[k]]  # type: ignore[index]  # filled above
        token: object = text
        if self._decode == "ucs4":  # a numpy U element: its code points, else its bytes
            try:
                token = text.decode(_UCS4, "surrogatepass")
            except UnicodeDecodeError:
                pass
        elif self._decode is not None:
            token = text.decode("utf-8", self._decode)
        return (token, self._reasons[k], position, line)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


class MarkedStrings(MarkedTexts):
    """A numpy StringDType array's marked elements: MarkedTexts of their UTF-8 bytes
    (``"surrogatepass"``), a missing element's token the dtype's missing value
    (``missing``: its ``na_object``) where ``nones`` flags it."""

    __slots__ = ("_missing",)

    def __init__(
        self, texts: bytes, ends: Any, reasons: bytes, missing: object, nones: bytes | None
    ) -> None:
        super().__init__(texts, ends, reasons, None, "surrogatepass", nones)
        self._missing = missing

    _read_later = ("_texts", "_ends", "_reasons", "_lines", "_nones")

    @classmethod
    def strings_later(
        cls, count: int, missing: object, read: Any, *arguments: Any
    ) -> MarkedStrings:
        """``count`` marked elements whose texts, ends, reasons, lines and missing flags
        are ``read(*arguments)`` when first asked for (from the elements' keys, copied
        at parse time: what is read later is the array as it was then)."""
        self = cls.__new__(cls)
        self._positions, self._decode, self._later = None, "surrogatepass", None
        self._missing, self._source = missing, (count, read, arguments)
        return self

    def _made(self, k: int) -> tuple[object, int, object, object]:
        entry = super()._made(k)
        if self._nones is not None and self._nones[k]:
            return (self._missing, *entry[1:])
        return entry


class MarkedObjects(MadeWhenRead):
    """The rejected entries (item, reason number, None, None) of parse_many over Python
    objects (a list, a tuple, an object array), kept as two columns until one is asked
    for: the items themselves (a tuple of references, no object made: the compiled
    export reads it in C, and nothing can resize it meanwhile) and one reason byte
    each.  A pickle holds them as a list."""

    __slots__ = ("_objects", "_reasons")

    def __init__(self, objects: tuple[object, ...], reasons: bytes) -> None:
        self._objects, self._reasons = objects, reasons

    def __len__(self) -> int:
        return len(self._reasons)

    _noun = "rejected entry"

    def _made(self, k: int) -> tuple[object, int, None, None]:
        return (self._objects[k], self._reasons[k], None, None)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


class Picked(MadeWhenRead):
    """Some of another result's rejected entries (a selection's): the source's columns
    and, for each, its position among them; its reasons a column too."""

    __slots__ = ("_at", "_reasons", "_source")

    def __init__(
        self, source: MarkedTexts | MarkedObjects, at: Any, reasons: bytes | None = None
    ) -> None:
        numpy = _numpy()
        self._source, self._at = source, at
        if reasons is None:
            reasons = numpy.frombuffer(source._reasons, numpy.uint8)[at].tobytes()
        self._reasons = reasons

    def __len__(self) -> int:
        return len(self._at)

    _noun = "rejected entry"

    def _made(self, k: int) -> Any:
        return self._source._made(int(self._at[k]))

    def entries(self) -> list[Any]:
        """All of them, as a list: each distinct source entry made once (a gathered
        categorical repeats a few), then shared."""
        numpy = _numpy()
        distinct, inverse = numpy.unique(self._at, return_inverse=True)
        made = [self._source._made(j) for j in distinct.tolist()]
        return [made[i] for i in inverse.tolist()]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self.entries(),))


def picked(rejected: Any, invalid: Any, rows: bytes) -> Any:
    """The rejected entries of the marked rows ``rows`` (int64, each among ``invalid``,
    the source's marked rows in order) of a result whose rejected entries these are: as
    columns where the source's are, else a list."""
    numpy = _numpy()
    wanted = numpy.frombuffer(rows, numpy.int64)
    if isinstance(rejected, Picked):  # a selection of a selection: of the first source
        at = numpy.searchsorted(numpy.frombuffer(invalid, numpy.int64), wanted)
        return Picked(rejected._source, rejected._at[at])
    if isinstance(rejected, (MarkedTexts, MarkedObjects)):
        return Picked(rejected, numpy.searchsorted(numpy.frombuffer(invalid, numpy.int64), wanted))
    by_row = dict(zip(invalid, rejected, strict=True))
    return [by_row[r] for r in wanted.tolist()]


def by_row(rejected: Any, invalid: Any, count: int) -> tuple[Any, bytes, bytes] | None:
    """For a gather from a result of ``count`` entries whose marked rows are
    ``invalid`` (int64, in order) and rejected entries ``rejected``: the columns the
    picked marks read (a MarkedTexts or MarkedObjects), and, by row, the position among
    them of the row's entry (int64) and its reason (one byte); 0 for an unmarked row.
    The gather then reads a marked row's mark in two loads, where the search for its
    place among the marked rows cost as much as the gather itself (a categorical's
    codes: millions of rows, a few hundred categories).  None where the marks are a
    list (no columns to read)."""
    numpy = _numpy()
    if isinstance(rejected, Picked):
        source, at = rejected._source, rejected._at
    elif isinstance(rejected, (MarkedTexts, MarkedObjects)):
        source, at = rejected, numpy.arange(len(rejected), dtype=numpy.int64)
    else:
        return None
    rows = numpy.frombuffer(invalid, numpy.int64)
    at_of = numpy.zeros(count, numpy.int64)
    at_of[rows] = at
    reason_of = numpy.zeros(count, numpy.uint8)
    reason_of[rows] = numpy.frombuffer(rejected._reasons, numpy.uint8)
    return source, at_of.tobytes(), reason_of.tobytes()


def taken(source: Any, at: Any, reasons: bytes) -> Picked:
    """The picked marks a gather read by row (by_row's): the source's entries at ``at``
    (an array('q')), their reasons ``reasons``."""
    numpy = _numpy()
    return Picked(source, numpy.frombuffer(at, numpy.int64), reasons)


def _second(entry: tuple[object, int, object, object]) -> int:
    return entry[1]


# -- labels: the pandas Index a result was read from, following its entries -------------
def take_labels(labels: Any, positions: Any) -> Any:
    """The labels of the entries a selection picks (positions: ints), or None."""
    if labels is None:
        return None
    numpy = _numpy()
    return labels.take(numpy.asarray(positions, numpy.int64).reshape(-1))


def valid_labels(labels: Any, result: object) -> Any:
    """The labels of the valid entries, or None."""
    return None if labels is None else labels[valid_mask(result)]


def sorted_labels(labels: Any, codes: Any) -> Any:
    """The labels in the order ``sorted()`` puts the entries (a stable sort by code)."""
    if labels is None:
        return None
    numpy = _numpy()
    return labels.take(numpy.argsort(numpy.asarray(codes), kind="stable"))


def joined_labels(parts: Sequence[Any]) -> Any:
    """The labels of concatenated results: all parts' labels in order (pandas'
    ``Index.append``), or None when no part has any.  Refused (ValueError) where some
    parts have labels and others none, and where their depths differ (a MultiIndex and
    a plain Index, or MultiIndexes of different depths): no label can be made up for an
    unlabelled entry that could not equal a real one (a RangeIndex repeats labels the
    other part may have, and a join would then put rows on the wrong labels), and
    ``Index.append`` would mix tuples and scalars in one object Index, which neither
    part's frame can be joined on."""
    if not parts:
        return None
    have = [p is not None for p in parts]
    if not any(have):
        return None
    if not all(have):
        raise ValueError(
            "a result with labels (read from a pandas index) and one without do not "
            "concatenate: the unlabelled entries have no label to join on"
        )
    depths = {getattr(p, "nlevels", 1) for p in parts}
    if len(depths) > 1:
        raise ValueError(
            f"results labelled by indexes of {' and '.join(map(str, sorted(depths)))} "
            "levels do not concatenate: one index would mix tuples and scalars"
        )
    return parts[0].append(list(parts[1:])) if len(parts) > 1 else parts[0]


def label_of(labels: Any, index: int | None) -> object:
    """The label of entry ``index``, or None."""
    if labels is None or index is None:
        return None
    label = labels[index]
    return label.item() if hasattr(label, "item") and not isinstance(label, tuple) else label


class ErrorList(MadeWhenRead):
    """What ``TokenArray.errors()`` returns: a read-only sequence of the ParseErrors of
    the entries marked invalid, in index order, each made when it is read.  A result
    with half a million marked entries gives its error count, its first errors or a
    slice at once, with no object per entry made before it is asked for; ``list()``
    makes them all.  For tokenize_many's result and its selections (layout given), an
    error's ``index`` and ``row`` are the refused text's row, as the ParseError raised
    there names it (its entry is ``invalid[k]``)."""

    __slots__ = ("_invalid", "_labels", "_layout", "_notation", "_rejected")

    def __init__(
        self, notation: str, invalid: Any, rejected: Any, labels: Any, layout: Any = None
    ) -> None:
        self._notation, self._invalid, self._rejected = notation, invalid, rejected
        self._labels, self._layout = labels, layout

    def __len__(self) -> int:
        return len(self._rejected)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its parts: pickle protocols 0 and 1 cannot save __slots__ alone.
        parts = (self._notation, self._invalid, self._rejected, self._labels, self._layout)
        return (ErrorList, parts)

    def _made(self, k: int) -> ParseError:
        token, reason, where, line = self._rejected[k]
        entry = self._invalid[k]
        notation = self._notation
        row = None
        layout = self._layout
        if layout is None:
            pass
        elif is_grouped(layout):  # the row whose entries hold the marked one
            from bisect import bisect_right

            row = bisect_right(layout[1], entry) - 1
        else:  # a selection's: each entry's row kept beside it
            row = int(layout[4][entry])
        return ParseError(
            token,
            reason_text(reason, notation),
            notation,
            entry if row is None else row,
            where,
            line,
            label_of(self._labels, entry),
            row,
        )

    _noun = "error"

    def __repr__(self) -> str:
        return f"<{len(self)} errors of {self._notation} entries>"


# -- layouts: where tokenize_many's entries came from, following them -----------------
# A whole result's layout is (offsets, row_offsets, missing rows, row labels): its rows'
# grouping.  A selection's (a slice, a mask, positions, valid(), sorted(), or a
# concatenation of one) is (offsets, None, None, None, rows, texts): each entry's offset
# and row kept as explicit arrays, and how many texts its rows number among, but no
# grouping by row (its entries need not be in row order, nor hold every token of a row).
NO_GROUPING = (
    "a selection of a tokenize_many result has no row grouping (its entries need not "
    "hold each row's tokens, in order): its rows and offsets are kept per entry; {} "
    "needs the whole result"
)


def is_grouped(layout: Any) -> bool:
    """Whether a layout is a whole result's (its rows' grouping known)."""
    return layout is not None and len(layout) == 4


def _int64s(values: Any) -> Any:
    numpy = _numpy()
    return numpy.frombuffer(values, numpy.int64) if len(values) else numpy.zeros(0, numpy.int64)


def _column(values: Any) -> Any:
    """An array('q') of a numpy integer array's values."""
    from array import array

    numpy = _numpy()
    column = array("q")
    column.frombytes(numpy.ascontiguousarray(values, numpy.int64).tobytes())
    return column


def layout_texts(layout: Any) -> int:
    """How many texts a layout's rows number among."""
    return len(layout[1]) - 1 if len(layout) == 4 else layout[5]


def layout_rows(layout: Any) -> Any:
    """Each entry's row, as a numpy int64 array."""
    numpy = _numpy()
    if len(layout) == 4:
        row_offsets = _int64s(layout[1])
        return numpy.repeat(numpy.arange(len(row_offsets) - 1), numpy.diff(row_offsets))
    return _int64s(layout[4])


def take_layout(layout: Any, positions: Any) -> Any:
    """The layout of the entries a selection picks (positions: ints, a range or a numpy
    integer array, each in range, negative from the end), or None: their offsets and
    rows, per entry, with no grouping by row."""
    if layout is None:
        return None
    numpy = _numpy()
    if isinstance(positions, range):
        at = numpy.arange(positions.start, positions.stop, positions.step, dtype=numpy.int64)
    else:
        # each in range (below 2**63), an empty list's float64 none
        at = numpy.asarray(positions).reshape(-1).astype(numpy.int64, copy=False)
    check_placed(layout, len(layout[0]))  # changed arrays: no grouping read by them
    offsets = _int64s(layout[0])
    rows = layout_rows(layout)
    return (
        _column(offsets.take(at)),
        None,
        None,
        None,
        _column(rows.take(at)),
        layout_texts(layout),
    )


def valid_layout(layout: Any, result: object) -> Any:
    """The layout of the valid entries, or None."""
    if layout is None:
        return None
    numpy = _numpy()
    return take_layout(layout, numpy.flatnonzero(valid_mask(result)))


def sorted_layout(layout: Any, codes: Any) -> Any:
    """The layout in the order ``sorted()`` puts the entries, or None."""
    if layout is None:
        return None
    numpy = _numpy()
    return take_layout(layout, numpy.argsort(numpy.asarray(codes), kind="stable"))


def joined_layout(layouts: Sequence[Any]) -> Any:
    """The layout of concatenated results, or None when no part has one.  The rows are
    positions among the texts read, so a later part's are numbered after the earlier
    parts' texts, as if one tokenize_many had read every part's texts in order: whole
    results join into a whole result (its grouping and missing rows the parts' in
    turn), any selection among them into a selection.  Refused (ValueError) where some
    parts have a layout and others none (a tokenize_many result and a parse_many one):
    the export's schema is the same whatever the data, and parse_many's entries have
    no row or offset to put in it."""
    if not layouts or all(layout is None for layout in layouts):
        return None
    if any(layout is None for layout in layouts):
        raise ValueError(
            "a tokenize_many result and a parse_many result do not concatenate: the "
            "parse_many entries have no row or offset"
        )
    for layout in layouts:  # changed arrays: no grouping read by them
        check_placed(layout, len(layout[0]))
    numpy = _numpy()
    offsets = _column(numpy.concatenate([_int64s(layout[0]) for layout in layouts]))
    texts = [layout_texts(layout) for layout in layouts]
    first_texts = numpy.cumsum([0, *texts[:-1]])
    if all(len(layout) == 4 for layout in layouts):
        ranges = [_int64s(layout[1]) for layout in layouts]
        first_entries = numpy.cumsum([0, *[r[-1] for r in ranges[:-1]]])
        row_offsets = numpy.concatenate(
            [numpy.zeros(1, numpy.int64)]
            + [r[1:] + start for r, start in zip(ranges, first_entries, strict=True)]
        )
        missing = numpy.concatenate(
            [numpy.zeros(0, numpy.int64)]
            + [
                _int64s(layout[2]) + start
                for layout, start in zip(layouts, first_texts, strict=True)
            ]
        )
        row_labels = joined_labels([layout[3] for layout in layouts])
        return (offsets, _column(row_offsets), _column(missing), row_labels)
    rows = numpy.concatenate(
        [numpy.zeros(0, numpy.int64)]
        + [layout_rows(layout) + start for layout, start in zip(layouts, first_texts, strict=True)]
    )
    return (offsets, None, None, None, _column(rows), int(sum(texts)))


LYING_LAYOUT = _messages.LYING_LAYOUT


def check_ranges(row_offsets: Any, count: int) -> None:
    """ValueError unless a whole result's row_offsets (its own array, which a caller
    could have changed) still run from 0 to its ``count`` entries, never going back."""
    numpy = _numpy()
    ranges = _int64s(row_offsets)
    if not (
        len(ranges)
        and ranges[0] == 0
        and ranges[-1] == count
        and bool(numpy.all(ranges[1:] >= ranges[:-1]))
    ):
        raise ValueError(LYING_LAYOUT)


def check_placed(layout: Any, count: int) -> None:
    """Before an export reads a layout: ValueError unless its arrays still describe the
    result's ``count`` entries (the arrays the properties give are the result's own,
    and could have been changed since)."""
    numpy = _numpy()
    offsets = layout[0]
    if len(layout) == 4:
        # the missing rows as a pickle's must be (checked_layout): rows, ascending,
        # each of no token
        check_ranges(layout[1], count)
        missing, rows = _int64s(layout[2]), len(layout[1]) - 1
        ok = bool(numpy.all((missing >= 0) & (missing < rows)))
        if ok and len(missing):
            ranges = _int64s(layout[1])
            ok = (
                bool(numpy.all(numpy.diff(missing) > 0))
                and not (ranges[missing + 1] - ranges[missing]).any()
            )
    else:
        entry_rows = _int64s(layout[4])
        ok = len(entry_rows) == count and bool(
            numpy.all((entry_rows >= 0) & (entry_rows < layout[5]))
        )
    if not (ok and len(offsets) == count and bool(numpy.all(_int64s(offsets) >= 0))):
        raise ValueError(LYING_LAYOUT)


def checked_layout(layout: object, count: int) -> Any:
    """tokenize_many's layout from a pickle, checked, never trusted, in either form
    (see above), each array an array('q'); None stays None.  A whole result's:
    offsets (one non-negative offset per entry), row_offsets (rows + 1 entries from 0
    to count, never going back), missing rows (in range, increasing, each an empty
    row), then the rows' labels (a pandas Index of rows entries, or None).  A
    selection's: offsets, rows (one each, from 0 to below texts) and texts (an int,
    not negative)."""
    if layout is None:
        return None
    from array import array
    from itertools import pairwise

    try:
        parts: list[Any] = list(layout)  # type: ignore[call-overload]
    except TypeError:
        parts = []
    if len(parts) == 6:
        return _checked_selection(parts, count)
    try:
        labels = parts.pop() if len(parts) == 4 else None  # a layout without them too
        offsets, row_offsets, missing = (array("q", part) for part in parts)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            "layout must be three sequences of integers and the rows' labels"
        ) from None
    rows = len(row_offsets) - 1
    try:
        labels_ok = labels is None or (
            hasattr(labels, "take") and hasattr(labels, "append") and len(labels) == rows
        )
    except TypeError:
        labels_ok = False
    ranges_ok = rows >= 0 and row_offsets[0] == 0 and row_offsets[-1] == count
    if not (
        len(offsets) == count
        and all(o >= 0 for o in offsets)
        and ranges_ok
        and all(a <= b for a, b in pairwise(row_offsets))
        and all(0 <= r < rows for r in missing)
        and all(a < b for a, b in pairwise(missing))
        and all(row_offsets[r] == row_offsets[r + 1] for r in missing)
        and labels_ok
    ):
        raise ValueError("layout does not describe these entries")
    return (offsets, row_offsets, missing, labels)


def _checked_selection(parts: list[Any], count: int) -> Any:
    from array import array

    offsets, row_offsets, missing, labels, rows, texts = parts
    try:
        offsets, rows = array("q", offsets), array("q", rows)
        texts_ok = type(texts) is int and texts >= 0
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            "a selection's layout must be its offsets, rows and number of texts"
        ) from None
    if not (
        row_offsets is None
        and missing is None
        and labels is None
        and texts_ok
        and len(offsets) == len(rows) == count
        and all(o >= 0 for o in offsets)
        and all(0 <= r < texts for r in rows)
    ):
        raise ValueError("layout does not describe these entries")
    return (offsets, None, None, None, rows, texts)


def joined(parts: list[Any]) -> Any:
    """The rejected entries of results concatenated in order: one MarkedObjects where
    every part's is one (their columns joined, no entry made), else a list."""
    if all(type(part) is MarkedObjects for part in parts):
        objects: list[object] = []
        for part in parts:
            objects += part._objects
        return MarkedObjects(tuple(objects), b"".join(part._reasons for part in parts))
    return [entry for part in parts for entry in part]
