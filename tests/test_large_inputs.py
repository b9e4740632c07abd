"""Inputs larger than the pieces the cores read at a time (the twin reads lists and
numpy arrays 65,536 entries at a time and byte buffers half a MiB at a time, cut where
a separator begins): invalid entries at, before and after each edge give the same
entries, indices, byte offsets and lines as one token at a time would."""

from __future__ import annotations

import re
from types import ModuleType

import numpy as np
import pytest

from sashite_epin import Epin
from sashite_epin._corpora import uniform

CHUNK = 65536
COUNT = 3 * CHUNK + 17
BAD = sorted({0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK - 1, 2 * CHUNK, COUNT - 1})


def entries() -> list[str]:
    tokens = uniform(COUNT)
    for i in BAD:
        tokens[i] = "K+" if i % 2 else "x1"
    return tokens


def expected(tokens: list[str]) -> tuple[list[int], list[object]]:
    """The invalid indices and their reasons, one token at a time."""
    bad = [i for i, t in enumerate(tokens) if not Epin.is_valid(t)]
    return bad, [Epin.safe_parse(t) for t in tokens]


@pytest.mark.parametrize("kind", ["list", "U", "S"])
def test_lists_and_arrays_larger_than_a_chunk(core: ModuleType, kind: str) -> None:
    tokens = entries()
    data: object = tokens if kind == "list" else np.array(tokens, dtype=f"{kind}4")
    result = core.parse_many(data, True, errors="mark")
    bad, objects = expected(tokens)
    assert list(result.invalid) == bad == BAD
    assert list(result) == objects
    with pytest.raises(ValueError) as caught:
        core.parse_many(data[1:], True)  # type: ignore[index]
    assert caught.value.index == 0  # type: ignore[attr-defined]


def test_a_buffer_larger_than_a_piece_keeps_offsets_and_lines(core: ModuleType) -> None:
    tokens = entries()
    # Runs of separators of every kind, some long, so that the half-MiB cuts land in
    # tokens and in separator runs alike; a line break every 7 tokens.
    seps = [" ", "\t", "  \r\n", "\n", " \x0b\x0c ", "\n" + " " * 40]
    text = "".join(t + seps[i % len(seps)] for i, t in enumerate(tokens))
    data = text.encode()
    result = core.parse_many(data, True, errors="mark")
    found = list(re.finditer(rb"[^ \t\n\x0b\x0c\r]+", data))
    want = [
        (i, m.group(), m.start(), data.count(b"\n", 0, m.start()) + 1)
        for i, m in enumerate(found)
        if not Epin.is_valid(m.group().decode())
    ]
    got = [(e.index, e.token, e.position, e.line) for e in result.errors()]
    assert got == want and len(want) == len(BAD)
    assert list(result) == expected(tokens)[1]
