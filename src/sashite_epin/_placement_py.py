"""Whole FEEN piece placements, pure Python: the twin of ``_placement.h`` (the C API's
scan_placement and format_placement) and of ``_boards_c.pxi`` (a column of them, for
Epin.boards).  The same reasons at the same offsets as the C loop: it is a line-by-line
port of it, over a str (offsets in characters)."""

from __future__ import annotations

from array import array
from typing import Any

from . import _messages as reasons
from ._arrow_py import NotText, arrow_texts
from ._errors import ParseError, reason_text
from ._inputs import is_missing, is_sequence, own_items
from ._layout import is_code
from ._scan_py import format_code, scan_prefix, stray_reason

# The squares one board may hold (its runs of empty squares counted): past it a run is
# RUN_TOO_LONG, a piece or a rank NO_ROOM.  Both cores' word, and docs/guide.md's.
BOARD_SQUARES = 1 << 16

_CODES = {True: {}, False: {}}  # type: dict[bool, dict[str, int]]


def _letter(c: str) -> bool:
    return ("A" <= c <= "Z") or ("a" <= c <= "z")


def _not_a_token(s: str, at: int, last: int, epin: bool) -> int:
    """Why no token starts at s[at]: as the C wrapper asks the core's stop_reason (a
    stray "^" or "'" right after the token at last is judged with it)."""
    if not epin and s[at] == "'":
        return reasons.DERIVATION_IN_PIN
    if last >= 0 and s[at] in "^'":
        code, length = scan_prefix(s, last, epin)
        if code >= 0 and last + length == at:
            return stray_reason(s, last, at, epin)
    return -scan_prefix(s, at, epin)[0]


def scan_placement(
    s: str, epin: bool, room: int = BOARD_SQUARES, rank_room: int = BOARD_SQUARES
) -> tuple[int, int, list[int], list[int], list[int]]:
    """(0, 0, squares, rank lengths, separators), or (reason, offset, ...) with what was
    read before the fault."""
    squares: list[int] = []
    lengths: list[int] = []
    separators: list[int] = []
    n = len(s)
    if not n:
        return reasons.EMPTY, 0, squares, lengths, separators
    i = rank_start = separator_at = 0
    last = -1
    while i < n:
        c = s[i]
        if c in "+-" or _letter(c):
            start = i
            if c in "+-":
                if i + 1 >= n or not _letter(s[i + 1]):
                    return _not_a_token(s, i, last, epin), i, squares, lengths, separators
                i += 1
            i += 1
            if i < n and s[i] == "^":
                i += 1
            if epin and i < n and s[i] == "'":
                i += 1
            if len(squares) >= room:
                return reasons.NO_ROOM, start, squares, lengths, separators
            squares.append(_code(s[start:i], epin))
            last = start
        elif "1" <= c <= "9":
            at = i
            while i < n and "0" <= s[i] <= "9":
                i += 1
            if _run_too_long(s, at, i, room - len(squares)):
                return reasons.RUN_TOO_LONG, at, squares, lengths, separators
            squares += [-1] * int(s[at:i])
        elif c == "/":
            separator = 2 if s.startswith("//", i) else 1
            if s.startswith("///", i):
                return reasons.TOO_MANY_SEPARATORS, i, squares, lengths, separators
            if len(squares) == rank_start:
                return reasons.EMPTY_RANK, i, squares, lengths, separators
            if len(lengths) >= rank_room:
                return reasons.NO_ROOM, i, squares, lengths, separators
            lengths.append(len(squares) - rank_start)
            separators.append(separator)
            rank_start, separator_at = len(squares), i
            i += separator
        elif c == "0":
            return reasons.LEADING_ZERO, i, squares, lengths, separators
        else:  # a stray marker, a space, any other character: what tokenize says
            return _not_a_token(s, i, last, epin), i, squares, lengths, separators
    if len(squares) == rank_start:  # the text ends with a separator
        return reasons.EMPTY_RANK, separator_at, squares, lengths, separators
    if len(lengths) >= rank_room:
        return reasons.NO_ROOM, n, squares, lengths, separators
    lengths.append(len(squares) - rank_start)
    separators.append(0)
    return 0, 0, squares, lengths, separators


def _run_too_long(s: str, at: int, end: int, left: int) -> bool:
    """Whether the count s[at:end] (no leading zero) is past the left squares: judged by
    its length first, as the C loop stops once the count passes them, so no run of
    digits is ever converted whole (int() refuses a str of more than 4300 digits)."""
    most = str(left)
    return end - at > len(most) or (end - at == len(most) and s[at:end] > most)


def _code(token: str, epin: bool) -> int:
    codes = _CODES[epin]
    code = codes.get(token)
    if code is None:
        code = codes[token] = scan_prefix(token, 0, epin)[0]
    return code


def format_placement(squares: Any, lengths: Any, separators: Any, epin: bool) -> tuple[int, str]:
    """(0, the text of one board), or (the reason it is no board, ""): the C loop's
    word on columns that lie (a rank of no square, ranks holding more or fewer squares
    than there are, a separator neither "/" nor "//", a code no token has)."""
    out: list[str] = []
    sq = 0
    for r, length in enumerate(lengths):
        if length <= 0:
            return reasons.EMPTY_RANK, ""
        end = sq + int(length)
        if end > len(squares):
            return reasons.NO_ROOM, ""
        while sq < end:
            code = int(squares[sq])
            if code == -1:
                run = sq
                while sq < end and squares[sq] == -1:
                    sq += 1
                out.append(str(sq - run))
                continue
            if not is_code(code):
                return reasons.NOT_A_CODE, ""
            if not epin and code & 1:  # a derived token's code
                return reasons.DERIVATION_IN_PIN, ""
            out.append(format_code(code))
            sq += 1
        if r + 1 < len(lengths):
            if separators[r] not in (1, 2):
                return reasons.TOO_MANY_SEPARATORS, ""
            out.append("/" * int(separators[r]))
    if sq != len(squares):
        return reasons.NO_ROOM, ""
    return 0, "".join(out)


