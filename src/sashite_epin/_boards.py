"""``Epin.boards`` / ``Pin.boards``: a column of FEEN piece placements as board arrays.

The core (``scan_boards``: _boards_c.pxi, or its twin _placement_py.py) reads the
column, every input tokenize_many reads, and gives flat columns; this module only
shapes them with numpy (never re-parsing) and gives the texts back through the core's
``format_boards``."""

from __future__ import annotations

from ._core import core
from ._errors import ParseError, reason_text
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
        import numpy

        squares, lengths, separators, square_rows, rank_rows, refused = scanned
        self._flat = numpy.frombuffer(squares, dtype=numpy.int16)
        self._lengths = numpy.frombuffer(lengths, dtype=numpy.int32)
        self._separators = numpy.frombuffer(separators, dtype=numpy.uint8)
        self._square_rows = numpy.frombuffer(square_rows, dtype=numpy.int64)
        self._rank_rows = numpy.frombuffer(rank_rows, dtype=numpy.int64)
        self._refused = refused
        self._epin = epin
        self._labels = labels

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
        a refused or missing row).  As wide as the largest board."""
        import numpy

        counts = self.square_counts()
        width = int(counts.max()) if len(counts) else 0
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
    return Boards(scanned, epin, labels)
