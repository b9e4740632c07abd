"""Containers and items that lie (tests/lying_objects.py): every bulk entry point reads a
list or tuple by its storage, runs none of the lying code while it holds the items, and
gives on both cores what the plain items give.  The crashes once found this way are
reproduced in child processes."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from types import ModuleType

import numpy as np
import pytest
from conftest import CORES
from lying_objects import hostile_input, outcome, plain

READERS = ("parse_many", "tokenize_many")


def test_every_reader_reads_what_lying_objects_truly_hold() -> None:
    rng = random.Random(44)
    fired = 0
    for _ in range(400):
        seed, epin, errors = rng.random(), rng.random() < 0.5, rng.choice(("raise", "mark"))
        for reader in READERS:
            outcomes = []
            for core in CORES:
                pick = random.Random(seed).randrange  # the same lies for each core
                container, items, trap = hostile_input(pick)
                got = outcome(getattr(core, reader), container, epin, errors)
                fired += trap.fired
                want = outcome(getattr(core, reader), plain(items), epin, errors)
                assert got == want, (core.IMPLEMENTATION, reader, items, got, want)
                outcomes.append(got)
            assert all(o == outcomes[0] for o in outcomes), (reader, outcomes)
    assert fired == 0  # no lying method was ever called


def run_child(core: ModuleType, code: str) -> subprocess.CompletedProcess[str]:
    """code run in a child process (a crash must not take the test run with it), with
    core the same core as here."""
    prelude = f"""
        import importlib
        from sashite_epin._epin import _EPINS
        from sashite_epin._pin import _PINS
        core = importlib.import_module("{core.__name__}")
        core.register(_PINS, _EPINS)
    """
    source = textwrap.dedent(prelude) + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_list_whose_len_lies_is_read_by_its_items(core: ModuleType) -> None:
    child = run_child(
        core,
        """
        class L(list):
            __len__ = lambda self: 10**7
        class T(tuple):
            __len__ = lambda self: 1
            __iter__ = lambda self: iter(["K"])
        print(len(core.tokenize_many(L(["K", "q"]), True)))
        print(len(core.parse_many(L(["K", "q"]), True, "mark")))
        print(len(core.tokenize_many(T(["K", "q", "r"]), True).row_offsets) - 1)
        print(len(core.parse_many(T(["K", "q", "r"]), True)))
    """,
    )
    assert (child.returncode, child.stdout.split()) == (0, ["2", "2", "3", "3"]), child.stderr


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_type_module_that_empties_the_list_runs_no_code(core: ModuleType) -> None:
    """A type named NAType whose __module__'s startswith empties the list: never asked
    (pandas.NA is known by its type object), the item a TypeError."""
    child = run_child(
        core,
        """
        import gc
        victim = []
        class Module(str):
            def startswith(self, *args):
                victim.clear()
                gc.collect()
                victim.extend("x" * 100 + str(i) for i in range(4000))
                return True
        NAType = type("NAType", (), {"__module__": Module("pandas")})
        for reader in (core.parse_many, core.tokenize_many):
            victim[:] = ["K", NAType(), "q"] * 1000
            try:
                reader(victim, True, "mark")
            except TypeError as e:
                print(e)
    """,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["item 1 is NAType, not str"] * 2


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_a_missing_type_that_is_a_float_subclass_is_a_float(core: ModuleType) -> None:
    """A stand-in pandas module whose NAType is a float subclass: its objects are floats
    (missing only when NaN, else a TypeError), in each core, whichever test comes first."""
    child = run_child(
        core,
        """
        import sys, types
        class F(float):
            pass
        fake = types.ModuleType("pandas._libs.missing")
        fake.NAType = F
        sys.modules["pandas._libs.missing"] = fake
        for reader in (core.parse_many, core.tokenize_many):
            result = reader(["K", F("nan")], True, "mark")
            rows = result.missing_rows  # tokenize_many's missing rows; None for parse_many
            print(list(result.invalid if rows is None else rows))
            try:
                reader(["K", F(1.0)], True, "mark")
            except TypeError as e:
                print(e)
        """,
    )
    assert child.returncode == 0, child.stderr
    lines = child.stdout.splitlines()
    assert lines == ["[1]", "item 1 is F, not str"] * 2


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_every_missing_value_is_missing(core: ModuleType) -> None:
    pd = pytest.importorskip("pandas")
    missing = [None, float("nan"), np.float64("nan"), np.float32("nan"), np.float16("nan")]
    missing += [np.longdouble("nan"), pd.NA, pd.NaT]
    for items in (missing, tuple(missing), np.array(missing, dtype=object)):
        result = core.parse_many(items, True, "mark")
        assert list(result.invalid) == list(range(len(missing)))
        if not isinstance(items, np.ndarray):
            rows = core.tokenize_many(items, True, "mark")
            assert list(rows.missing_rows) == list(range(len(missing)))
    for not_missing in (np.float32(1.5), np.int64(3), pd.Timestamp(0)):
        with pytest.raises(TypeError, match=f"item 1 is {type(not_missing).__name__}"):
            core.parse_many(["K", not_missing], True, "mark")
        with pytest.raises(TypeError, match=f"item 1 is {type(not_missing).__name__}"):
            core.tokenize_many(["K", not_missing], True, "mark")


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.IMPLEMENTATION)
def test_missing_values_are_known_whatever_was_imported_before(core: ModuleType) -> None:
    """The missing types are looked up again when pandas or numpy is imported after a
    first call, even when sys.modules keeps its size (modules removed as many as came)."""
    child = run_child(
        core,
        """
        import sys, types
        for i in range(1000):
            sys.modules[f"stand_in_{i}"] = types.ModuleType("stand_in")
        core.tokenize_many([None], True)
        core.parse_many([None], True, "mark")
        before = len(sys.modules)
        import numpy as np
        import pandas as pd
        for i in range(len(sys.modules) - before):
            del sys.modules[f"stand_in_{i}"]
        assert len(sys.modules) == before
        for value in (pd.NA, pd.NaT, np.float32("nan")):
            print(list(core.tokenize_many(["K", value], True).missing_rows),
                  list(core.parse_many(["K", value], True, "mark").invalid))
        """,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["[1] [1]"] * 3
