"""Results into frames, each beside its baseline in one run (pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks/test_bench_frames.py \\
        --benchmark-group-by=group

2M entries, on two corpora: ``mixed`` (half valid tokens, two fifths near misses, a
tenth missing) and ``clean`` (every entry a token).  Goals: ``to_pandas()`` and
``to_polars()`` within 3x the parse that made the result (a pyarrow column, and a list,
marked);
the pandas accessor's ``parse()`` within 1.2x of ``parse_many(s).to_pandas()``; the
polars namespace's ``reason()`` within 0.5x and ``parse()`` within 1.0x of
``replace_strict`` with a dict of the 624 tokens (each to its code) on the same column;
a Categorical or Enum column (and a pandas category Series) within 1.2x of the same
column as strings, for EPIN and PIN.  ``python benchmarks/test_bench_frames.py`` prints
every ratio, interleaved, best of 5 (``--cpu``: by CPU time; ``-k TEXT``: only the rows
whose name holds TEXT).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from sashite_epin import Epin
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS

pytest.importorskip("pytest_benchmark")
pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
# Imported for what importing them does: they register the accessors (.epin).
pytest.importorskip("sashite_epin.pandas")
pytest.importorskip("sashite_epin.polars")

COUNT = 2_000_000
MISSES = ["", "KK", "K+", "^K", "++K", "K^^", "K''", "1", "K ", "x1", "\u212a", "+K^'X"]

Row = tuple[str, Callable[[], object], str, Callable[[], object]]


def mixed(count: int, tokens: list[str], seed: int = 5) -> list[str | None]:
    """Half valid tokens, two fifths near misses, a tenth missing."""
    rng = random.Random(seed)
    out: list[str | None] = []
    for token in rng.choices(tokens, k=count):
        roll = rng.random()
        out.append(token if roll < 0.5 else None if roll >= 0.9 else rng.choice(MISSES))
    return out


def corpora(count: int = COUNT) -> dict[str, list[str | None]]:
    rng = random.Random(1)
    return {"mixed": mixed(count, EPIN_TOKENS), "clean": list(rng.choices(EPIN_TOKENS, k=count))}


def frame_rows(corpus: str, tokens: list[str | None]) -> list[Row]:
    """to_pandas / to_polars beside the parse; the pandas accessor beside parse_many
    then to_pandas."""
    column = pa.array(tokens, pa.string())
    result = Epin.parse_many(column, errors="mark")
    series = pd.Series(tokens, dtype="str")

    def parse() -> object:
        return Epin.parse_many(column, errors="mark")

    # The same entries as a list: its marked items stay the input's objects, read by
    # each export
    listed = Epin.parse_many(tokens, errors="mark")

    def parse_list() -> object:
        return Epin.parse_many(tokens, errors="mark")

    return [
        (f"{corpus}: result.to_pandas()", result.to_pandas, "the parse (pyarrow column)", parse),
        (f"{corpus}: result.to_polars()", result.to_polars, "the parse (pyarrow column)", parse),
        (f"{corpus}: list's result.to_pandas()", listed.to_pandas, "the parse (list)", parse_list),
        (f"{corpus}: list's result.to_polars()", listed.to_polars, "the parse (list)", parse_list),
        (
            f"{corpus}: pandas s.epin.parse(errors='mark')",
            lambda: series.epin.parse(errors="mark"),
            "parse_many(s).to_pandas()",
            lambda: Epin.parse_many(series, errors="mark").to_pandas(),
        ),
    ]


def replace_rows(corpus: str, tokens: list[str | None], pin: bool = False) -> list[Row]:
    """The polars namespace beside replace_strict with a dict of the notation's tokens
    (EPIN's 624, PIN's 312), each to its code."""
    series = pl.Series("token", tokens, pl.String)
    name = "pin" if pin else "epin"
    notation = "PIN " if pin else ""
    table = {t: Epin.parse(t).code for t in (PIN_TOKENS if pin else EPIN_TOKENS)}
    namespace = getattr(series, name)

    def replace() -> object:
        return series.replace_strict(table, default=None, return_dtype=pl.UInt16)

    return [
        (f"{corpus}: {notation}polars s.{name}.{method}()", _call(namespace, method, args),
         "replace_strict(dict)", replace)
        for method, args in (("reason", ()), ("parse", ("mark",)), ("is_valid", ()))
    ]  # fmt: skip


def category_rows(corpus: str, tokens: list[str | None], pin: bool = False) -> list[Row]:
    """A Categorical / Enum polars column and a pandas category Series beside the same
    column as strings, for each accessor method."""
    name = "pin" if pin else "epin"
    notation = "PIN" if pin else "EPIN"
    string = pl.Series("token", tokens, pl.String)
    words = sorted({t for t in tokens if t is not None})
    kinds = {
        "polars Categorical": string.cast(pl.Categorical),
        "polars Enum": string.cast(pl.Enum(words)),
    }
    str_series = pd.Series(tokens, dtype="str")
    rows: list[Row] = []
    for kind, values in kinds.items():
        for method, args in (("is_valid", ()), ("reason", ()), ("parse", ("mark",))):
            rows.append(
                (
                    f"{corpus}: {notation} {kind} .{name}.{method}()",
                    _call(getattr(values, name), method, args),
                    "the String column",
                    _call(getattr(string, name), method, args),
                )
            )
    category = str_series.astype("category")
    for method, args in (("is_valid", ()), ("reason", ()), ("parse", ("mark",))):
        rows.append(
            (
                f"{corpus}: {notation} pandas category Series .{name}.{method}()",
                _call(getattr(category, name), method, args),
                "the str Series",
                _call(getattr(str_series, name), method, args),
            )
        )
    return rows


def _call(namespace: Any, method: str, args: tuple[object, ...]) -> Callable[[], object]:
    def work() -> object:
        return getattr(namespace, method)(*args)

    return work


def all_rows(count: int = COUNT) -> list[Row]:
    rows: list[Row] = []
    for corpus, tokens in corpora(count).items():
        rows += frame_rows(corpus, tokens)
        rows += replace_rows(corpus, tokens)
        rows += category_rows(corpus, tokens)
    pin = mixed(count, PIN_TOKENS)
    rows += replace_rows("mixed", pin, pin=True)
    rows += category_rows("mixed", pin, pin=True)
    return rows


# Built when pytest collects this file (the rows name the tests), not when it is run.
ROWS = all_rows() if __name__ != "__main__" else []


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
@pytest.mark.parametrize("side", ["ours", "baseline"])
def test_frames(benchmark, row, side):  # type: ignore[no-untyped-def]
    name, work, base_name, base = row
    benchmark.group = f"{name} | beside: {base_name}"
    benchmark.pedantic(work if side == "ours" else base, rounds=5, warmup_rounds=1)


def interleaved(
    work: Callable[[], object],
    base: Callable[[], object],
    repeat: int = 5,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float]:
    """Best of repeat, the two calls alternating (the machine's noise lands on both)."""
    best = [float("inf"), float("inf")]
    work(), base()
    for _ in range(repeat):
        for k, call in enumerate((work, base)):
            start = clock()
            result = call()
            best[k] = min(best[k], clock() - start)
            del result
    return best[0], best[1]


if __name__ == "__main__":
    # --cpu: CPU time of the process (time.process_time, every thread's), which a
    # machine shared with other work disturbs less than the wall clock; run it with
    # POLARS_MAX_THREADS=1 to compare single-threaded work.
    # -k TEXT: only the rows whose name holds TEXT (their corpora are made all the same).
    cpu = "--cpu" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--cpu"]
    keep = args[args.index("-k") + 1] if "-k" in args else ""
    numbers = [a for a in args if a.isdigit()]
    count = int(numbers[0]) if numbers else COUNT
    from sashite_epin._bench import machine

    clock = time.process_time if cpu else time.perf_counter
    how = "CPU time" if cpu else "wall clock"
    print(f"{count:,} entries, best of 5, interleaved, {how}; {machine()}")
    print("| path | ns/entry | baseline | ns/entry | ratio |")
    print("|---|---|---|---|---|")
    for name, work, base_name, base in all_rows(count):
        if keep not in name:
            continue
        ours, theirs = interleaved(work, base, clock=clock)
        print(
            f"| {name} | {ours / count * 1e9:.2f} | {base_name} | "
            f"{theirs / count * 1e9:.2f} | {ours / theirs:.2f}x |",
            flush=True,
        )
