"""Where one machine is not enough: examples/dask_tokens.py parses a multi-file Parquet
dataset of token columns with Dask, on a local cluster of process workers and with the
threaded scheduler; the per-partition results pickle and combine.  Small data, real
Dask, real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sashite_epin import Epin
from sashite_epin._corpora import with_invalid

EXAMPLE = Path(__file__).parent.parent / "examples" / "dask_tokens.py"
FILES = 4
ROWS = 3000


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("games")
    everything: list[str] = []
    for k in range(FILES):
        tokens = with_invalid(ROWS, seed=k)
        everything += tokens
        pq.write_table(pa.table({"piece": tokens}), folder / f"part-{k}.parquet")
    return folder, everything


def expected_counts(tokens: list[str]) -> dict[str, int]:
    result = Epin.parse_many(tokens, errors="mark").valid()
    counts: dict[str, int] = {}
    for epin in result:
        counts[epin.pin.abbr] = counts.get(epin.pin.abbr, 0) + 1
    return counts


def run_example(folder: Path, *flags: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(folder), *flags],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:] if line.strip()]
    return {abbr: int(count) for abbr, count in rows}


def test_process_workers_count_what_one_process_counts(dataset: tuple[Path, list[str]]) -> None:
    folder, tokens = dataset
    assert run_example(folder) == expected_counts(tokens)


def test_the_threaded_scheduler_counts_the_same(dataset: tuple[Path, list[str]]) -> None:
    folder, tokens = dataset
    assert run_example(folder, "--threads") == expected_counts(tokens)


def test_partition_results_pickle_and_combine(dataset: tuple[Path, list[str]]) -> None:
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import dask
        from dask_tokens import parsed_arrays  # type: ignore[import-not-found]

        with dask.config.set(scheduler="processes", num_workers=2):
            combined = parsed_arrays(str(dataset[0]))
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    whole = Epin.parse_many(dataset[1], errors="mark")
    assert combined == whole and list(combined.invalid) == list(whole.invalid)
    assert [e.token for e in combined.errors()] == [e.token for e in whole.errors()]
