"""How the ratio benchmarks time their sides (imported by them; benchmarks/ is on
sys.path under pytest and when a benchmark runs as a script)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of_interleaved(works: list[Callable[[], object]], rounds: int) -> list[float]:
    """Each work's best time over rounds, the works taking turns in every round, each
    result freed before the next starts.  The process's CPU time, not the wall clock:
    on a machine other processes keep busy, the wall clock also counts the time this
    one waited for a CPU, which varied by 1.5x between rounds here."""
    best = [float("inf")] * len(works)
    for _ in range(rounds):
        for k, work in enumerate(works):
            start = time.process_time()
            result = work()
            best[k] = min(best[k], time.process_time() - start)
            del result
    return best
