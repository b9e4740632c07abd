"""Ray Data's ``map_batches(sashite_epin.ray.parse(...))`` beside an identity
``map_batches`` in a real local Ray (``ray.init(num_cpus=2)``), in one run.

    pip install '.[test,engines]' && python benchmarks/test_bench_ray.py
    python -m pytest benchmarks/test_bench_ray.py --benchmark-group-by=group

Goal (2M rows of uniform tokens in 8 blocks, already in Ray's object store): within
1.5x of the identity, the wall time of the whole ``materialize()`` (Ray's scheduling,
the blocks' serialisation included).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from sashite_epin._corpora import uniform

pytest.importorskip("pytest_benchmark")
ray: Any = pytest.importorskip("ray")
pa = pytest.importorskip("pyarrow")
engine = pytest.importorskip("sashite_epin.ray")

COUNT = 2_000_000
BLOCKS = 8


def dataset() -> Any:
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    table = pa.table({"id": pa.array(range(COUNT), pa.int64()), "token": uniform(COUNT)})
    step = COUNT // BLOCKS
    parts = [table.slice(k * step, step) for k in range(BLOCKS)]
    return ray.data.from_arrow(parts).materialize()


def runs(data: Any) -> dict[str, Any]:
    return {
        "identity": lambda: data.map_batches(lambda b: b, batch_format="pyarrow").materialize(),
        "parse": lambda: data.map_batches(
            engine.parse("token", prefix="piece_"), batch_format="pyarrow"
        ).materialize(),
    }


@pytest.fixture(scope="module")
def data() -> Any:
    return dataset()


@pytest.mark.parametrize("name", ["identity", "parse"])
def test_map_batches(benchmark, data, name):  # type: ignore[no-untyped-def]
    benchmark.group = f"map_batches over {COUNT} rows | beside: identity"
    benchmark(runs(data)[name])


def ratios(rounds: int = 7) -> float:
    """parse's wall time over the identity's, the least of ``rounds`` interleaved runs
    each (the work is in Ray's worker processes: the driver's CPU time says nothing)."""
    work = runs(dataset())
    best: dict[str, float] = {}
    for _ in range(rounds):
        for name, run in work.items():
            start = time.perf_counter()
            run()
            spent = time.perf_counter() - start
            best[name] = min(best.get(name, spent), spent)
    return best["parse"] / best["identity"]


if __name__ == "__main__":  # python benchmarks/test_bench_ray.py
    print(f"map_batches(parse) / identity: {ratios():.2f}x")
