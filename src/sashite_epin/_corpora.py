"""The token lists and corpora the tests, the benchmarks, the fuzz targets and the bench
command share (deterministic).  The lists are spelled out from the specs' grammar, apart
from both cores, so that they can check them."""

from __future__ import annotations

import random

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
