"""Threads: many threads parsing different inputs at once get exactly the
single-threaded results, and the buffer paths let other threads run meanwhile.

How much faster N threads finish than N sequential runs is measured, not asserted:
``python reliability/threads.py`` (docs/reliability.md has the figures).
"""

from __future__ import annotations

import gc
import os
import pickle
import random
import sys
import threading
import time
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest
from conftest import CORES

from sashite_epin import Epin, Pin
from sashite_epin._corpora import EPIN_TOKENS, PLACEMENTS, uniform, with_invalid


def jobs(core: ModuleType, scale: int) -> list[Callable[[], object]]:
    """Different inputs on every path, each a call that returns comparable output."""
    made: list[Callable[[], object]] = []
    for seed in range(3):
        valid, mixed = uniform(scale, seed), with_invalid(scale, seed + 10)
        data = " ".join(valid).encode()
        words = [t for t in mixed if t.split() == [t] and "\x00" not in t]
        u_array = np.array(words, dtype="U6")
        made += [
            lambda d=data: np.asarray(core.parse_many(d, True)).tobytes(),
            lambda v=valid: core.parse_many(v, True).to_bytes(),
            lambda m=mixed: list(core.parse_many(m, True, "mark").invalid),
            lambda u=u_array: np.asarray(core.parse_many(u, True, "mark")).tobytes(),
            lambda p=PLACEMENTS * (1 + seed): [str(x) for p1 in p for x in core.tokenize_epin(p1)],
        ]
    return made


def test_threads_get_the_single_threaded_results(core: ModuleType) -> None:
    work = jobs(core, 20000 if core.IMPLEMENTATION == "cython" else 2000)
    expected = [job() for job in work]
    got: list[list[object]] = [[] for _ in work]
    barrier = threading.Barrier(len(work))

    def run(i: int) -> None:
        barrier.wait()
        for _ in range(3):
            got[i].append(work[i]())

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [[e] * 3 for e in expected]


def progress_during(call: Callable[[], object], enough: Callable[[list[int]], bool]) -> list[int]:
    """How far another thread counts during each call(), call after call until
    enough(progress) (or, failing that, a thousand calls).

    The switch interval is made longer than the test, so the interpreter never takes the
    GIL from a thread that holds it; the counting thread gives it back after every step.
    It can count only while the caller has released the GIL: a call that holds it for
    its whole length sees exactly 0, however long it runs and however often.  Whether
    the counting thread gets a CPU during a given call is the scheduler's choice (on a
    busy machine it often does not), hence the calls until it has."""
    counter = [0]
    started, stop = threading.Event(), threading.Event()

    def count() -> None:
        started.set()
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # releases the GIL

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    thread = threading.Thread(target=count)
    thread.start()
    try:
        started.wait()
        progress: list[int] = []
        while not enough(progress) and len(progress) < 1000:
            before = counter[0]
            call()
            progress.append(counter[0] - before)
        return progress
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)


@pytest.mark.parametrize("kind", ["bytes", "numpy-S", "numpy-U"])
def test_the_buffer_paths_release_the_gil(kind: str) -> None:
    core = CORES[0]
    if core.IMPLEMENTATION != "cython":
        pytest.skip("the twin is pure Python: it holds the GIL")
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        # With the GIL off every path runs beside other threads, the list path too, so
        # there is nothing here to tell apart; the storm below checks them right.
        pytest.skip("free-threaded, GIL off: no GIL to release")
    tokens = uniform(1000) * 4_000
    data: object = {
        "bytes": " ".join(tokens).encode(),
        "numpy-S": np.array([t.encode() for t in tokens], dtype="S4"),
        "numpy-U": np.array(tokens, dtype="U4"),
    }[kind]
    # Three calls during which the other thread counted.
    released = progress_during(
        lambda: core.parse_many(data, True), lambda progress: sum(p > 0 for p in progress) >= 3
    )
    assert sum(p > 0 for p in released) >= 3, released
    # The control: the list path holds the GIL (it reads Python objects), so the other
    # thread cannot count during it, over as many calls as the buffer path needed (at
    # least three).  It shows the measure tells the two apart.
    calls = max(3, min(len(released), 100))
    held = progress_during(
        lambda: core.parse_many(tokens, True), lambda progress: len(progress) >= calls
    )
    assert held == [0] * calls


