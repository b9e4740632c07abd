"""``parse_many``'s input readers, pure Python: the twin of ``_bulk_c.pxi``.

Same inputs, same results, same errors; slower.  Lists and iterables of str (None,
NaN and pandas.NA are missing values), byte buffers (split as ``bytes.split()``
splits), numpy ``S`` / ``U`` / object / StringDType arrays; Arrow columns are read by
``_arrow_py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, islice
from typing import Any

from ._array_py import Rejected, TokenArray
from ._arrow_py import arrow_chunks
from ._errors import ParseError, reason_text
from ._inputs import (
    ARROW_ARRAY,
    ARROW_STREAM,
    OBJECTS,
    STRING_DTYPE,
    input_kind,
    is_missing,
    is_sequence,
    own_items,
)
from ._lanes_py import read_lines, read_words
from ._layout import RECORD_SIZE, all_codes, record_of_code
from ._messages import MISSING
from ._scan_py import format_code, scan

_ZERO = bytes(RECORD_SIZE)
_SEPARATORS = re.compile(rb"([ \t\n\x0b\x0c\r]+)")
_CHUNK = 65536  # items read at a time
_CHUNK_BYTES = 1 << 19  # bytes of a buffer read at a time, to the next separator

# The record of every token, by its text as str and as bytes, per notation: what the
# twin's own formatter writes for each code, so exactly the strings its scanner
# accepts.  The bulk readers look entries up here at C speed (dict lookups through
# map()), and scan only what is not found, for its reason: the pure-Python core is then
# no slower than the obvious code, a dict over a list.  The grammar still judges every
# entry the table does not hold.
_KNOWN: dict[tuple[bool, type], dict[object, bytes]] = {}


def _known(epin: bool, kind: type) -> dict[object, bytes]:
    table = _KNOWN.get((epin, kind))
    if table is None:
        table = {}
        for code in all_codes():
            if epin or not code & 1:
                text = format_code(code)
                table[text if kind is str else text.encode("ascii")] = record_of_code(code)
        _KNOWN[(epin, kind)] = table  # two threads build the same table
    return table


class _Collector:
    """Records and invalid indices, as the tokens are scanned one by one."""

    def __init__(self, epin: bool, mark: bool) -> None:
        self.epin, self.mark = epin, mark
        self.records = bytearray()
        self.invalid: list[int] = []
        self.rejected: list[Rejected] = []
        self.counted, self.lines = 0, 1  # bytes input: the line at byte offset counted
        self.misses = 0  # parts the fast road refused: past two, a dirty input

    def whole(self, records: bytes | None) -> bool:
        """Keep the records the fast road read for a whole part, if it read them."""
        if records is None:
            self.misses += self.fast
            return False
        self.records += records
        return True

    @property
    def fast(self) -> bool:
        """Whether to try the fast road (_lanes_py) on the next part: it never decides
        an error, so on an input with errors in every part it is only a cost."""
        return self.misses < 2

    def add(self, *entry: Any) -> None:
        """Judge one entry (judge's arguments) and keep its record."""
        self.records += self.judge(*entry)

    def add_known(
        self, base: int, records: list[bytes | None], miss: Callable[[int], tuple[Any, ...]]
    ) -> None:
        """Entries base, base + 1, ...: records holds each one's record where the table
        of known tokens had it, None where not; miss(i) gives judge's token, text (and
        position, data) for entry base + i, judged in order."""
        i = 0
        while True:
            try:
                i = records.index(None, i)
            except ValueError:
                break
            records[i] = self.judge(base + i, *miss(i))
            i += 1
        self.records += b"".join(records)  # type: ignore[arg-type]

    def judge(
        self,
        index: int,
        token: object,
        text: str | None,
        position: int | None = None,
        data: bytes = b"",
    ) -> bytes:
        """The record of one entry, scanned from its text (None: a missing value), or a
        zero record once it is marked invalid (ParseError under errors="raise"); token
        is what an error names, position its byte offset in data for bytes input."""
        code = -MISSING if text is None else scan(text, self.epin)
        if code >= 0:
            return record_of_code(code)
        notation = "EPIN" if self.epin else "PIN"
        line = None
        if position is not None:  # lines counted once, from the previous bad token on
            self.lines += data.count(b"\n", self.counted, position)
            self.counted, line = position, self.lines
        if not self.mark:
            raise ParseError(token, reason_text(-code, notation), notation, index, position, line)
        self.invalid.append(index)
        self.rejected.append((token, -code, position, line))
        return _ZERO

    def result(self) -> TokenArray:
        return TokenArray._make(self.epin, bytes(self.records), self.invalid, self.rejected)


def parse_many(tokens: object, epin: bool, errors: str = "raise") -> TokenArray:
    """Parse many tokens at once into a TokenArray; see Pin.parse_many / Epin.parse_many."""
    if errors not in ("raise", "mark"):
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
    collector = _Collector(epin, errors == "mark")
    if is_sequence(tokens):
        items = own_items(tokens)
        # A chunk at a time: the temporaries of a whole big list would be fresh memory
        # the system maps and faults in on every call (100,000 faults for 3M tokens).
        for base in range(0, len(items), _CHUNK):
            _parse_list(items[base : base + _CHUNK], base, collector)
        return collector.result()
    if isinstance(tokens, str):
        raise TypeError(
            "parse_many takes many tokens (a list of str, a bytes-like object "
            "or a numpy array), not one str"
        )
    kind = input_kind(tokens)
    if kind in (ARROW_ARRAY, ARROW_STREAM):
        known = _known(epin, bytes)
        base = 0
        chunks = arrow_chunks(tokens, epin)
        try:  # closed at once on an error: the producer's structs released now
            for entries, binary, error in chunks:
                if isinstance(entries, bytes):  # all tokens: their records
                    collector.records += entries
                    base += len(entries) // RECORD_SIZE
                    continue
                _parse_arrow_chunk(entries, binary, base, known, collector)
                if error is not None:  # after the entries before it, as the compiled core
                    raise error
                base += len(entries)
        finally:
            chunks.close()
        return collector.result()
    if kind == OBJECTS:
        tokens = tokens.to_numpy()  # type: ignore[attr-defined]
    elif kind == STRING_DTYPE:
        tokens = tokens.astype(object)  # type: ignore[attr-defined]
    try:
        view = memoryview(tokens)  # type: ignore[arg-type]
    except TypeError:
        pass
    else:
        with view:
            if view.format != "O":
                _parse_buffer(view, collector, tokens)
                return collector.result()
            if view.ndim != 1:
                raise ValueError(
                    f"parse_many needs a 1-dimensional array, not {view.ndim}-dimensional"
                )
    try:
        items = iter(tokens)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(
            "parse_many takes a list of str, a bytes-like object, a numpy array or an "
            f"Arrow string column, not {type(tokens).__name__}"
        ) from None
    base = 0
    while chunk := list(islice(items, _CHUNK)):
        _parse_list(chunk, base, collector)
        base += len(chunk)
    return collector.result()


def _parse_list(items: Sequence[object], base: int, collector: _Collector) -> None:
    """Entries base, base + 1, ... of a list: all at once on the fast road, else
    through the table of known tokens."""
    if collector.fast and collector.whole(read_lines(items, collector.epin)):
        return
    known = _known(collector.epin, str)
    # Types by identity (id): a metaclass's __eq__ or __hash__ may lie too.
    kinds = set(map(id, map(type, items)))
    if kinds == _STR:  # exact str: a subclass's hash and eq lie freely
        try:
            collector.records += b"".join(map(known.__getitem__, items))
            return
        except KeyError:
            pass
    if kinds <= _PLAIN:
        records = list(map(known.get, items))
        collector.add_known(base, records, lambda i: _text_of(items[i], base + i))
    else:
        _parse_objects(items, collector, base)


# Items looked up as they are where some are not tokens: exact str, and the usual
# missing values (a float NaN, None); anything else goes one by one.
_PLAIN = {id(str), id(float), id(type(None))}
_STR = {id(str)}


def _text_of(item: object, index: int) -> tuple[object, str | None]:
    """An item's token and text for the collector (text None: a missing value)."""
    if type(item) is str:
        return item, item
    if is_missing(item):
        return item, None
    raise TypeError(f"item {index} is {type(item).__name__}, not str")


def _parse_arrow_chunk(
    entries: list[bytes | None],
    binary: bool,
    base: int,
    known: dict[object, bytes],
    collector: _Collector,
) -> None:
    """One chunk's entries as bytes (None: missing).  A utf8 column's text is read as
    UTF-8, undecodable bytes replaced, and names an error as str; a binary column's
    names it as bytes."""

    def miss(i: int) -> tuple[object, str | None]:
        entry = entries[i]
        if entry is None:
            return None, None
        text = entry.decode("utf-8", "replace")
        return (entry if binary else text), text

    try:
        collector.records += b"".join(map(known.__getitem__, entries))
    except KeyError:
        collector.add_known(base, list(map(known.get, entries)), miss)


def _parse_objects(items: Iterable[object], collector: _Collector, base: int = 0) -> None:
    for i, item in enumerate(items, base):
        if issubclass(type(item), str):  # not isinstance: __class__ may lie
            collector.add(i, item, item if type(item) is str else str.__str__(item))
        elif is_missing(item):
            collector.add(i, item, None)
        else:
            raise TypeError(f"item {i} is {type(item).__name__}, not str")


def _element_token(element: bytes) -> tuple[object, str]:
    """A U element's token and text, NUL padding removed.  The token is the text, or the
    raw bytes when a unit is no code point (numpy does not check what a buffer holds);
    such a unit reads as U+FFFD, which no token holds."""
    units = memoryview(element).cast("I").tolist()  # native byte order, as numpy's U
    while units and units[-1] == 0:
        units.pop()
    if all(u < 0x110000 for u in units):
        text = "".join(map(chr, units))
        return text, text
    text = "".join(chr(u) if u < 0x110000 else "\ufffd" for u in units)
    return element[: 4 * len(units)], text


def _parse_buffer(view: memoryview, collector: _Collector, source: object) -> None:
    fmt = view.format
    if fmt[-1:] in ("s", "w"):
        wide = fmt[-1:] == "w"
        if view.ndim != 1:
            raise ValueError(f"parse_many needs a 1-dimensional array, not {view.ndim}-dimensional")
        if wide and fmt[:1] in (">", "!"):
            raise ValueError("parse_many reads U arrays in native byte order (use .astype('U'))")
        done = _parse_elements(source, wide, collector)
        raw, size = view.tobytes(), view.itemsize  # tobytes: logical order, any strides
        for k in range(done, view.shape[0] if view.shape else 0):
            element = raw[k * size : (k + 1) * size]
            if wide:
                collector.add(k, *_element_token(element))
            else:
                token = element.rstrip(b"\0")
                collector.add(k, token, token.decode("latin-1"))
        return
    if view.itemsize != 1 or fmt.lstrip("@=<>!") not in ("B", "b", "c"):
        raise TypeError(
            "parse_many reads bytes, or numpy arrays of dtype S or U; "
            f"not a buffer of format {fmt!a}"
        )
    if not view.c_contiguous:
        raise ValueError(
            "parse_many needs a contiguous bytes buffer (copy it first, e.g. bytes(view))"
        )
    # The runs bytes.split() gives: the compiled core's separators are b" \t\n\v\f\r".
    data = view.tobytes()
    known = _known(collector.epin, bytes)
    base = start = 0
    while start < len(data):
        # A part at a time, cut where a separator begins (no token is cut): the tokens
        # of a whole big buffer, as objects, would be fresh memory on every call.
        cut = _SEPARATORS.search(data, start + _CHUNK_BYTES)
        stop = len(data) if cut is None else cut.start()
        part = data[start:stop]
        whole = read_words(part, collector.epin) if collector.fast else None
        if collector.whole(whole):
            base += len(whole) // RECORD_SIZE  # type: ignore[arg-type]
            start = stop
            continue
        parts = part.split()
        try:
            collector.records += b"".join(map(known.__getitem__, parts))
        except KeyError:
            records = list(map(known.get, parts))
            at = [start + s for s in _token_starts(part)]
            collector.add_known(base, records, _placed(parts, at, data))
        base += len(parts)
        start = stop


def line_faults(data: bytes) -> tuple[int, list[tuple[int, int, int]], bytes]:
    """One token a line of ``data`` (bytes; a line ends at b"\\n", and one final b"\\r"
    of a line, before its b"\\n" or at the end, is no part of it), for reading the lines
    with parse_many's whitespace split: ``(lines, faults, clean)``.  ``lines`` is how
    many lines ``data`` holds (the bytes after the last b"\\n" are one more);
    ``faults`` is ``(index, start, end)`` for each line the split would not read as one
    token, in order: one empty (or b"\\r" alone), or holding whitespace (bytes.split()'s)
    besides its final b"\\r"; ``index`` counts lines from 0 and ``data[start:end]`` is
    the line, its final b"\\r" kept.  ``clean`` is ``data`` with those lines' bytes
    turned to spaces (``data`` itself when there is none): parse_many reads one token
    from each other line, its error ``line`` the line's, and none from these."""
    if type(data) is not bytes:
        raise TypeError(f"line_faults takes bytes, not {type(data).__name__}")
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()  # a final b"\n" ends the last line rather than starting one
    faults = []
    start = 0
    for index, line in enumerate(lines):
        body = line[:-1] if line.endswith(b"\r") else line
        if body.split() != [body]:  # empty, or whitespace in it
            faults.append((index, start, start + len(line)))
        start += len(line) + 1
    if not faults:
        return len(lines), faults, data
    clean = bytearray(data)
    for _, start, end in faults:
        clean[start:end] = b" " * (end - start)
    return len(lines), faults, bytes(clean)


def _token_starts(data: bytes) -> list[int]:
    """The byte offset of each token of data, at C speed: the runs between separators
    and the separators alternate in re.split's list, whose lengths add up to where each
    begins."""
    pieces = _SEPARATORS.split(data)
    offsets = list(accumulate(map(len, pieces), initial=0))
    return [at for at, piece in zip(offsets[::2], pieces[::2], strict=False) if piece]


def _past_code_points(chunk: Any) -> bool:
    """Whether a U array holds a unit above 0x10FFFF (numpy does not check what a buffer
    it is given holds): its tolist() raises SystemError for some such elements and, for
    others, makes a str holding the unit, which fails only when a character is read."""
    import numpy  # the array is numpy's

    units = numpy.ascontiguousarray(chunk).view(numpy.uint32)
    return bool(len(units)) and int(units.max()) > 0x10FFFF


def _parse_elements(source: object, wide: bool, collector: _Collector) -> int:
    """A numpy S or U array through tolist() (the elements, trailing NULs removed, as
    _parse_buffer reads them), a chunk at a time, and the table of known tokens; how
    many elements it read: it stops at a chunk whose elements do not come out that way
    (a U unit that is no code point), to be read element by element."""
    if type(source).__module__ != "numpy":  # a memoryview or another buffer: no tolist()
        return 0
    count = len(source)  # type: ignore[arg-type]
    known = _known(collector.epin, str if wide else bytes)
    for base in range(0, count, _CHUNK):
        chunk = source[base : base + _CHUNK]  # type: ignore[index]
        if wide and _past_code_points(chunk):
            return base
        try:
            items = chunk.tolist()
        except (SystemError, ValueError, UnicodeError):
            return base
        if collector.fast and collector.whole(read_lines(items, collector.epin, not wide)):
            continue
        try:
            collector.records += b"".join(map(known.__getitem__, items))
            continue
        except KeyError:
            pass
        records = list(map(known.get, items))
        collector.add_known(base, records, _as_read(items, latin1=not wide))
    return count


def _as_read(items: list[Any], latin1: bool) -> Callable[[int], tuple[Any, ...]]:
    """The token and text of item i (bytes read as Latin-1), for add_known."""
    if latin1:
        return lambda i: (items[i], items[i].decode("latin-1"))
    return lambda i: (items[i], items[i])


def _placed(parts: list[bytes], at: list[int], data: bytes) -> Callable[[int], tuple[Any, ...]]:
    """The token, text, byte offset and buffer of token k of a buffer, for add_known."""
    return lambda k: (parts[k], parts[k].decode("latin-1"), at[k], data)
