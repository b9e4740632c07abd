"""Threads: many threads parsing different inputs at once get exactly the
single-threaded results, and the buffer paths let other threads run meanwhile.

How much faster N threads finish than N sequential runs is measured, not asserted:
``python reliability/threads.py`` (docs/reliability.md has the figures).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest
from conftest import CORES

from sashite_epin._corpora import PLACEMENTS, uniform, with_invalid


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


def progress_during(call: Callable[[], object]) -> list[int]:
    """How far another thread counts while call() runs, three times.

    The switch interval is made longer than the test, so the interpreter never takes the
    GIL from a thread that holds it; the counting thread gives it back after every step.
    It can count only while the caller has released the GIL: a call that holds it for
    its whole length sees exactly 0, whatever the machine's speed."""
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
        progress = []
        for _ in range(3):
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
    tokens = uniform(1000) * 4_000
    data: object = {
        "bytes": " ".join(tokens).encode(),
        "numpy-S": np.array([t.encode() for t in tokens], dtype="S4"),
        "numpy-U": np.array(tokens, dtype="U4"),
    }[kind]
    # The control: the list path holds the GIL (it reads Python objects), so the other
    # thread cannot count during it.  It shows the measure tells the two apart.
    assert progress_during(lambda: core.parse_many(tokens, True)) == [0, 0, 0]
    assert min(progress_during(lambda: core.parse_many(data, True))) > 0
