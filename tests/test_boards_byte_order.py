"""A Boards made from columns of the right dtype but the other byte order is refused
(TypeError), as one of another dtype is: their items would be read as the machine's,
squares() giving codes no token has and rank lengths no board has."""

from __future__ import annotations

import numpy as np
import pytest

from sashite_epin import Boards, Epin


@pytest.mark.parametrize("column", [0, 1, 3, 4])
def test_a_column_of_the_other_byte_order_is_a_type_error(column: int) -> None:
    board = Epin.boards(["K/q", None, "3//2"], errors="mark")
    parts = [np.asarray(c) for c in (board._flat, board._lengths, board._separators,
                                     board._square_rows, board._rank_rows)]  # fmt: skip
    parts[column] = parts[column].astype(parts[column].dtype.newbyteorder())
    with pytest.raises(TypeError, match="must hold"):
        Boards((*parts, board._refused), True)
    parts[column] = parts[column].astype(parts[column].dtype.newbyteorder())  # back
    assert Boards((*parts, board._refused), True).placements() == ["K/q", None, "3//2"]