def scan_boards(texts: object, epin: bool, errors: str) -> tuple[Any, ...]:
    """Every placement of a list or tuple of texts (None, NaN, pandas.NA: missing) or
    of an Arrow string column, as flat columns: squares (int16), rank lengths (int32),
    separators (uint8), each row's start in squares and in ranks (int64, rows + 1), and
    the refused rows (row, reason, offset, text); ParseError at the first one unless
    errors is "mark"."""
    if errors not in ("raise", "mark"):
        raise ValueError(f"errors must be 'raise' or 'mark', not {errors!a}")
    stopped = None
    if not is_sequence(texts):
        kind = type(texts)
        if not (hasattr(kind, "__arrow_c_array__") or hasattr(kind, "__arrow_c_stream__")):
            raise TypeError(
                "boards reads a list or tuple of str or an Arrow string column here, "
                f"not {type(texts).__name__}"
            )
        texts, stopped = arrow_texts(texts)
    notation = "EPIN" if epin else "PIN"
    squares, lengths, separators = array("h"), array("i"), array("B")
    square_rows, rank_rows = array("q", [0]), array("q", [0])
    refused: list[tuple[int, int, int | None, object]] = []
    for i, text in enumerate(own_items(texts)):
        kind = type(text)
        if kind is NotText:  # an Arrow row that is not UTF-8: its U+FFFD is no letter
            s: Any = text.before + "\ufffd"
        elif issubclass(kind, str):  # not isinstance: an object's __class__ may lie
            s = text if kind is str else str.__str__(text)
        elif is_missing(text):
            s = None
        else:
            raise TypeError(f"item {i} is {kind.__name__}, not str")
        if s is None:
            reason, at = reasons.MISSING, None
        else:
            reason, at, row, row_lengths, row_separators = scan_placement(s, epin)
        if reason:
            token = text if s is None else s
            if errors == "raise":
                raise ParseError(token, reason_text(reason, notation), notation, i, at, row=i)
            refused.append((i, reason, at, token))
        else:
            squares.extend(row)
            lengths.extend(row_lengths)
            separators.extend(row_separators)
        square_rows.append(len(squares))
        rank_rows.append(len(lengths))
    if stopped is not None:  # after the rows before it are judged, as read in order
        raise stopped
    return squares, lengths, separators, square_rows, rank_rows, refused


def format_boards(
    squares: Any, lengths: Any, separators: Any, square_rows: Any, rank_rows: Any, epin: bool
) -> list[str | None]:
    """Each row's placement text (None for a row of no rank: refused or missing);
    ValueError naming the first row whose starts or ranks lie."""
    # The starts copied before they are judged (another thread may write them), each
    # row's judged before any of its squares is read, as in the compiled core.
    starts, rank_starts = list(square_rows), list(rank_rows)
    if len(starts) != len(rank_starts):
        raise ValueError("square_rows and rank_rows must hold as many rows")
    notation = "EPIN" if epin else "PIN"
    square_count, rank_count = len(squares), min(len(lengths), len(separators))
    out: list[str | None] = []
    for r in range(len(starts) - 1):
        a, b, s0, s1 = rank_starts[r], rank_starts[r + 1], starts[r], starts[r + 1]
        if not (0 <= s0 <= s1 <= square_count and 0 <= a <= b <= rank_count):
            raise ValueError(f"row {r} is no board: its starts lie outside the columns")
        if a == b:
            out.append(None)
            continue
        reason, text = format_placement(squares[s0:s1], lengths[a:b], separators[a:b], epin)
        if reason:
            raise ValueError(f"row {r} is no board: {reason_text(reason, notation)}")
        out.append(text)
    return out


def lay_out_boards(squares: Any, square_rows: Any, out: Any) -> None:
    """Each row's squares (int16, the rows one after the other, row r from
    square_rows[r] to square_rows[r + 1]) into row r of out, a writable C-contiguous
    int16 array of rows x width, CODE_NONE after them: what Boards.squares() gives."""
    import numpy

    flat = numpy.frombuffer(squares, dtype=numpy.int16)
    starts = numpy.frombuffer(square_rows, dtype=numpy.int64).copy()
    if out.dtype.itemsize != 2:
        raise TypeError("out must hold int16")
    rows = len(starts) - 1
    width = out.shape[1] if out.ndim == 2 and rows > 0 else 0
    if rows > 0 and out.shape != (rows, width):
        raise ValueError("out is no rows x width int16 array")
    counts = numpy.diff(starts)
    misfit = (starts[:-1] < 0) | (counts < 0) | (counts > width) | (starts[1:] > len(flat))
    if misfit.any():  # the first, as the compiled core finds it
        raise ValueError(f"row {int(misfit.argmax())} does not fit out")
    if rows <= 0:
        return
    out.fill(-1)
    out[numpy.arange(width) < counts[:, None]] = flat[int(starts[0]) : int(starts[-1])]
