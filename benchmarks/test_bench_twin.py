"""The pure-Python twin's parse_many beside the obvious pure-Python code (pytest-benchmark).

    pip install '.[test]' && python -m pytest benchmarks/test_bench_twin.py \\
        --benchmark-group-by=group

The twin is called through its own module (``_core_py``), so this file measures it
whichever core ``SASHITE_EPIN_IMPLEMENTATION`` selects.  Its result is a TokenArray
with every record built, where the baseline only makes a list of the table's objects.

Bound (docs/speed.md, "The twin's bound for lists"): for a list of str, the twin within
1.25x the time of ``[table[t] for t in items]``, ``table`` a dict of the 624 EPIN
tokens (312 PIN) to their objects; for every other input at least as fast as the
obvious code.  ``test_twin_list_ratio`` times both sides interleaved in this process
(best of 7, CPU time) and keeps the ratio in ``extra_info``; no timing is asserted.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from _timing import best_of_interleaved

from sashite_epin import Epin, Pin, _core_py
from sashite_epin._corpora import EPIN_TOKENS, PIN_TOKENS, distinct, realistic, uniform

pytest.importorskip("pytest_benchmark")

COUNT = 2_000_000
TABLE = {t: Epin.parse(t) for t in EPIN_TOKENS}
PIN_TABLE = {t: Pin.parse(t) for t in PIN_TOKENS}
BY_BYTES = {t.encode(): v for t, v in TABLE.items()}

# name: (tokens, epin, table).  The corpora repeat their str objects; "distinct" gives
# each token its own, as str.split(), json or to_pylist() hand them out.
LISTS: dict[str, tuple[list[str], bool, dict[str, object]]] = {
    "uniform": (uniform(COUNT), True, TABLE),
    "realistic": (realistic(COUNT), True, TABLE),
    "uniform, distinct": (distinct(uniform(COUNT)), True, TABLE),
    "PIN uniform": (random.Random(1).choices(PIN_TOKENS, k=COUNT), False, PIN_TABLE),
}


def twin(tokens: object, epin: bool = True) -> Callable[[], object]:
    return lambda: _core_py.parse_many(tokens, epin)


def obvious(tokens: list[str], table: dict[str, object]) -> Callable[[], object]:
    return lambda: [table[t] for t in tokens]


@pytest.mark.parametrize("corpus", LISTS)
@pytest.mark.parametrize("side", ["twin", "baseline"])
def test_twin_list(benchmark, corpus, side):  # type: ignore[no-untyped-def]
    tokens, epin, table = LISTS[corpus]
    benchmark.group = f"twin: list of str -> result ({corpus}) | beside: [table[t] for t in items]"
    benchmark(twin(tokens, epin) if side == "twin" else obvious(tokens, table))


@pytest.mark.parametrize("corpus", LISTS)
def test_twin_list_ratio(benchmark, corpus):  # type: ignore[no-untyped-def]
    tokens, epin, table = LISTS[corpus]
    benchmark.group = "twin: list of str, ratio to [table[t] for t in items] (extra_info)"
    ours, theirs = best_of_interleaved([twin(tokens, epin), obvious(tokens, table)], rounds=7)
    benchmark.extra_info["ratio"] = round(ours / theirs, 3)
    benchmark.extra_info["twin ms"] = round(ours * 1e3, 2)
    benchmark.extra_info["baseline ms"] = round(theirs * 1e3, 2)
    benchmark.pedantic(twin(tokens, epin), rounds=1, iterations=1)


def other_inputs() -> list[tuple[str, Callable[[], object], Callable[[], object]]]:
    """(name, the twin's call, the obvious code) for every other input kind."""
    tokens = LISTS["uniform"][0]
    tup = tuple(tokens)
    joined = "\n".join(tokens).encode()
    rows: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("tuple of str", twin(tup), lambda: [TABLE[t] for t in tup]),
        (
            "iterator of str",
            lambda: _core_py.parse_many(iter(tokens), True),
            lambda: [TABLE[t] for t in iter(tokens)],
        ),
        ("joined bytes", twin(joined), lambda: [BY_BYTES[t] for t in joined.split()]),
    ]
    try:
        import numpy
    except ImportError:
        return rows
    s4, u4 = numpy.array(tokens, "S4"), numpy.array(tokens, "U4")
    objects = numpy.array(tokens, object)
    rows += [
        ("numpy S4", twin(s4), lambda: [BY_BYTES[t] for t in s4.tolist()]),
        ("numpy U4", twin(u4), lambda: [TABLE[t] for t in u4.tolist()]),
        ("numpy object", twin(objects), lambda: [TABLE[t] for t in objects.tolist()]),
    ]
    try:
        import pyarrow
    except ImportError:
        return rows
    column = pyarrow.array(tokens)
    rows.append(("pyarrow utf8", twin(column), lambda: [TABLE[t] for t in column.to_pylist()]))
    return rows