# How long the storm blows; reliability/freethreaded.sh makes it longer.
STORM_SECONDS = float(os.environ.get("SASHITE_EPIN_STORM_SECONDS", "1.5"))


def storm_jobs() -> list[Callable[[], object]]:
    """Every API, each a call whose output compares (no token str kept)."""
    tokens = uniform(3000, 5)
    mixed = with_invalid(3000, 6)
    codes = np.array([Epin.parse(t).code for t in tokens[:500]], dtype=np.uint16)
    data = " ".join(tokens).encode()
    column = pa.array(mixed)
    u4 = np.array(tokens, dtype="U4")
    return [
        lambda: [Epin.parse(t).code for t in tokens[:300]],
        lambda: [Pin.safe_parse(t) is None for t in mixed[:300]],
        lambda: [Epin.is_valid(t) for t in mixed[:300]],
        lambda: [str(x) for p in PLACEMENTS for x in Epin.tokenize(p)],
        lambda: "\n".join(Epin.parse_many(tokens).tokens()),
        lambda: Epin.parse_many(data).to_bytes(),
        lambda: np.asarray(Epin.parse_many(u4)).tobytes(),
        lambda: Epin.parse_many(column, errors="mark").reason_codes().tobytes(),
        lambda: Epin.parse_many(mixed, errors="mark").to_arrow().to_pylist()[:50],
        lambda: pickle.loads(pickle.dumps(Epin.parse_many(tokens[:400]))).to_bytes(),
        lambda: Epin.from_codes(codes).to_bytes(),
        lambda: [e.reason for e in Epin.parse_many(mixed, errors="mark").errors()][:40],
        lambda: Epin.parse_many(tokens).sorted().codes().tobytes(),
    ]


def test_thread_storm() -> None:
    """Eight threads on every API at once, over shared inputs, while another thread
    resizes a shared list and replaces its items: every call gives the single-threaded
    result, every read of the mutated list sees only tokens that were put in it, and the
    interned token strings end with the reference counts they started with (a lost or
    extra reference is a use-after-free or a leak waiting)."""
    # Fresh str objects, not the interned ones (a one-character str is always shared).
    pool = [t.encode().decode() for t in uniform(128, 7) if len(t) > 1]
    shared = list(pool * 20)
    allowed = set(pool)
    work = storm_jobs()
    expected = [job() for job in work]
    interned = Epin.parse_many(list(EPIN_TOKENS)).tokens()
    gc.collect()
    before = [sys.getrefcount(s) for s in interned]
    stop = threading.Event()
    failures: list[str] = []

    def mutate() -> None:
        rng = random.Random(1)
        while not stop.is_set():
            for _ in range(50):
                shared[rng.randrange(len(shared))] = rng.choice(pool)
            shared.extend(rng.choices(pool, k=rng.randrange(1, 300)))
            del shared[rng.randrange(1, len(shared)) :]
            shared.append(rng.choice(pool))

    def read_shared() -> None:
        result = Epin.parse_many(shared)
        seen = set(result.tokens())
        if not seen <= allowed:
            failures.append(f"shared list read as {sorted(seen - allowed)[:5]}")

    def run(seed: int) -> None:
        rng = random.Random(seed)
        deadline = time.monotonic() + STORM_SECONDS
        try:
            while time.monotonic() < deadline:
                i = rng.randrange(len(work) + 1)
                if i == len(work):
                    read_shared()
                elif work[i]() != expected[i]:
                    failures.append(f"job {i} differs")
        except Exception as error:  # a failure, reported with the rest
            failures.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(8)]
    mutator = threading.Thread(target=mutate)
    mutator.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    mutator.join()
    assert failures == []
    gc.collect()
    assert [sys.getrefcount(s) for s in interned] == before
