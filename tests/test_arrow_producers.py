"""Hostile Arrow producers: every lie a C Data Interface struct can tell about itself is
a clear error on both cores, nothing is read out of bounds, and every struct handed
over is released exactly once.  Each case runs in its own process (a crash fails the
case, not the run); the kit is ``arrow_producers.py``, ctypes only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from arrow_producers import CASES
from conftest import CORES

KIT = Path(__file__).with_name("arrow_producers.py")


def run_case(case: str, implementation: str) -> dict[str, dict[str, object]]:
    """Each reader's outcome and releases (parse_many, tokenize_many)."""
    env = {**os.environ, "SASHITE_EPIN_IMPLEMENTATION": implementation}
    done = subprocess.run(
        [sys.executable, str(KIT), case], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, (case, implementation, done.returncode, done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("implementation", [core.IMPLEMENTATION for core in CORES])
@pytest.mark.parametrize("case", CASES)
def test_a_hostile_producer_gets_a_clear_error_and_its_releases(
    case: str, implementation: str
) -> None:
    _, kind, says = CASES[case]
    for reader, got in run_case(case, implementation).items():
        outcome = str(got["outcome"])
        if kind == "ok":
            assert outcome.startswith("ok "), (case, reader, outcome)
        else:
            assert outcome.startswith(f"{kind}: "), (case, reader, outcome)
            assert says in outcome, (case, reader, outcome)
        released = dict(got["released"])  # type: ignore[call-overload]
        handed = released.pop("chunks handed over", 0)
        # each chunk handed over, released once
        assert released.pop("chunk", 0) == handed, (case, reader, got)
        for name in ("schema", "array", "stream"):
            assert released.get(name, 0) <= 1, (case, reader, got)
        top = ["stream"] if "stream" in case else ["schema", "array"]
        for name in top:  # what came released (release NULL) is never released again
            want = 0 if f"{name} already released" in case else 1
            assert released.get(name, 0) == want, (case, reader, got)


@pytest.mark.parametrize("case", [c for c, (_, kind, _) in CASES.items() if kind != "ok"])
def test_both_cores_give_the_same_error(case: str) -> None:
    if len(CORES) < 2:
        pytest.skip("one core here")
    outcomes = {
        core.IMPLEMENTATION: {
            reader: got["outcome"] for reader, got in run_case(case, core.IMPLEMENTATION).items()
        }
        for core in CORES
    }
    compiled, twin = outcomes.values()
    assert compiled == twin, outcomes


def test_random_lies_give_both_cores_the_same_outcome() -> None:
    # What the fuzz target arrow_structs hands over, from a fixed seed: up to three
    # fields of a column's structs (or a stream's) set to a lie, each producer's
    # outcome and releases the same on both cores (parse_many's and tokenize_many's),
    # in a process per core.
    outcomes = {}
    for core in CORES:
        env = {**os.environ, "SASHITE_EPIN_IMPLEMENTATION": core.IMPLEMENTATION}
        done = subprocess.run(
            [sys.executable, str(KIT), "--random", "2026", "600"],
            capture_output=True, text=True, env=env, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, (core.IMPLEMENTATION, done.stderr[-2000:])
        outcomes[core.IMPLEMENTATION] = json.loads(done.stdout.strip().splitlines()[-1])
    for got in outcomes.values():
        assert not [o for o in got if "RELEASES" in o], got
        # the lies reach several checks ("reader: kind: message")
        assert len({o.split(": ")[1] for o in got}) > 3
    if len(outcomes) == 2:
        compiled, twin = outcomes.values()
        assert compiled == twin