OTHERS = other_inputs()


@pytest.mark.parametrize("row", OTHERS, ids=[row[0] for row in OTHERS])
@pytest.mark.parametrize("side", ["twin", "baseline"])
def test_twin_other_inputs(benchmark, row, side):  # type: ignore[no-untyped-def]
    name, ours, theirs = row
    benchmark.group = f"twin: {name} -> result | beside: the obvious code"
    benchmark(ours if side == "twin" else theirs)


@pytest.mark.parametrize("row", OTHERS, ids=[row[0] for row in OTHERS])
def test_twin_other_inputs_ratio(benchmark, row):  # type: ignore[no-untyped-def]
    _, ours, theirs = row
    benchmark.group = "twin: other inputs, ratio to the obvious code (extra_info)"
    mine, base = best_of_interleaved([ours, theirs], rounds=5)
    benchmark.extra_info["ratio"] = round(mine / base, 3)
    benchmark.pedantic(ours, rounds=1, iterations=1)


# What a faster road through a list would cost: the C-level steps pure Python has, each
# per item in cache (65,536 items), and at full size the dict road without the type
# check a list needs (its items' own __hash__ / __eq__, or their metaclass's, must never
# run).  Kept in extra_info: the floor under the list bound (docs/speed.md).
STEP_ITEMS = 65_536


class _Sink:
    def write(self, data: bytes) -> int:
        return len(data)


def _exact_types_pickled(items: list[str]) -> None:
    """The one exact-type check besides marshal that runs no item code: a Pickler whose
    reducer_override refuses whatever is not of an exact builtin type."""
    import pickle

    class Exact(pickle.Pickler):
        def reducer_override(self, obj: object) -> object:
            raise TypeError

    pickler = Exact(_Sink(), 5)
    pickler.fast = True  # no memo: every item written
    pickler.dump(items)


@pytest.mark.parametrize("corpus", ["uniform", "uniform, distinct"])
def test_twin_list_floor(benchmark, corpus):  # type: ignore[no-untyped-def]
    import marshal
    from operator import itemgetter

    from sashite_epin._bulk_py import _known

    benchmark.group = "twin: list of str, the floor under the bound (extra_info)"
    known = _known(True, str)
    items = LISTS[corpus][0][:STEP_ITEMS]
    records = itemgetter(*items)(known)
    steps: dict[str, Callable[[], object]] = {
        "[table[t] for t in items]": obvious(items, TABLE),
        "itemgetter(*items)(records)": lambda: itemgetter(*items)(known),
        'b"".join(records)': lambda: b"".join(records),
        '"\\n".join(items)': lambda: "\n".join(items),
        "marshal.dumps(items, 4)": lambda: marshal.dumps(items, 4),
        "Pickler with reducer_override": lambda: _exact_types_pickled(items),
        "set(map(id, map(type, items)))": lambda: set(map(id, map(type, items))),
    }
    times = best_of_interleaved(list(steps.values()), rounds=15)
    for name, seconds in zip(steps, times, strict=True):
        benchmark.extra_info[f"{name} ns/item"] = round(seconds * 1e9 / STEP_ITEMS, 1)

    tokens = LISTS[corpus][0]

    def dict_road() -> bytes:
        snapshot = list.copy(tokens)
        return b"".join(
            b"".join(itemgetter(*snapshot[at : at + STEP_ITEMS])(known))
            for at in range(0, len(snapshot), STEP_ITEMS)
        )

    road, base = best_of_interleaved([dict_road, obvious(tokens, TABLE)], rounds=7)
    benchmark.extra_info["dict road, no type check: ratio"] = round(road / base, 3)
    benchmark.pedantic(dict_road, rounds=1, iterations=1)
