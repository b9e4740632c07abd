"""The token lists and corpora the tests, the benchmarks, the fuzz targets and the bench
command share (deterministic).  The lists are spelled out from the specs' grammar, apart
from both cores, so that they can check them."""

from __future__ import annotations

import random
import re

LETTERS = [chr(c) for c in range(65, 91)] + [chr(c) for c in range(97, 123)]
PIN_TOKENS = [p + c + t for p in ("", "+", "-") for c in LETTERS for t in ("", "^")]  # 312
EPIN_TOKENS = [t + d for t in PIN_TOKENS for d in ("", "'")]  # 624


def uniform(count: int, seed: int = 1) -> list[str]:
    """Uniformly random over all 624 EPIN tokens: the branch predictor's worst case."""
    rng = random.Random(seed)
    return rng.choices(EPIN_TOKENS, k=count)


# Piece letters of chess, shōgi, xiangqi and makruk; kings carry "^".
_REAL = ["P"] * 30 + ["R", "N", "B", "Q", "L", "S", "G", "C", "A", "E", "H", "M"] * 3 + ["K^"] * 4


def realistic(count: int, seed: int = 2) -> list[str]:
    """Tokens as positions hold them: mostly plain letters, "^" on kings, few + - '."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        token = rng.choice(_REAL)
        token = token.lower() if rng.random() < 0.5 else token
        roll = rng.random()
        if roll < 0.04:
            token = "+" + token
        elif roll < 0.06:
            token = "-" + token
        if rng.random() < 0.03:
            token += "'"
        out.append(token)
    return out


def distinct(tokens: list[str]) -> list[str]:
    """The same tokens, each its own str object, as a reader that builds every string
    hands them out (str.split(), json, Arrow's to_pylist()); 1-character strs stay the
    interpreter's shared ones, as they do there.  uniform() and realistic() repeat
    objects: rng.choices picks from one list of them."""
    return [t.encode().decode() for t in tokens]


def with_invalid(count: int, seed: int = 3) -> list[str]:
    """Valid tokens with every fifth or so replaced by a near miss."""
    rng = random.Random(seed)
    misses = [
        "",
        "KK",
        "K+",
        "^K",
        "++K",
        "K^^",
        "K''",
        "K'^",
        "1",
        "K ",
        " K",
        "K\n",
        "\u212a",
        "K\u0301",
        "+K^'X",
        "k\x00",
    ]
    return [rng.choice(misses) if rng.random() < 0.2 else t for t in uniform(count, seed)]


# FEEN-like piece placements (back-to-back EPIN tokens, digit runs, "/"): chess with
# enhanced/diminished pawns and rooks, shogi, xiangqi, and a cross-style chess game.
PLACEMENTS = [
    "-rnbqk^bn-r/+p+p+p+p+p+p+p+p/8/8/8/8/+P+P+P+P+P+P+P+P/-RNBQK^BN-R",
    "lnsgk^gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGK^GSNL",
    "rheag^aehr/9/1c5c1/s1s1s1s1s/9/9/S1S1S1S1S/1C5C1/9/RHEAG^AEHR",
    "-rnbqk^'bn-r/+p+p+p+p+p+p+p+p/8/8/8/8/+P'+P+P+P+P+P+P+P/-RNBQK^BN-R",
]


def _board(ranks: list[str]) -> list[list[str]]:
    """A placement's ranks as squares ("" empty), from ranks written without counts."""
    square = r"[-+]?[A-Za-z]\^?'?|\."
    return [[("" if c == "." else c) for c in re.findall(square, r)] for r in ranks]


_XIANGQI = ["rheag^aehr", "." * 9, ".c.....c.", "s.s.s.s.s", "." * 9, "." * 9, "S.S.S.S.S"]
_XIANGQI += [".C.....C.", "." * 9, "RHEAG^AEHR"]
_STARTS = [
    # chess, shogi, xiangqi: 2-D, "/" between ranks
    _board(["-rnbqk^bn-r", "+p" * 8, *["." * 8] * 4, "+P" * 8, "-RNBQK^BN-R"]),
    _board(
        ["lnsgk^gsnl", ".r.....b.", "p" * 9, *["." * 9] * 3, "P" * 9, ".B.....R.", "LNSGK^GSNL"]
    ),
    _board(_XIANGQI),
    # one rank
    _board(["k^+p....+PK^"]),
]
# 5x5x5 (Raumschach), five layers of five ranks
_LAYERED = _board(["rnk^nr", "ppppp", *["....."] * 21, "PPPPP", "RNK^NR"])


def _write(board: list[list[str]], layer: int = 0) -> str:
    """The FEEN text of a board: runs of empty squares counted, "/" between ranks and,
    every ``layer`` ranks, "//" between layers."""
    ranks = []
    for squares in board:
        out, run = [], 0
        for square in squares:
            if not square:
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            out.append(square)
        ranks.append("".join(out) + (str(run) if run else ""))
    text = ranks[0]
    for i, rank in enumerate(ranks[1:], 1):
        text += ("//" if layer and i % layer == 0 else "/") + rank
    return text


def placements(count: int, seed: int = 4) -> list[str]:
    """Placements as games hold them: chess, shogi, xiangqi, a one-rank board and a
    5x5x5 board in layers ("//"), each from its start with a random number of pieces
    taken off and moved to empty squares, a few promoted ("+") or derived ("'")."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        layered = rng.random() < 0.1
        start = _LAYERED if layered else rng.choice(_STARTS)
        board = [list(rank) for rank in start]
        cells = [(r, f) for r in range(len(board)) for f in range(len(board[r]))]
        for _ in range(rng.randrange(0, 3 * len(cells) // 4)):
            (r1, f1), (r2, f2) = rng.sample(cells, 2)
            if board[r1][f1]:
                piece = board[r1][f1]
                if rng.random() < 0.05 and piece[0] not in "+-":
                    piece = "+" + piece
                if rng.random() < 0.03 and not piece.endswith("'"):
                    piece += "'"
                board[r2][f2], board[r1][f1] = piece if rng.random() < 0.7 else board[r2][f2], ""
        out.append(_write(board, 5 if layered else 0))
    return out
